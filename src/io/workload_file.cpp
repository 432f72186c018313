// Reads a workload file (YAML or JSON, see docs/file-formats.md) into a Workload: jobs
// with their tasks and edges (explicit `edges:` and per-task `after:`), replicated by
// `count`, with data nodes and cost vectors resolved against the cluster. Sizes are
// bounded while reading, before anything proportional to them is allocated; the result
// is then checked by validate_workload (cycles, tasks no device can run).
#include "hetsched/io/workload_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "document_readers.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/workload_validation.hpp"
#include "yaml_fields.hpp"

namespace hetsched {
namespace {

using io_detail::FieldReader;
using io_detail::InputNode;
using io_detail::NumberRange;

const std::vector<std::string> kTopLevelFields{"jobs", "cluster"};
const std::vector<std::string> kJobFields{
    "name",  "family", "owner", "arrival_seconds", "priority", "deadline_seconds", "data_node",
    "count", "tasks",  "edges"};
const std::vector<std::string> kTaskFields{"name",         "kernel",       "precision",   "flops",
                                           "bytes",        "memory_bytes", "input_bytes", "kinds",
                                           "cost_seconds", "after"};
const std::vector<std::string> kEdgeFields{"from", "to", "bytes"};
const std::vector<std::string> kAfterFields{"task", "bytes"};
constexpr std::int64_t kPriorityLimit = 1'000'000'000;

// Running totals of what the workload will hold after replication, checked against the
// limits before the memory for them is allocated.
struct SizeBudget {
  std::int64_t jobs = 0;
  std::int64_t tasks = 0;
  std::int64_t edges = 0;
  std::int64_t cost_entries = 0;
};

void charge(std::int64_t& total, std::int64_t amount, std::int64_t limit, std::string_view what,
            const InputNode& where) {
  if (amount > limit - total)
    throw InputError(where.position(),
                     fmt::format("the workload has more than {} {} (counting replicated "
                                 "jobs); this is the limit",
                                 limit, what));
  total += amount;
}

// An edge named in the file, resolved once every task of the job is known. The names and
// nodes are the document's, which outlives the edge.
struct NamedEdge {
  std::string_view from;
  std::string_view to;
  double bytes = 0;
  InputNode from_node;
  InputNode to_node;
};

// The tasks of one job by name (the names in the document): open addressing over a table
// that is reused from job to job, so a big file allocates nothing per task.
class TaskNameIndex {
 public:
  // Makes room for `tasks` names and forgets the last job's.
  void reset(std::size_t tasks) {
    std::size_t size = 16;
    while (size < 2 * tasks) size *= 2;
    slots_.assign(size, 0);
    names_.resize(tasks);
  }
  // Files `name` under `index` and returns `index`, or returns the index it already has.
  std::uint32_t insert(std::string_view name, std::uint32_t index) {
    std::size_t slot = first_slot(name);
    for (; slots_[slot] != 0; slot = (slot + 1) & (slots_.size() - 1))
      if (names_[slots_[slot] - 1] == name) return slots_[slot] - 1;
    slots_[slot] = index + 1;
    names_[index] = name;
    return index;
  }
  std::optional<std::uint32_t> find(std::string_view name) const {
    for (std::size_t slot = first_slot(name); slots_[slot] != 0;
         slot = (slot + 1) & (slots_.size() - 1))
      if (names_[slots_[slot] - 1] == name) return slots_[slot] - 1;
    return std::nullopt;
  }

 private:
  std::size_t first_slot(std::string_view name) const {
    return std::hash<std::string_view>{}(name) & (slots_.size() - 1);
  }

