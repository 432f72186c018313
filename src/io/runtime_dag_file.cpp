// Runtime DAG files: the workload file format with runtime kernels. Tasks are added to
// one RuntimeDag in file order (jobs in order, then their tasks), so dependencies follow
// from the data each task names, as StarPU infers them from handle accesses in
// submission order; `after:` (names of earlier tasks of the same job) and `edges:` add
// ordering edges. A handle is created, with its kind and size fixed, by its first use;
// a later use as another kind or size is an error naming both uses (arrays of doubles of
// the same bytes — a matrix and a vector, say — are interchangeable). Sizes are checked
// against the limits before any data is allocated.
#include "hetsched/io/runtime_dag_file.hpp"

#include <fmt/format.h>

#include <cstring>
#include <span>
#include <unordered_map>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/rng.hpp"
#include "yaml_fields.hpp"

namespace hetsched {
namespace {

using io_detail::FieldReader;
using io_detail::InputNode;

const std::vector<std::string> kJobFields{"name", "tasks", "edges"};
const std::vector<std::string> kTaskFields{"name", "kernel", "size", "data", "after"};
const std::vector<std::string> kEdgeFields{"from", "to"};

bool holds_doubles(ArgumentKind kind) {
  return kind == ArgumentKind::matrix || kind == ArgumentKind::vector ||
         kind == ArgumentKind::scalar;
}

struct NamedHandle {
  HandleId handle = 0;
  ArgumentKind kind = ArgumentKind::matrix;
  std::int64_t size = 0;
  std::string first_use;  // "task 'x' (file:line:col)"
  double graph_edges = 0;
};

class Reader {
 public:
  Reader(const std::string& file, std::uint64_t seed, const RuntimeDagFileLimits& limits)
      : file_(file), rng_(seed), limits_(limits), dag_(std::make_unique<RuntimeDag>()) {}

  std::unique_ptr<RuntimeDag> read(const InputNode& root) {
    const FieldReader top(root, "runtime DAG file", file_, {"jobs"});
    const InputNode& jobs = top.required("jobs");
    const std::size_t job_count = io_detail::list_length(jobs, "jobs", file_);
    if (job_count == 0)
      throw InputError(io_detail::position_of(jobs, file_), "'jobs' needs at least one job");
    for (std::size_t j = 0; j < job_count; ++j) read_job(jobs[j], job_count > 1);
    return std::move(dag_);
  }

 private:
  void read_job(const InputNode& value, bool prefix_names) {
    const FieldReader job(value, "job", file_, kJobFields);
    const std::string job_name = job.required_string("name");
    const InputNode& tasks = job.required("tasks");
    const std::size_t count = io_detail::list_length(tasks, "tasks", file_);
    if (count == 0)
      throw InputError(io_detail::position_of(tasks, file_),
                       fmt::format("job '{}' needs at least one task", job_name));
    // `edges:` entries, gathered first so each becomes an ordering edge of its `to` task.
    std::unordered_map<std::string, std::vector<std::pair<std::string, SourcePosition>>> edges_to;
    if (const InputNode* edges = job.find("edges")) {
      const std::size_t edge_count = io_detail::list_length(*edges, "edges", file_);
      for (std::size_t e = 0; e < edge_count; ++e) {
        const FieldReader edge((*edges)[e], "edge", file_, kEdgeFields);
        edges_to[edge.required_string("to")].emplace_back(edge.required_string("from"),
                                                          edge.position_of_field("from"));
      }
    }
    std::unordered_map<std::string, std::uint32_t> job_tasks;  // name → index in the DAG
    std::vector<std::string> job_task_names;
    for (std::size_t t = 0; t < count; ++t) {
      const FieldReader task(tasks[t], "task", file_, kTaskFields);
      const std::string name = task.required_string("name");
      if (job_tasks.contains(name))
        throw InputError(task.position_of_field("name"),
                         fmt::format("task name '{}' appears twice in job '{}'", name, job_name));
      if (++task_count_ > limits_.max_tasks)
        throw InputError(task.position(),
                         fmt::format("more than {} tasks in the file", limits_.max_tasks));
      std::vector<std::uint32_t> after;
      auto earlier = [&](const std::string& other, const SourcePosition& where) {
        const auto it = job_tasks.find(other);
        if (it != job_tasks.end()) return it->second;
        throw InputError(where,
                         fmt::format("{}; a task may only follow earlier tasks of its job",
                                     unknown_name_message("earlier task", other, job_task_names)));
      };
      if (const InputNode* list = task.find("after")) {
        const std::size_t n = io_detail::list_length(*list, "after", file_);
        for (std::size_t i = 0; i < n; ++i)
          after.push_back(earlier(io_detail::string_value((*list)[i], "after", file_),
                                  io_detail::position_of((*list)[i], file_)));
      }
      if (const auto it = edges_to.find(name); it != edges_to.end()) {
        for (const auto& [from, where] : it->second) after.push_back(earlier(from, where));
        edges_to.erase(it);
      }
      const std::uint32_t index = read_task(task, name, prefix_names ? job_name + "/" : "", after);
      job_tasks.emplace(name, index);
      job_task_names.push_back(name);
    }
    if (!edges_to.empty()) {
      const auto& [to, from] = *edges_to.begin();
      throw InputError(from.front().second,
                       unknown_name_message("task", to, job_task_names) + " in 'edges'");
    }
  }

