// The simulator's power cap and thermal model: the cap holds at every instant of
// the run (tasks slow down or wait), a cap below idle power is refused as bad
// input, a task that cannot fit the cap is reported rather than run over it, and
// a device throttles above its thermal limit and not below — visibly in the report.
#include <gtest/gtest.h>

#include <map>

#include "../support/energy_fixtures.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {
namespace {

Cluster two_gpus() {
  Cluster cluster;
  Node node;
  node.name = "n0";
  cluster.add_node(node, {test_gpu_with_four_pstates(), test_gpu_with_four_pstates()});
  return cluster;
}

// Cluster draw at every task start, from the recorded schedule.
double peak_draw(const RunReport& r, const Cluster& cluster) {
  double idle = 0, peak = 0;
  for (const Device& d : cluster.devices()) idle += d.spec.idle_watts;
  for (const TaskRecord& at : r.schedule) {
    double draw = idle;
    for (const TaskRecord& t : r.schedule)
      if (t.start_seconds <= at.start_seconds && at.start_seconds < t.finish_seconds)
        draw += t.joules / (t.finish_seconds - t.start_seconds) -
                cluster.device(t.device).spec.idle_watts;
    peak = std::max(peak, draw);
  }
  return peak;
}

TEST(PowerCap, HeldAtEveryInstantByWaitingOrSlowingDown) {
  const Cluster cluster = two_gpus();
  const RooflineModel perf(cluster);
  const Workload w = independent_matmuls(6, 7.5e13);  // 10 s each at full speed
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  const RunReport free = Simulator(cluster, w, perf, *policy).run();
  EXPECT_GT(peak_draw(free, cluster), 600);  // two tasks at 335 W each + idle
  for (double cap : {600.0, 400.0}) {
    SCOPED_TRACE(cap);
    auto p = make_policy("greedy-eft", PolicyOptions{});
    SimulationOptions options;
    options.power_cap_watts = cap;
    const RunReport r = Simulator(cluster, w, perf, *p, options).run();
    EXPECT_EQ(r.tasks_completed, 6u);
    EXPECT_LE(peak_draw(r, cluster), cap + 1e-9);
    EXPECT_LE(r.peak_power_watts, cap + 1e-9);
    EXPECT_GT(r.power_cap_slowdowns + r.power_cap_waits, 0u);
    EXPECT_GT(r.makespan_seconds, free.makespan_seconds);
    const auto json = report_to_json(r, cluster, TaskGraph(w));
    EXPECT_TRUE(json.contains("power_and_thermal"));
  }
  EXPECT_FALSE(report_to_json(free, cluster, TaskGraph(w)).contains("power_and_thermal"));
}

TEST(PowerCap, BelowIdlePowerIsBadInput) {
  const Cluster cluster = two_gpus();
  const RooflineModel perf(cluster);
  const Workload w = independent_matmuls(1, 1e12);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  SimulationOptions options;
  options.power_cap_watts = 80;  // two devices idle at 50 W each
  try {
    Simulator sim(cluster, w, perf, *policy, options);
    FAIL() << "accepted a cap below idle power";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("below the idle power"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("100 W"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(check_power_cap(cluster, 100));
}

TEST(PowerCap, TaskThatCannotFitIsReportedNotRunOverTheCap) {
  const Cluster cluster = two_gpus();
  const RooflineModel perf(cluster);
  const Workload w = independent_matmuls(2, 1e12);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  SimulationOptions options;
  options.power_cap_watts = 150;  // 50 W above idle; the slowest P-state needs ~105 W
  const RunReport r = Simulator(cluster, w, perf, *policy, options).run();
  EXPECT_EQ(r.tasks_completed, 0u);
  EXPECT_EQ(r.unfinished_tasks.size(), 2u);
  ASSERT_EQ(r.power_cap_refusals.size(), 2u);
  EXPECT_NE(r.power_cap_refusals[0].find("power cap leaves 50 W"), std::string::npos)
      << r.power_cap_refusals[0];
}

RunReport run_hot(double limit_celsius, const Cluster& cluster, const Workload& w) {
  const RooflineModel perf(cluster);
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  SimulationOptions options;
  options.thermal.enabled = true;
  options.thermal.limit_celsius = limit_celsius;
  options.thermal.steady_celsius_at_peak = 95;  // 0.2 K/W: 335 W settles at 92 °C
  options.thermal.time_constant_seconds = 30;
  return Simulator(cluster, w, perf, *policy, options).run();
}

TEST(ThermalModel, ThrottlesAboveTheLimitAndNotBelow) {
  Cluster cluster;
  cluster.add_node(Node{}, {test_gpu_with_four_pstates()});
  const Workload w = independent_matmuls(1, 1.5e15);  // 200 s at full speed
  const RunReport cool = run_hot(95, cluster, w);     // above the 92 °C it would settle at
  EXPECT_EQ(cool.thermal_throttle_events, 0u);
  EXPECT_NEAR(cool.makespan_seconds, 200, 1e-6);
  EXPECT_GT(cool.devices[0].peak_celsius, 85);
  EXPECT_LT(cool.devices[0].peak_celsius, 92);

  const RunReport hot = run_hot(83, cluster, w);
  EXPECT_GT(hot.thermal_throttle_events, 0u);
  EXPECT_EQ(hot.devices[0].throttle_events, hot.thermal_throttle_events);
  EXPECT_GT(hot.makespan_seconds, 200);  // the rest of the work ran slower
  EXPECT_GE(hot.devices[0].peak_celsius, 83 - 1e-9);
  EXPECT_LT(hot.devices[0].peak_celsius, 83 + 1e-6);  // one step down settles below the limit
  EXPECT_LT(hot.energy_joules, cool.energy_joules);
  ASSERT_EQ(hot.schedule.size(), 1u);
  const auto json = report_to_json(hot, cluster, TaskGraph(w));
  ASSERT_TRUE(json.contains("power_and_thermal"));
  EXPECT_EQ(json["power_and_thermal"]["thermal_throttle_events"], hot.thermal_throttle_events);
}

}  // namespace
}  // namespace hetsched