  std::vector<std::uint32_t> slots_;     // a task's index + 1; 0 is free
  std::vector<std::string_view> names_;  // by task index
};

// The cluster's node names, which `data_node` may give.
struct NodeNames {
  std::unordered_map<std::string, NodeId> ids;
  std::vector<std::string> names;
};

// One reader's context: what the jobs are read against, shared and read-only, and the
// reader's own running totals and name index (each thread that reads jobs has its own).
struct ParseContext {
  const std::string& file;
  const Cluster& cluster;
  const WorkloadFileLimits& limits;
  const NodeNames& nodes;
  SizeBudget budget;
  TaskNameIndex task_ids;  // the job being read
};

const std::vector<std::string>& precision_names_with_synonyms() {
  static const std::vector<std::string> names = [] {
    auto all = precision_names();
    all.push_back("bf16");
    return all;
  }();
  return names;
}

DeviceKindSet read_kinds(const InputNode& value, const std::string& file) {
  std::vector<InputNode> entries;
  if (value.is_scalar()) {
    entries.push_back(value);
  } else {
    const std::size_t length = io_detail::list_length(value, "kinds", file);
    if (length == 0)
      throw InputError(io_detail::position_of(value, file),
                       "field 'kinds' expects at least one device kind");
    for (std::size_t i = 0; i < length; ++i) entries.push_back(value[i]);
  }
  DeviceKindSet kinds = DeviceKindSet::none();
  for (const InputNode& entry : entries) {
    const std::string text = io_detail::string_value(entry, "kinds", file);
    const auto kind = parse_device_kind(text);
    if (!kind)
      throw InputError(io_detail::position_of(entry, file),
                       unknown_name_message("device kind", text, device_kind_names()));
    kinds.insert(*kind);
  }
  return kinds;
}

std::vector<double> read_costs(const InputNode& value, ParseContext& context,
                               std::int64_t replicas) {
  const std::size_t length = io_detail::list_length(value, "cost_seconds", context.file);
  const SourcePosition where = io_detail::position_of(value, context.file);
  if (length != context.cluster.device_count())
    throw InputError(where, fmt::format("field 'cost_seconds' has {} entries but the cluster has "
                                        "{} devices (give one per device, in device order)",
                                        length, context.cluster.device_count()));
  charge(context.budget.cost_entries, replicas * static_cast<std::int64_t>(length),
         context.limits.max_cost_entries, "cost_seconds entries", value);
  std::vector<double> costs(length);
  for (std::size_t i = 0; i < length; ++i)
    costs[i] = io_detail::number_value(value[i], fmt::format("cost_seconds[{}]", i),
                                       NumberRange::non_negative, context.file);
  return costs;
}

// The `after:` entries of a task: names of earlier tasks, or {task, bytes} maps.
void read_after(const InputNode& value, const InputNode& task_name, ParseContext& context,
                std::int64_t replicas, std::vector<NamedEdge>& edges) {
  const std::size_t length = io_detail::list_length(value, "after", context.file);
  for (std::size_t i = 0; i < length; ++i) {
    const InputNode entry = value[i];
    charge(context.budget.edges, replicas, context.limits.max_edges, "edges", entry);
    NamedEdge edge;
    edge.to = task_name.scalar();
    edge.to_node = task_name;
    if (entry.is_map()) {
      const FieldReader after(entry, "'after' entry", context.file, kAfterFields);
      (void)after.required_string("task");  // checks it
      edge.from_node = after.required("task");
      edge.from = edge.from_node.scalar();
      edge.bytes = after.optional_number("bytes", NumberRange::non_negative).value_or(0);
    } else {
      (void)io_detail::string_value(entry, "after", context.file);  // checks it
      edge.from = entry.scalar();
      edge.from_node = entry;
    }
    edges.push_back(std::move(edge));
  }
}

struct ReadTask {
  Task task;
  InputNode name;  // the node of its name
};

ReadTask read_task(const InputNode& value, ParseContext& context, std::int64_t replicas,
                   std::vector<NamedEdge>& edges) {
  const FieldReader reader(value, "task", context.file, kTaskFields);
  Task task;
  task.name = reader.required_string("name");
  const InputNode& name = reader.required("name");
  if (const InputNode* kernel = reader.find("kernel")) {
    const std::string text = io_detail::string_value(*kernel, "kernel", context.file);
    const auto parsed = parse_kernel_class(text);
    if (!parsed)
      throw InputError(io_detail::position_of(*kernel, context.file),
                       unknown_name_message("kernel class", text, kernel_class_names()));
    task.kernel = *parsed;
  }
  if (const InputNode* precision = reader.find("precision")) {
    const std::string text = io_detail::string_value(*precision, "precision", context.file);
    const auto parsed = parse_precision(text);
    if (!parsed)
      throw InputError(io_detail::position_of(*precision, context.file),
                       unknown_name_message("precision", text, precision_names_with_synonyms()));
    task.precision = *parsed;
  }
  task.flops = reader.optional_number("flops", NumberRange::non_negative).value_or(0);
  task.bytes = reader.optional_number("bytes", NumberRange::non_negative).value_or(0);
  task.memory_bytes = reader.optional_number("memory_bytes", NumberRange::non_negative).value_or(0);
  task.input_bytes = reader.optional_number("input_bytes", NumberRange::non_negative).value_or(0);
  if (const InputNode* kinds = reader.find("kinds"))
    task.allowed_kinds = read_kinds(*kinds, context.file);
  if (const InputNode* costs = reader.find("cost_seconds"))
    task.cost_seconds = read_costs(*costs, context, replicas);
  if (const InputNode* after = reader.find("after"))
    read_after(*after, name, context, replicas, edges);
  return ReadTask{std::move(task), name};
}

NodeId read_data_node(const InputNode& value, const ParseContext& context) {
  const std::string text = io_detail::string_value(value, "data_node", context.file);
  const SourcePosition where = io_detail::position_of(value, context.file);
  if (const auto it = context.nodes.ids.find(text); it != context.nodes.ids.end())
    return it->second;
  const bool is_index =
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!is_index) throw InputError(where, unknown_name_message("node", text, context.nodes.names));
  const std::size_t node_count = context.cluster.node_count();
  const std::int64_t index = io_detail::whole_number_value(
      value, "data_node", 0, static_cast<std::int64_t>(node_count) - 1, context.file);
  return static_cast<NodeId>(index);
}

// Turns named edges into index edges; an unknown name is reported with the closest ones.
std::vector<Edge> resolve_edges(const std::vector<NamedEdge>& named, const Job& job,
                                const TaskNameIndex& task_ids) {
  auto resolve = [&](std::string_view name, const InputNode& where) {
    const auto id = task_ids.find(name);
    if (!id) {
      std::vector<std::string> task_names;
      for (const Task& task : job.tasks) task_names.push_back(task.name);
      throw InputError(where.position(),
                       io_detail::unknown_name_in(
                           "task", name, task_names,
                           fmt::format("job {}", io_detail::quote_for_message(job.name))));
    }
    return *id;
  };
  std::vector<Edge> edges;
  edges.reserve(named.size());
  for (const NamedEdge& edge : named)
    edges.push_back(
        Edge{resolve(edge.from, edge.from_node), resolve(edge.to, edge.to_node), edge.bytes});
  return edges;
}

// One `jobs:` entry: the job and how many copies of it to make.
struct JobGroup {
  Job job;
  std::int64_t count = 1;
  InputNode name;                // the node of the job's name
  std::vector<InputNode> tasks;  // the node of each task's name
};

JobGroup read_job(const InputNode& value, ParseContext& context) {
  const FieldReader reader(value, "job", context.file, kJobFields);
  JobGroup group;
  Job& job = group.job;
  job.name = reader.required_string("name");
  group.name = reader.required("name");
  group.count =
      reader.optional_whole_number("count", 1, context.limits.max_job_replicas).value_or(1);
  charge(context.budget.jobs, group.count, context.limits.max_jobs, "jobs", value);
  if (auto family = reader.optional_string("family")) job.family = *family;
  if (auto owner = reader.optional_string("owner")) job.owner = *owner;
  job.arrival_seconds =
      reader.optional_number("arrival_seconds", NumberRange::non_negative).value_or(0);
  job.priority = static_cast<int>(
      reader.optional_whole_number("priority", -kPriorityLimit, kPriorityLimit).value_or(0));
  job.deadline_seconds = reader.optional_number("deadline_seconds", NumberRange::non_negative);
  if (job.deadline_seconds && *job.deadline_seconds < job.arrival_seconds)
    throw InputError(reader.position_of_field("deadline_seconds"),
                     fmt::format("job {}: deadline_seconds ({}) is before arrival_seconds ({})",
                                 io_detail::quote_for_message(job.name), *job.deadline_seconds,
                                 job.arrival_seconds));
  if (const InputNode* data_node = reader.find("data_node"))
    job.data_node = read_data_node(*data_node, context);

  const InputNode& tasks = reader.required("tasks");
  const std::size_t task_count = io_detail::list_length(tasks, "tasks", context.file);
  if (task_count == 0)
    throw InputError(io_detail::position_of(tasks, context.file),
                     fmt::format("job {} has no tasks", io_detail::quote_for_message(job.name)));
  std::vector<NamedEdge> named_edges;
  named_edges.reserve(task_count);  // room for a chain; more grows it
  TaskNameIndex& task_ids = context.task_ids;
  task_ids.reset(task_count);
  job.tasks.reserve(task_count);
  group.tasks.reserve(task_count);
  for (std::size_t i = 0; i < task_count; ++i) {
    const InputNode entry = tasks[i];
    charge(context.budget.tasks, group.count, context.limits.max_tasks, "tasks", entry);
    auto [task, name] = read_task(entry, context, group.count, named_edges);
    const std::uint32_t first_of_name =
        task_ids.insert(name.scalar(), static_cast<std::uint32_t>(i));
    if (first_of_name != i) {
      const SourcePosition first = group.tasks[first_of_name].position();
      throw InputError(
          name.position(),
          fmt::format("duplicate task name {} in job {} (first at line {}, column {})",
                      io_detail::quote_for_message(task.name),
                      io_detail::quote_for_message(job.name), first.line, first.column));
    }
    group.tasks.push_back(name);
    job.tasks.push_back(std::move(task));
  }

  if (const InputNode* edges = reader.find("edges")) {
    const std::size_t length = io_detail::list_length(*edges, "edges", context.file);
    for (std::size_t i = 0; i < length; ++i) {
      const InputNode entry = (*edges)[i];
      charge(context.budget.edges, group.count, context.limits.max_edges, "edges", entry);
      const FieldReader edge(entry, "edge", context.file, kEdgeFields);
      NamedEdge named;
      (void)edge.required_string("from");  // checks them
      (void)edge.required_string("to");
      named.from_node = edge.required("from");
      named.to_node = edge.required("to");
      named.from = named.from_node.scalar();
      named.to = named.to_node.scalar();
      named.bytes = edge.optional_number("bytes", NumberRange::non_negative).value_or(0);
      named_edges.push_back(std::move(named));
    }
  }
  job.edges = resolve_edges(named_edges, job, task_ids);
  return group;
}

// Whether adding `more` to `total` goes past a limit.
bool exceeds_limits(const SizeBudget& total, const SizeBudget& more,
                    const WorkloadFileLimits& limits) {
  return more.jobs > limits.max_jobs - total.jobs || more.tasks > limits.max_tasks - total.tasks ||
         more.edges > limits.max_edges - total.edges ||
         more.cost_entries > limits.max_cost_entries - total.cost_entries;
}

void add_charges(SizeBudget& total, const SizeBudget& more) {
  total.jobs += more.jobs;
  total.tasks += more.tasks;
  total.edges += more.edges;
  total.cost_entries += more.cost_entries;
}

constexpr std::size_t kJobsPerBlock = 16;  // jobs a reading thread takes at a time

unsigned job_reader_threads(std::size_t jobs, const WorkloadFileLimits& limits) {
  const unsigned wanted = limits.reader_threads != 0
                              ? limits.reader_threads
                              : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
  const std::size_t blocks = (jobs + kJobsPerBlock - 1) / kJobsPerBlock;
  return static_cast<unsigned>(std::min<std::size_t>(wanted, blocks));
}

// Every entry of `jobs`, read as one reader in file order would read them: the same jobs,
// and on bad input the same first error at the same position. A big file's jobs are read
// by several threads in blocks, each job whole and alone (its charges counted from zero);
// then, in file order, the charges are added up, and a job that failed, or that takes
// the totals past a limit, is read again after the jobs before it, as the one reader would
// have read it, which raises the error that reader meets first.
std::vector<JobGroup> read_jobs(const InputNode& jobs, std::size_t length, ParseContext& context) {
  std::vector<JobGroup> groups(length);
  const unsigned threads = job_reader_threads(length, context.limits);
  if (threads <= 1) {
    for (std::size_t i = 0; i < length; ++i) groups[i] = read_job(jobs[i], context);
    return groups;
  }
  std::vector<SizeBudget> charges(length);
  std::vector<std::uint8_t> done(length, 0);  // read whole by a thread
  std::atomic<std::size_t> next_block{0};
  std::atomic<std::size_t> first_failure{length};  // no block past it is started
  const auto read_blocks = [&] {
    ParseContext mine{context.file, context.cluster, context.limits, context.nodes, {}, {}};
    for (;;) {
      const std::size_t begin = next_block.fetch_add(kJobsPerBlock);
      const std::size_t end = std::min(begin + kJobsPerBlock, length);
      if (begin >= std::min(length, first_failure.load())) return;
      for (std::size_t i = begin; i < end; ++i) {
        mine.budget = {};
        try {
          groups[i] = read_job(jobs[i], mine);
        } catch (...) {  // read again below, in order, where it is raised again
          std::size_t seen = first_failure.load();
          while (i < seen && !first_failure.compare_exchange_weak(seen, i)) {
          }
          break;
        }
        charges[i] = mine.budget;
        done[i] = 1;
      }
    }
  };
  {
    std::vector<std::jthread> helpers;
    try {
      for (unsigned t = 1; t < threads; ++t) helpers.emplace_back(read_blocks);
    } catch (const std::system_error&) {
      // no more threads to be had: those started, and this one, read every job
    }
    read_blocks();
  }
  for (std::size_t i = 0; i < length; ++i) {
    if (done[i] && !exceeds_limits(context.budget, charges[i], context.limits)) {
      add_charges(context.budget, charges[i]);
      continue;
    }
    groups[i] = read_job(jobs[i], context);
  }
  return groups;
}

// Where each job group and its tasks were written, and which group each job came from.
struct WorkloadSources {
  std::vector<InputNode> group_names;
  std::vector<std::vector<InputNode>> group_tasks;
  std::vector<std::uint32_t> group_of_job;
};

Workload build_workload(const InputNode& root, ParseContext& context, WorkloadSources& sources) {
  const FieldReader top(root, "the workload file", context.file, kTopLevelFields);
  (void)top.optional_string("cluster");  // which cluster file: read by load_scheduling_input
  const InputNode& jobs = top.required("jobs");
  const std::size_t length = io_detail::list_length(jobs, "jobs", context.file);
  if (length == 0)
    throw InputError(io_detail::position_of(jobs, context.file),
                     "field 'jobs' expects at least one job");

  // Read (and size-check) every job before making any copies.
  std::vector<JobGroup> groups = read_jobs(jobs, length, context);

  std::unordered_map<std::string, InputNode> first_use;
  for (const JobGroup& group : groups) {
    for (std::int64_t r = 0; r < group.count; ++r) {
      const std::string name =
          group.count > 1 ? fmt::format("{}-{}", group.job.name, r) : group.job.name;
      const auto [it, inserted] = first_use.emplace(name, group.name);
      if (!inserted) {
        const SourcePosition first = it->second.position();
        throw InputError(group.name.position(),
                         fmt::format("duplicate job name {} (first at line {}, column {})",
                                     io_detail::quote_for_message(name), first.line, first.column));
      }
    }
  }

  Workload workload;
  workload.jobs.reserve(static_cast<std::size_t>(context.budget.jobs));
  for (JobGroup& group : groups) {
    sources.group_names.push_back(group.name);
    sources.group_tasks.push_back(std::move(group.tasks));
    sources.group_of_job.insert(sources.group_of_job.end(), static_cast<std::size_t>(group.count),
                                static_cast<std::uint32_t>(sources.group_names.size() - 1));
    if (group.count == 1) {
      workload.jobs.push_back(std::move(group.job));
      continue;
    }
    for (std::int64_t r = 0; r < group.count; ++r) {
      Job copy = group.job;
      copy.name = fmt::format("{}-{}", group.job.name, r);
      workload.jobs.push_back(std::move(copy));
    }
  }
  return workload;
}

}  // namespace

