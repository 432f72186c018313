#include "hetsched/io/cost_matrix_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "yaml_cpp_error.hpp"

namespace hetsched {
namespace {

class MatrixReader {
 public:
  MatrixReader(const std::string& text, const std::string& file) : text_(text), file_(file) {}

  CostMatrix read() {
    YAML::Node root;
    try {
      root = YAML::Load(text_);
    } catch (const YAML::ParserException& e) {
      throw InputError(at(e.mark),
                       fmt::format("malformed YAML: {}", io_detail::yaml_cpp_error_message(e)));
    }
    if (!root.IsMap())
      throw InputError(SourcePosition{file_},
                       "a cost matrix must be a map with 'devices', "
                       "'tasks' and optionally 'name' and 'edges'");
    CostMatrix m;
    if (root["name"]) m.name = scalar(root["name"], "'name'");
    for (const auto& entry : root) {
      // YAML allows a list or a map as a key; it names nothing here.
      if (!entry.first.IsScalar() && !entry.first.IsNull())
        throw InputError(at(entry.first.Mark()), "a key must be a name, not a list or a map");
      const std::string key = entry.first.as<std::string>();
      if (key != "name" && key != "devices" && key != "tasks" && key != "edges")
        throw InputError(at(entry.first.Mark()),
                         unknown_name_message("key", key, {"name", "devices", "tasks", "edges"}));
    }
    const YAML::Node devices = required(root, "devices", "a list of device names");
    if (!devices.IsSequence() || devices.size() == 0)
      throw InputError(at(devices.Mark()), "'devices' must be a non-empty list of names");
    for (const YAML::Node& d : devices) {
      const std::string name = scalar(d, "a device name");
      if (std::find(m.device_names.begin(), m.device_names.end(), name) != m.device_names.end())
        throw InputError(at(d.Mark()), fmt::format("duplicate device '{}'", name));
      m.device_names.push_back(name);
    }
    const YAML::Node tasks = required(root, "tasks", "a list of {name, costs}");
    if (!tasks.IsSequence() || tasks.size() == 0)
      throw InputError(at(tasks.Mark()), "'tasks' must be a non-empty list of {name, costs}");
    std::map<std::string, std::uint32_t> index;
    for (const YAML::Node& t : tasks) {
      if (!t.IsMap()) throw InputError(at(t.Mark()), "a task must be a map {name, costs}");
      const std::string name = scalar(required(t, "name", "the task's name"), "a task name");
      if (!index.emplace(name, static_cast<std::uint32_t>(m.task_names.size())).second)
        throw InputError(at(t.Mark()), fmt::format("duplicate task '{}'", name));
      const YAML::Node costs = required(t, "costs", "one cost per device");
      if (!costs.IsSequence() || costs.size() != m.device_names.size())
        throw InputError(at(costs.Mark()), fmt::format("task '{}' needs {} costs, one per device",
                                                       name, m.device_names.size()));
      std::vector<double> row;
      for (const YAML::Node& c : costs)
        row.push_back(c.IsNull() ? kCannotRun
                                 : non_negative(c, fmt::format("cost of task '{}'", name)));
      if (std::all_of(row.begin(), row.end(), [](double c) { return c == kCannotRun; }))
        throw InputError(at(costs.Mark()), fmt::format("task '{}' can run on no device", name));
      m.task_names.push_back(name);
      m.compute_seconds.push_back(std::move(row));
    }
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
    if (const YAML::Node edges = root["edges"]) {
      if (!edges.IsSequence())
        throw InputError(at(edges.Mark()), "'edges' must be a list of {from, to, cost}");
      for (const YAML::Node& e : edges) {
        if (!e.IsMap()) throw InputError(at(e.Mark()), "an edge must be a map {from, to, cost}");
        const std::uint32_t from = task_of(required(e, "from", "a task name"), index, m);
        const std::uint32_t to = task_of(required(e, "to", "a task name"), index, m);
        if (from == to)
          throw InputError(at(e.Mark()),
                           fmt::format("edge from task '{}' to itself", m.task_names[from]));
        if (!seen.emplace(from, to).second)
          throw InputError(at(e.Mark()), fmt::format("duplicate edge {} -> {}", m.task_names[from],
                                                     m.task_names[to]));
        const double cost =
            e["cost"] ? non_negative(e["cost"], fmt::format("cost of edge {} -> {}",
                                                            m.task_names[from], m.task_names[to]))
                      : 0.0;
        m.edges.push_back(DagEdge{from, to, cost});
        edge_marks_.push_back(e.Mark());
      }
    }
    reject_cycles(m);
    return m;
  }

 private:
  SourcePosition at(const YAML::Mark& mark) const {
    if (mark.line < 0) return SourcePosition{file_};
    return SourcePosition{file_, mark.line + 1, mark.column + 1};
  }
  YAML::Node required(const YAML::Node& map, const char* key, const char* expected) const {
    const YAML::Node value = map[key];
    if (!value) throw InputError(at(map.Mark()), fmt::format("missing '{}' ({})", key, expected));
    return value;
  }
  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar())
      throw InputError(at(node.Mark()), fmt::format("{} must be a scalar", what));
    return node.Scalar();
  }
  double non_negative(const YAML::Node& node, const std::string& what) const {
    double value = 0;
    try {
      value = node.as<double>();
    } catch (const YAML::Exception&) {
      throw InputError(at(node.Mark()),
                       fmt::format("{} must be a number, not '{}'", what,
                                   node.IsScalar() ? node.Scalar() : std::string("a collection")));
    }
    if (!std::isfinite(value) || value < 0)
      throw InputError(at(node.Mark()),
                       fmt::format("{} must be a finite non-negative number, not {}", what, value));
    return value;
  }
  std::uint32_t task_of(const YAML::Node& node, const std::map<std::string, std::uint32_t>& index,
                        const CostMatrix& m) const {
    const std::string name = scalar(node, "a task name");
    const auto it = index.find(name);
    if (it == index.end())
      throw InputError(at(node.Mark()), unknown_name_message("task", name, m.task_names));
    return it->second;
  }
  void reject_cycles(const CostMatrix& m) const {
    const DagInstance instance(m.compute_seconds, m.edges);
    if (instance.topological_order().size() == m.task_names.size()) return;
    std::vector<char> ordered(m.task_names.size(), 0);
    for (std::uint32_t t : instance.topological_order()) ordered[t] = 1;
    for (std::size_t e = 0; e < m.edges.size(); ++e)
      if (!ordered[m.edges[e].from] && !ordered[m.edges[e].to])
        throw InputError(at(edge_marks_[e]),
                         fmt::format("the edges form a cycle through {} -> {}",
                                     m.task_names[m.edges[e].from], m.task_names[m.edges[e].to]));
    throw InputError(SourcePosition{file_}, "the edges form a cycle");
  }

  const std::string& text_;
  const std::string& file_;
  std::vector<YAML::Mark> edge_marks_;
};

}  // namespace

CostMatrix parse_cost_matrix(const std::string& text, const std::string& file) {
  return MatrixReader(text, file).read();
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
