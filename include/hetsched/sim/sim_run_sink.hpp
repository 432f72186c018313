// SimRunSink: where a benchmark that compares policies hands over each compared policy's
// full run on the benchmark's first case, so that its caller can draw them side by side
// (`hetsched bench … --out DIR` writes report.html from them). The run is recorded with
// its schedule; `label` names the policy or variant (ReportFolder makes file names of it).
#pragma once

#include <functional>
#include <string>

#include "hetsched/backend/run_report.hpp"
#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

using SimRunSink = std::function<void(const std::string& label, const RunReport& report,
                                      const Cluster& cluster, const TaskGraph& graph)>;

}  // namespace hetsched
