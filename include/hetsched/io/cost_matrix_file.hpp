// Cost-matrix files: a DAG-scheduling instance given exactly as papers publish it —
// each task's compute cost on each device and each edge's communication cost
// between two different devices (0 on the same device). YAML (or JSON, which YAML
// reads too):
//
//   name: topcuoglu-2002
//   devices: [P1, P2, P3]
//   tasks:
//     - {name: T1, costs: [14, 16, 9]}      # one cost per device; null: cannot run there
//   edges:
//     - {from: T1, to: T2, cost: 18}
//
// It loads into a DagInstance for the planners and the exact solver, and into a Job
// with explicit per-device costs plus a one-node Cluster whose link moves 1 byte per
// second with no latency (edge bytes = cost), so the simulator runs it unchanged.
#pragma once

#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched {

struct CostMatrix {
  std::string name;
  std::vector<std::string> device_names;
  std::vector<std::string> task_names;
  std::vector<std::vector<double>> compute_seconds;  // [task][device]; kCannotRun where it can't
  std::vector<DagEdge> edges;  // bytes holds the communication cost in seconds
};

// Reads and checks a file; throws InputError with line and column on bad input
// (unknown task names with the closest valid ones, wrong row lengths, negative
// costs, duplicate names or edges, cycles).
CostMatrix load_cost_matrix_file(const std::string& path);
CostMatrix parse_cost_matrix(const std::string& text, const std::string& file);

DagInstance cost_matrix_instance(const CostMatrix& matrix);
// One job whose tasks carry the matrix rows as explicit costs (device i of the
// cluster below is column i) and whose edges carry the costs as bytes.
Job cost_matrix_job(const CostMatrix& matrix);
// One node holding one device per column (an EPYC-9654 socket's figures for energy,
// named after the column), joined by a 1 B/s, zero-latency, contention-free link.
Cluster cost_matrix_cluster(const CostMatrix& matrix);

}  // namespace hetsched
