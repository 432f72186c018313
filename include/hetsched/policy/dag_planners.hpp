// The static DAG planners as plain functions, for tests, benchmarks and planners
// that build on each other (heft-ils starts from HEFT, PEFT and lookahead HEFT).
// Each is defined in its policy's file in src/policy/, which says what it does and
// which paper it follows; each is also registered as a policy by name.
// Each plans within the limits (list_scheduling.hpp): when each device frees up, and how
// transfers between nodes share the network.
#pragma once

#include <memory>
#include <span>
#include <string_view>

#include "hetsched/perf/dag_instance.hpp"
#include "hetsched/policy/list_scheduling.hpp"
#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/policy/static_planner_policy.hpp"

namespace hetsched {

StaticSchedule heft_plan(const DagInstance& instance, const ScheduleLimits& limits);
StaticSchedule cpop_plan(const DagInstance& instance, const ScheduleLimits& limits);
StaticSchedule peft_plan(const DagInstance& instance, const ScheduleLimits& limits);
StaticSchedule lookahead_heft_plan(const DagInstance& instance, const ScheduleLimits& limits);

// heft-ils: the best of HEFT, PEFT and lookahead HEFT, improved by an iterated
// local search (see heft_ils_policy.cpp). options.seed drives its random choices;
// options.iteration_budget bounds the schedules it evaluates (0: a default of
// kDefaultLocalSearchIterations) and options.time_budget_seconds its wall time
// (<= 0: unbounded). Same seed and iteration budget give the same schedule unless
// the time budget runs out first. Never longer than HEFT's schedule.
inline constexpr std::uint64_t kDefaultLocalSearchIterations = 300;
StaticSchedule heft_ils_plan(const DagInstance& instance, const ScheduleLimits& limits,
                             const PolicyOptions& options);

// The independent-task heuristics of Braun et al. 2001, applied to a DAG: the
// immediate-mode rules (OLB, MET, MCT) place tasks one by one as they become
// ready (topological order); the batch-mode rules (min-min, max-min, sufferage)
// choose among all ready tasks at each step. None inserts into idle gaps: a task
// goes after the device's last task, as in the paper's machine-availability model.
enum class IndependentTaskRule { olb, met, mct, min_min, max_min, sufferage };
StaticSchedule independent_task_plan(const DagInstance& instance, const ScheduleLimits& limits,
                                     IndependentTaskRule rule);

}  // namespace hetsched