  std::uint32_t read_task(const FieldReader& task, const std::string& name,
                          const std::string& prefix, const std::vector<std::uint32_t>& after) {
    const InputNode& kernel_node = task.required("kernel");
    const std::string kernel_text = io_detail::string_value(kernel_node, "kernel", file_);
    const auto kernel = parse_kernel_id(kernel_text);
    if (!kernel)
      throw InputError(io_detail::position_of(kernel_node, file_),
                       unknown_name_message("kernel", kernel_text, kernel_id_names()));
    const KernelTraits& traits = kernel_traits(*kernel);
    const std::span<const KernelArgument> arguments = traits.argument_list();
    std::int64_t size = 0;
    if (*kernel != KernelId::empty) {
      if (!task.has("size"))
        throw InputError(task.position(),
                         fmt::format("task '{}' is missing required field 'size' (kernel {} "
                                     "needs its matrix side or element count)",
                                     name, kernel_text));
      size =
          io_detail::whole_number_value(task.required("size"), "size", 1, traits.max_size, file_);
    } else if (task.has("size")) {
      size = io_detail::whole_number_value(task.required("size"), "size", 0, 0, file_);
    }
    std::vector<std::string> data_names;
    if (const InputNode* data = task.find("data")) {
      const std::size_t n = io_detail::list_length(*data, "data", file_);
      if (n != arguments.size())
        throw InputError(task.position_of_field("data"),
                         fmt::format("kernel {} takes {} data argument(s), 'data' names {}",
                                     kernel_text, arguments.size(), n));
      for (std::size_t i = 0; i < n; ++i)
        data_names.push_back(io_detail::string_value((*data)[i], "data", file_));
    }

    KernelCall call;
    call.kernel = *kernel;
    call.n = static_cast<std::uint32_t>(size);
    double graph_edges = 0;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
      const ArgumentKind kind = arguments[i].kind;
      const SourcePosition where =
          data_names.empty() ? task.position() : task.position_of_field("data");
      const NamedHandle& h = data_names.empty()
                                 ? create(kind, size, fmt::format("task '{}'", name), where)
                                 : named(data_names[i], kind, size, name, where);
      call.handles[i] = h.handle;
      call.access[i] = arguments[i].access;
      if (kind == ArgumentKind::graph) graph_edges = h.graph_edges;
    }
    call.handle_count = static_cast<std::uint8_t>(arguments.size());
    return dag_->add_task(prefix + name, call, graph_edges, after);
  }

