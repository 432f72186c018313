// Reader for cost-matrix files (format in include/hetsched/io/cost_matrix_file.hpp): the
// document is read by InputDocument and its maps by FieldReader, so every error names
// file:line:column and, for a wrong name, the closest valid ones.
#include "hetsched/io/cost_matrix_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "document_readers.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "yaml_fields.hpp"

namespace hetsched {
namespace {

using io_detail::FieldReader;
using io_detail::InputNode;
using io_detail::NumberRange;

// A non-empty list's length; `expected` says what the list holds.
std::size_t matrix_list_length(const FieldReader& top, std::string_view field,
                               std::string_view expected) {
  const InputNode& list = top.required(field);
  if (!list.is_sequence() || list.size() == 0)
    throw InputError(top.position_of_field(field),
                     fmt::format("field '{}' expects a non-empty list of {}, got {}", field,
                                 expected, io_detail::describe_value(list)));
  return list.size();
}

std::vector<std::string> read_matrix_devices(const FieldReader& top) {
  const std::size_t count = matrix_list_length(top, "devices", "device names");
  const InputNode& devices = top.required("devices");
  std::vector<std::string> names;
  for (std::size_t i = 0; i < count; ++i) {
    std::string name = io_detail::string_value(devices[i], "devices", top.file());
    if (std::find(names.begin(), names.end(), name) != names.end())
      throw InputError(io_detail::position_of(devices[i], top.file()),
                       fmt::format("duplicate device '{}'", name));
    names.push_back(std::move(name));
  }
  return names;
}

// tasks: [{name, costs: [one per device; null where the task cannot run]}].
void read_matrix_tasks(const FieldReader& top, CostMatrix& m,
                       std::map<std::string, std::uint32_t>& index) {
  const std::size_t count = matrix_list_length(top, "tasks", "{name, costs}");
  const InputNode& tasks = top.required("tasks");
  for (std::size_t t = 0; t < count; ++t) {
    const FieldReader task(tasks[t], "task", top.file(), {"name", "costs"});
    std::string name = task.required_string("name");
    if (!index.emplace(name, static_cast<std::uint32_t>(m.task_names.size())).second)
      throw InputError(task.position(), fmt::format("duplicate task '{}'", name));
    const InputNode& costs = task.required("costs");
    if (!costs.is_sequence() || costs.size() != m.device_names.size())
      throw InputError(
          task.position_of_field("costs"),
          fmt::format("task '{}' needs {} costs, one per device", name, m.device_names.size()));
    std::vector<double> row;
    for (std::size_t d = 0; d < costs.size(); ++d) {
      if (costs[d].is_null()) {
        row.push_back(kCannotRun);
        continue;
      }
      const double cost = io_detail::number_value(costs[d], "costs", NumberRange::any, top.file());
      if (cost < 0)
        throw InputError(io_detail::position_of(costs[d], top.file()),
                         fmt::format("the cost of task '{}' on device '{}' must be a finite "
                                     "non-negative number, got {}",
                                     name, m.device_names[d], io_detail::describe_value(costs[d])));
      row.push_back(cost);
    }
    if (std::all_of(row.begin(), row.end(), [](double c) { return c == kCannotRun; }))
      throw InputError(task.position_of_field("costs"),
                       fmt::format("task '{}' can run on no device", name));
    m.task_names.push_back(std::move(name));
    m.compute_seconds.push_back(std::move(row));
  }
}

std::uint32_t matrix_task_of(const FieldReader& edge, std::string_view field,
                             const std::map<std::string, std::uint32_t>& index,
                             const CostMatrix& m) {
  const std::string name = edge.required_string(field);
  const auto it = index.find(name);
  if (it == index.end())
    throw InputError(edge.position_of_field(field),
                     unknown_name_message("task", name, m.task_names));
  return it->second;
}

// edges: [{from, to, cost}]; returns where each edge is, for the message about a cycle.
std::vector<SourcePosition> read_matrix_edges(const InputNode& edges, const std::string& file,
                                              const std::map<std::string, std::uint32_t>& index,
                                              CostMatrix& m) {
  const std::size_t count = io_detail::list_length(edges, "edges", file);
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  std::vector<SourcePosition> where;
  for (std::size_t i = 0; i < count; ++i) {
    const FieldReader edge(edges[i], "edge", file, {"from", "to", "cost"});
    const std::uint32_t from = matrix_task_of(edge, "from", index, m);
    const std::uint32_t to = matrix_task_of(edge, "to", index, m);
    if (from == to)
      throw InputError(edge.position(),
                       fmt::format("edge from task '{}' to itself", m.task_names[from]));
    if (!seen.emplace(from, to).second)
      throw InputError(edge.position(), fmt::format("duplicate edge {} -> {}", m.task_names[from],
                                                    m.task_names[to]));
    const double cost = edge.optional_number("cost", NumberRange::non_negative).value_or(0.0);
    m.edges.push_back(DagEdge{from, to, cost});
    where.push_back(edge.position());
  }
  return where;
}

void reject_matrix_cycles(const CostMatrix& m, const std::vector<SourcePosition>& edge_positions,
                          const std::string& file) {
  const DagInstance instance(m.compute_seconds, m.edges);
  if (instance.topological_order().size() == m.task_names.size()) return;
  std::vector<char> ordered(m.task_names.size(), 0);
  for (std::uint32_t t : instance.topological_order()) ordered[t] = 1;
  for (std::size_t e = 0; e < m.edges.size(); ++e)
    if (!ordered[m.edges[e].from] && !ordered[m.edges[e].to])
      throw InputError(edge_positions[e],
                       fmt::format("the edges form a cycle through {} -> {}",
                                   m.task_names[m.edges[e].from], m.task_names[m.edges[e].to]));
  throw InputError(SourcePosition{file}, "the edges form a cycle");
}

}  // namespace

CostMatrix parse_cost_matrix(const std::string& text, const std::string& file) {
  return io_detail::read_cost_matrix(io_detail::parse_document(
      text, file, "'devices', 'tasks' and optionally 'name' and 'edges'", room_after(text)));
}

CostMatrix io_detail::read_cost_matrix(const InputDocument& document) {
  const std::string& file = document.file();
  const FieldReader top(document.root(), "the cost matrix", file,
                        {"name", "devices", "tasks", "edges"});
  CostMatrix m;
  if (const InputNode* name = top.find("name"))
    m.name = io_detail::string_value(*name, "name", file, /*allow_empty=*/true);
  m.device_names = read_matrix_devices(top);
  std::map<std::string, std::uint32_t> index;
  read_matrix_tasks(top, m, index);
  std::vector<SourcePosition> edge_positions;
  if (const InputNode* edges = top.find("edges"))
    edge_positions = read_matrix_edges(*edges, file, index, m);
  reject_matrix_cycles(m, edge_positions, file);
  return m;
}

CostMatrix load_cost_matrix_file(const std::string& path) {
  return parse_cost_matrix(read_text_file(path, "cost-matrix file"), path);
}

DagInstance cost_matrix_instance(const CostMatrix& matrix) {
  return DagInstance(matrix.compute_seconds, matrix.edges);
}

Job cost_matrix_job(const CostMatrix& matrix) {
  Job job;
  job.name = matrix.name.empty() ? "cost-matrix" : matrix.name;
  job.family = "cost-matrix";
  for (std::size_t t = 0; t < matrix.task_names.size(); ++t) {
    Task task;
    task.name = matrix.task_names[t];
    task.cost_seconds = matrix.compute_seconds[t];
    job.tasks.push_back(std::move(task));
  }
  for (const DagEdge& e : matrix.edges) job.edges.push_back(Edge{e.from, e.to, e.bytes});
  return job;
}

Cluster cost_matrix_cluster(const CostMatrix& matrix) {
  const DeviceSpec* part = find_catalog_part("EPYC-9654");
  std::vector<DeviceSpec> devices;
  for (const std::string& name : matrix.device_names) {
    DeviceSpec spec = *part;
    spec.model = name;
    devices.push_back(std::move(spec));
  }
  Node node;
  node.name = matrix.name.empty() ? "matrix" : matrix.name;
  node.link = IntraNodeLink{"uniform", 1.0, 0.0};
  Cluster cluster;
  cluster.add_node(std::move(node), devices);
  return cluster;
}

}  // namespace hetsched
