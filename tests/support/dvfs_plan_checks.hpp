// Shared test check for DVFS plans: every task runs for its P-state's duration on
// its device, after its inputs from its predecessors, the makespan is the latest
// finish, and no two tasks overlap on a device.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>

#include "hetsched/energy/dvfs_slack_reclamation.hpp"

namespace hetsched {

inline void expect_valid_dvfs_plan(const JobEnergyModel& model, const DvfsSchedule& plan) {
  const DagInstance& instance = model.instance();
  double makespan = 0;
  for (std::uint32_t t = 0; t < instance.task_count(); ++t) {
    const PlannedTask& p = plan.schedule.tasks[t];
    EXPECT_NEAR(p.finish_seconds - p.start_seconds, model.seconds(t, p.device, plan.pstates[t]),
                1e-9);
    for (const DagNeighbor& q : instance.predecessors(t)) {
      const PlannedTask& producer = plan.schedule.tasks[q.task];
      EXPECT_GE(p.start_seconds + 1e-9,
                producer.finish_seconds + instance.comm_seconds(q.edge, producer.device, p.device));
    }
    makespan = std::max(makespan, p.finish_seconds);
  }
  EXPECT_NEAR(makespan, plan.schedule.makespan_seconds, 1e-9);
  for (std::uint32_t a = 0; a < instance.task_count(); ++a)
    for (std::uint32_t b = a + 1; b < instance.task_count(); ++b) {
      const PlannedTask &x = plan.schedule.tasks[a], &y = plan.schedule.tasks[b];
      if (x.device != y.device) continue;
      EXPECT_TRUE(x.finish_seconds <= y.start_seconds + 1e-9 ||
                  y.finish_seconds <= x.start_seconds + 1e-9);
    }
}

}  // namespace hetsched