Workload io_detail::read_workload(const InputDocument& document, const Cluster& cluster,
                                  const WorkloadFileLimits& limits) {
  // The document lives until the checks are done: their errors point into it.
  const std::string& file_name = document.file();
  NodeNames nodes;
  for (const Node& node : cluster.nodes()) {
    nodes.ids.emplace(node.name, static_cast<NodeId>(nodes.names.size()));
    nodes.names.push_back(node.name);
  }
  ParseContext context{file_name, cluster, limits, nodes, {}, {}};
  WorkloadSources sources;
  Workload workload = build_workload(document.root(), context, sources);
  validate_workload(
      workload, cluster, file_name, [&](std::size_t job, std::optional<std::size_t> task) {
        const std::uint32_t group = sources.group_of_job[job];
        const auto& tasks = sources.group_tasks[group];
        return (task && *task < tasks.size() ? tasks[*task] : sources.group_names[group])
            .position();
      });
  return workload;
}

Workload parse_workload(std::string_view text, const std::string& file_name, const Cluster& cluster,
                        const WorkloadFileLimits& limits) {
  return io_detail::read_workload(io_detail::parse_document(text, file_name, "'jobs'"), cluster,
                                  limits);
}

Workload load_workload_file(const std::string& path, const Cluster& cluster,
                            const WorkloadFileLimits& limits) {
  const std::string text = read_text_file(path);
  return io_detail::read_workload(io_detail::parse_document(text, path, "'jobs'", room_after(text)),
                                  cluster, limits);
}

}  // namespace hetsched
