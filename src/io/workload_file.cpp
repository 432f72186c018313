// Reads a workload file (YAML or JSON, see docs/file-formats.md) into a Workload: jobs
// with their tasks and edges (explicit `edges:` and per-task `after:`), replicated by
// `count`, with data nodes and cost vectors resolved against the cluster. Sizes are
// bounded while reading, before anything proportional to them is allocated; the result
// is then checked by validate_workload (cycles, tasks no device can run).
#include "hetsched/io/workload_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/workload_validation.hpp"
#include "yaml_fields.hpp"

namespace hetsched {
namespace {

using io_detail::FieldReader;
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
            const SourcePosition& where) {
  if (amount > limit - total)
    throw InputError(where, fmt::format("the workload has more than {} {} (counting replicated "
                                        "jobs); this is the limit",
                                        limit, what));
  total += amount;
}

// An edge named in the file, resolved once every task of the job is known.
struct NamedEdge {
  std::string from;
  std::string to;
  double bytes = 0;
  SourcePosition from_position;
  SourcePosition to_position;
};

struct ParseContext {
  const std::string& file;
  const Cluster& cluster;
  const WorkloadFileLimits& limits;
  SizeBudget budget;
  std::unordered_map<std::string, NodeId> node_ids;
  std::vector<std::string> node_names;
};

const std::vector<std::string>& precision_names_with_synonyms() {
  static const std::vector<std::string> names = [] {
    auto all = precision_names();
    all.push_back("bf16");
    return all;
  }();
  return names;
}

DeviceKindSet read_kinds(const YAML::Node& value, const std::string& file) {
  std::vector<YAML::Node> entries;
  if (value.IsScalar()) {
    entries.push_back(value);
  } else {
    const std::size_t length = io_detail::list_length(value, "kinds", file);
    if (length == 0)
      throw InputError(io_detail::position_of(value, file),
                       "field 'kinds' expects at least one device kind");
    for (std::size_t i = 0; i < length; ++i) entries.push_back(value[i]);
  }
  DeviceKindSet kinds = DeviceKindSet::none();
  for (const YAML::Node& entry : entries) {
    const std::string text = io_detail::string_value(entry, "kinds", file);
    const auto kind = parse_device_kind(text);
    if (!kind)
      throw InputError(io_detail::position_of(entry, file),
                       unknown_name_message("device kind", text, device_kind_names()));
    kinds.insert(*kind);
  }
  return kinds;
}

std::vector<double> read_costs(const YAML::Node& value, ParseContext& context,
                               std::int64_t replicas) {
  const std::size_t length = io_detail::list_length(value, "cost_seconds", context.file);
  const SourcePosition where = io_detail::position_of(value, context.file);
  if (length != context.cluster.device_count())
    throw InputError(where, fmt::format("field 'cost_seconds' has {} entries but the cluster has "
                                        "{} devices (give one per device, in device order)",
                                        length, context.cluster.device_count()));
  charge(context.budget.cost_entries, replicas * static_cast<std::int64_t>(length),
         context.limits.max_cost_entries, "cost_seconds entries", where);
  std::vector<double> costs(length);
  for (std::size_t i = 0; i < length; ++i)
    costs[i] = io_detail::number_value(value[i], fmt::format("cost_seconds[{}]", i),
                                       NumberRange::non_negative, context.file);
  return costs;
}

// The `after:` entries of a task: names of earlier tasks, or {task, bytes} maps.
void read_after(const YAML::Node& value, const std::string& task_name,
                const SourcePosition& task_position, ParseContext& context, std::int64_t replicas,
                std::vector<NamedEdge>& edges) {
  const std::size_t length = io_detail::list_length(value, "after", context.file);
  for (std::size_t i = 0; i < length; ++i) {
    const YAML::Node entry = value[i];
    const SourcePosition where = io_detail::position_of(entry, context.file);
    charge(context.budget.edges, replicas, context.limits.max_edges, "edges", where);
    NamedEdge edge;
    edge.to = task_name;
    edge.to_position = task_position;
    if (entry.IsMap()) {
      const FieldReader after(entry, "'after' entry", context.file, kAfterFields);
      edge.from = after.required_string("task");
      edge.from_position = after.position_of_field("task");
      edge.bytes = after.optional_number("bytes", NumberRange::non_negative).value_or(0);
    } else {
      edge.from = io_detail::string_value(entry, "after", context.file);
      edge.from_position = where;
    }
    edges.push_back(std::move(edge));
  }
}

struct ReadTask {
  Task task;
  SourcePosition name_position;
};

ReadTask read_task(const YAML::Node& value, ParseContext& context, std::int64_t replicas,
                   std::vector<NamedEdge>& edges) {
  const FieldReader reader(value, "task", context.file, kTaskFields);
  Task task;
  task.name = reader.required_string("name");
  if (const YAML::Node* kernel = reader.find("kernel")) {
    const std::string text = io_detail::string_value(*kernel, "kernel", context.file);
    const auto parsed = parse_kernel_class(text);
    if (!parsed)
      throw InputError(io_detail::position_of(*kernel, context.file),
                       unknown_name_message("kernel class", text, kernel_class_names()));
    task.kernel = *parsed;
  }
  if (const YAML::Node* precision = reader.find("precision")) {
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
  if (const YAML::Node* kinds = reader.find("kinds"))
    task.allowed_kinds = read_kinds(*kinds, context.file);
  if (const YAML::Node* costs = reader.find("cost_seconds"))
    task.cost_seconds = read_costs(*costs, context, replicas);
  if (const YAML::Node* after = reader.find("after"))
    read_after(*after, task.name, reader.position_of_field("name"), context, replicas, edges);
  return ReadTask{std::move(task), reader.position_of_field("name")};
}

NodeId read_data_node(const YAML::Node& value, const ParseContext& context) {
  const std::string text = io_detail::string_value(value, "data_node", context.file);
  const SourcePosition where = io_detail::position_of(value, context.file);
  if (const auto it = context.node_ids.find(text); it != context.node_ids.end()) return it->second;
  const bool is_index =
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!is_index) throw InputError(where, unknown_name_message("node", text, context.node_names));
  const std::size_t node_count = context.cluster.node_count();
  const std::int64_t index = io_detail::whole_number_value(
      value, "data_node", 0, static_cast<std::int64_t>(node_count) - 1, context.file);
  return static_cast<NodeId>(index);
}

// Turns named edges into index edges; an unknown name is reported with the closest ones.
std::vector<Edge> resolve_edges(const std::vector<NamedEdge>& named, const Job& job,
                                const std::unordered_map<std::string, std::uint32_t>& task_ids) {
  std::vector<std::string> task_names;
  for (const Task& task : job.tasks) task_names.push_back(task.name);
  const std::string context = fmt::format("job {}", io_detail::quote_for_message(job.name));
  auto resolve = [&](const std::string& name, const SourcePosition& where) {
    const auto it = task_ids.find(name);
    if (it == task_ids.end())
      throw InputError(where, io_detail::unknown_name_in("task", name, task_names, context));
    return it->second;
  };
  std::vector<Edge> edges;
  edges.reserve(named.size());
  for (const NamedEdge& edge : named)
    edges.push_back(Edge{resolve(edge.from, edge.from_position), resolve(edge.to, edge.to_position),
                         edge.bytes});
  return edges;
}

// One `jobs:` entry: the job and how many copies of it to make.
struct JobGroup {
  Job job;
  std::int64_t count = 1;
  SourcePosition name_position;
  std::vector<SourcePosition> task_positions;  // of each task's name
};

JobGroup read_job(const YAML::Node& value, ParseContext& context) {
  const FieldReader reader(value, "job", context.file, kJobFields);
  JobGroup group;
  Job& job = group.job;
  job.name = reader.required_string("name");
  group.name_position = reader.position_of_field("name");
  group.count =
      reader.optional_whole_number("count", 1, context.limits.max_job_replicas).value_or(1);
  charge(context.budget.jobs, group.count, context.limits.max_jobs, "jobs", reader.position());
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
  if (const YAML::Node* data_node = reader.find("data_node"))
    job.data_node = read_data_node(*data_node, context);

  const YAML::Node& tasks = reader.required("tasks");
  const std::size_t task_count = io_detail::list_length(tasks, "tasks", context.file);
  if (task_count == 0)
    throw InputError(io_detail::position_of(tasks, context.file),
                     fmt::format("job {} has no tasks", io_detail::quote_for_message(job.name)));
  std::vector<NamedEdge> named_edges;
  std::unordered_map<std::string, std::uint32_t> task_ids;
  std::vector<SourcePosition> task_positions;
  for (std::size_t i = 0; i < task_count; ++i) {
    const YAML::Node entry = tasks[i];
    charge(context.budget.tasks, group.count, context.limits.max_tasks, "tasks",
           io_detail::position_of(entry, context.file));
    auto [task, name_position] = read_task(entry, context, group.count, named_edges);
    const auto [it, inserted] = task_ids.emplace(task.name, static_cast<std::uint32_t>(i));
    if (!inserted) {
      const SourcePosition& first = task_positions[it->second];
      throw InputError(
          name_position,
          fmt::format("duplicate task name {} in job {} (first at line {}, column {})",
                      io_detail::quote_for_message(task.name),
                      io_detail::quote_for_message(job.name), first.line, first.column));
    }
    task_positions.push_back(name_position);
    job.tasks.push_back(std::move(task));
  }
  group.task_positions = task_positions;

  if (const YAML::Node* edges = reader.find("edges")) {
    const std::size_t length = io_detail::list_length(*edges, "edges", context.file);
    for (std::size_t i = 0; i < length; ++i) {
      const YAML::Node entry = (*edges)[i];
      charge(context.budget.edges, group.count, context.limits.max_edges, "edges",
             io_detail::position_of(entry, context.file));
      const FieldReader edge(entry, "edge", context.file, kEdgeFields);
      NamedEdge named;
      named.from = edge.required_string("from");
      named.to = edge.required_string("to");
      named.from_position = edge.position_of_field("from");
      named.to_position = edge.position_of_field("to");
      named.bytes = edge.optional_number("bytes", NumberRange::non_negative).value_or(0);
      named_edges.push_back(std::move(named));
    }
  }
  job.edges = resolve_edges(named_edges, job, task_ids);
  return group;
}

// Where each job group and its tasks were written, and which group each job came from.
struct WorkloadSources {
  std::vector<SourcePosition> group_names;
  std::vector<std::vector<SourcePosition>> group_tasks;
  std::vector<std::uint32_t> group_of_job;
};

Workload build_workload(const YAML::Node& root, ParseContext& context, WorkloadSources& sources) {
  const FieldReader top(root, "the workload file", context.file, kTopLevelFields);
  (void)top.optional_string("cluster");  // which cluster file: read by load_scheduling_input
  const YAML::Node& jobs = top.required("jobs");
  const std::size_t length = io_detail::list_length(jobs, "jobs", context.file);
  if (length == 0)
    throw InputError(io_detail::position_of(jobs, context.file),
                     "field 'jobs' expects at least one job");

  // Read (and size-check) every job before making any copies.
  std::vector<JobGroup> groups;
  for (std::size_t i = 0; i < length; ++i) groups.push_back(read_job(jobs[i], context));

  std::unordered_map<std::string, SourcePosition> first_use;
  for (const JobGroup& group : groups) {
    for (std::int64_t r = 0; r < group.count; ++r) {
      const std::string name =
          group.count > 1 ? fmt::format("{}-{}", group.job.name, r) : group.job.name;
      const auto [it, inserted] = first_use.emplace(name, group.name_position);
      if (!inserted)
        throw InputError(
            group.name_position,
            fmt::format("duplicate job name {} (first at line {}, column {})",
                        io_detail::quote_for_message(name), it->second.line, it->second.column));
    }
  }

  Workload workload;
  workload.jobs.reserve(static_cast<std::size_t>(context.budget.jobs));
  for (JobGroup& group : groups) {
    sources.group_names.push_back(group.name_position);
    sources.group_tasks.push_back(std::move(group.task_positions));
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

Workload parse_workload(std::string_view text, const std::string& file_name, const Cluster& cluster,
                        const WorkloadFileLimits& limits) {
  Workload workload;
  WorkloadSources sources;
  try {
    const YAML::Node root = io_detail::parse_document(text, file_name, "'jobs'");
    ParseContext context{file_name, cluster, limits, {}, {}, {}};
    for (const Node& node : cluster.nodes()) {
      context.node_ids.emplace(node.name, static_cast<NodeId>(context.node_names.size()));
      context.node_names.push_back(node.name);
    }
    workload = build_workload(root, context, sources);
  } catch (const YAML::Exception& error) {
    throw io_detail::error_from_yaml(error, file_name);
  }
  validate_workload(
      workload, cluster, file_name, [&](std::size_t job, std::optional<std::size_t> task) {
        const std::uint32_t group = sources.group_of_job[job];
        const auto& tasks = sources.group_tasks[group];
        return task && *task < tasks.size() ? tasks[*task] : sources.group_names[group];
      });
  return workload;
}

Workload load_workload_file(const std::string& path, const Cluster& cluster,
                            const WorkloadFileLimits& limits) {
  return parse_workload(read_text_file(path), path, cluster, limits);
}

}  // namespace hetsched
