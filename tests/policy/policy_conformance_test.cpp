// Every registered policy, on the built-in workload and on generated DAGs, must
// give a schedule where every task ran on a device that can run it, no device
// ran two tasks at once, every task started after its inputs could have arrived,
// and the same seed gives the same report byte for byte.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/workload/feasibility.hpp"
#include "hetsched/workload/generators.hpp"

namespace hetsched {
namespace {

struct Case {
  std::string name;
  Workload workload;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"default-mix", default_workload(5)});
  Rng rng(17);
  Workload dags;
  dags.jobs.push_back(workflow_job({"wf-a", 60, 8, 0.0}, rng));
  dags.jobs.push_back(workflow_job({"wf-b", 30, 3, 2.0}, rng));
  dags.jobs.push_back(stencil_job({"st", 6, 5, 1e8, 1.0}, rng));
  out.push_back({"dags", std::move(dags)});
  return out;
}

void check_invariants(const RunReport& r, const Cluster& cluster, const TaskGraph& graph,
                      const PerfModel& perf) {
  ASSERT_EQ(r.tasks_completed, graph.task_count()) << "unfinished tasks";
  ASSERT_EQ(r.schedule.size(), graph.task_count());
  std::vector<const TaskRecord*> by_task(graph.task_count(), nullptr);
  for (const TaskRecord& t : r.schedule) {
    ASSERT_EQ(by_task[t.task], nullptr) << "task ran twice";
    by_task[t.task] = &t;
    EXPECT_TRUE(can_run(graph.task(t.task), cluster.device(t.device)));
    EXPECT_GE(t.start_seconds, graph.job(graph.job_of(t.task)).arrival_seconds);
  }
  for (TaskIndex t = 0; t < graph.task_count(); ++t)
    for (const Dependency& p : graph.predecessors(t)) {
      const TaskRecord &producer = *by_task[p.task], &consumer = *by_task[t];
      EXPECT_GE(consumer.start_seconds + 1e-9,
                producer.finish_seconds +
                    perf.transfer_seconds(p.bytes, producer.device, consumer.device))
          << graph.task(p.task).name << " -> " << graph.task(t).name;
    }
  std::map<DeviceId, std::vector<std::pair<double, double>>> busy;
  for (const TaskRecord& t : r.schedule)
    busy[t.device].emplace_back(t.start_seconds, t.finish_seconds);
  for (auto& [device, intervals] : busy) {
    std::sort(intervals.begin(), intervals.end());
    for (std::size_t i = 1; i < intervals.size(); ++i)
      EXPECT_LE(intervals[i - 1].second, intervals[i].first) << "overlap on device " << device;
  }
}

// One test per registered policy, so a failure names the policy and ctest runs them in
// parallel.
class RegisteredPolicy : public testing::TestWithParam<std::string> {};

TEST_P(RegisteredPolicy, KeepsTheInvariantsAndRepeatsExactly) {
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  for (const Case& c : cases()) {
    SCOPED_TRACE(GetParam() + " on " + c.name);
    std::string first_json;
    for (int run = 0; run < 2; ++run) {
      auto policy = make_policy(GetParam(), PolicyOptions{9});
      Simulator sim(cluster, c.workload, perf, *policy, SimulationOptions{.seed = 9});
      const RunReport r = sim.run();
      if (run == 0) check_invariants(r, cluster, sim.graph(), perf);
      const std::string json = report_to_json(r, cluster, sim.graph()).dump();
      if (run == 0)
        first_json = json;
      else
        EXPECT_EQ(json, first_json) << "not deterministic";
    }
  }
}

// Test names may hold only letters, digits and underscores.
std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Conformance, RegisteredPolicy, testing::ValuesIn(policy_names()),
                         test_name);

TEST(PolicyConformance, HeterogeneityAwarenessPaysOnTheDefaultMix) {
  const Cluster cluster = default_cluster();
  const RooflineModel perf(cluster);
  const Workload workload = default_workload(1);
  const auto makespan = [&](const char* name) {
    auto policy = make_policy(name, PolicyOptions{1});
    Simulator sim(cluster, workload, perf, *policy,
                  SimulationOptions{.seed = 1, .record_schedule = false});
    return sim.run().makespan_seconds;
  };
  EXPECT_LT(makespan("greedy-eft") * 2, makespan("round-robin"));
}

TEST(PolicyRegistry, UnknownNameSuggestsTheClosest) {
  try {
    make_policy("gredy-eft", {});
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("closest: greedy-eft"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hetsched