  const NamedHandle& named(const std::string& data_name, ArgumentKind kind, std::int64_t size,
                           const std::string& task_name, const SourcePosition& where) {
    const auto it = handles_.find(data_name);
    if (it == handles_.end()) {
      NamedHandle h = create(
          kind, size,
          fmt::format("task '{}' ({}:{}:{})", task_name, where.file, where.line, where.column),
          where);
      return handles_.emplace(data_name, std::move(h)).first->second;
    }
    const NamedHandle& h = it->second;
    // Arrays of doubles (matrix, vector, scalar) are interchangeable when their bytes match:
    // a stencil's n×n grid is a reduction's n² vector.
    const bool compatible = (h.kind == kind && h.size == size) ||
                            (holds_doubles(h.kind) && holds_doubles(kind) &&
                             argument_bytes(h.kind, h.size) == argument_bytes(kind, size));
    if (!compatible)
      throw InputError(where, fmt::format("data '{}' is used as a {} of size {} here, but {} "
                                          "made it a {} of size {}",
                                          data_name, to_string(kind), size, h.first_use,
                                          to_string(h.kind), h.size));
    return h;
  }

  // A new handle, filled with data from the seed. Returned by value for named handles;
  // private ones live in `scratch_`.
  const NamedHandle& create(ArgumentKind kind, std::int64_t size, std::string first_use,
                            const SourcePosition& where) {
    const std::int64_t bytes = argument_bytes(kind, size);
    total_bytes_ += bytes;
    if (total_bytes_ > limits_.max_total_bytes)
      throw InputError(where, fmt::format("the file's data would take more than {} bytes",
                                          limits_.max_total_bytes));
    DataRegistry& data = dag_->data();
    scratch_ = NamedHandle{};
    scratch_.kind = kind;
    scratch_.size = size;
    scratch_.first_use = std::move(first_use);
    const auto n = static_cast<std::size_t>(size);
    switch (kind) {
      case ArgumentKind::matrix: {
        scratch_.handle = data.add(std::size_t(bytes));
        auto m = data.view<double>(scratch_.handle);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j <= i; ++j) m[i * n + j] = m[j * n + i] = rng_.uniform(-1, 1);
        for (std::size_t i = 0; i < n; ++i) m[i * n + i] += double(n);  // SPD
        break;
      }
      case ArgumentKind::vector:
        scratch_.handle = data.add(std::size_t(bytes));
        for (double& x : data.view<double>(scratch_.handle)) x = rng_.uniform();
        break;
      case ArgumentKind::keys:
        scratch_.handle = data.add(std::size_t(bytes));
        for (auto& k : data.view<std::uint32_t>(scratch_.handle))
          k = static_cast<std::uint32_t>(rng_.next_u64());
        break;
      case ArgumentKind::graph: {
        std::vector<std::int32_t> csr;
        scratch_.graph_edges = double(fill_random_graph(csr, static_cast<std::uint32_t>(n),
                                                        kExtraEdgesPerVertex, rng_.next_u64()));
        scratch_.handle = data.add(csr.size() * sizeof(std::int32_t));
        std::memcpy(data.data(scratch_.handle), csr.data(), csr.size() * sizeof(std::int32_t));
        break;
      }
      case ArgumentKind::scalar:
      case ArgumentKind::levels:
        scratch_.handle = data.add(std::size_t(bytes));
        break;
    }
    return scratch_;
  }

  const std::string& file_;
  Rng rng_;
  RuntimeDagFileLimits limits_;
  std::unique_ptr<RuntimeDag> dag_;
  std::unordered_map<std::string, NamedHandle> handles_;
  NamedHandle scratch_;
  std::int64_t task_count_ = 0;
  std::int64_t total_bytes_ = 0;
};

}  // namespace

std::unique_ptr<RuntimeDag> parse_runtime_dag(std::string_view text, const std::string& file_name,
                                              std::uint64_t seed,
                                              const RuntimeDagFileLimits& limits) {
  const io_detail::InputDocument document = io_detail::parse_document(text, file_name, "'jobs'");
  return Reader(file_name, seed, limits).read(document.root());
}

std::unique_ptr<RuntimeDag> load_runtime_dag_file(const std::string& path, std::uint64_t seed,
                                                  const RuntimeDagFileLimits& limits) {
  return parse_runtime_dag(read_text_file(path), path, seed, limits);
}

}  // namespace hetsched
