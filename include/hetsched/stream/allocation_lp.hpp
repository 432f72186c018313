// Heterogeneity-aware allocation (Gavel, Narayanan et al., OSDI 2020): the fraction
// of time x[j][k] each job j should spend on device type k, found by a linear
// program solved with GLPK. Constraints: x >= 0, sum_k x[j][k] <= 1 for each job,
// sum_j gang[j] * x[j][k] <= devices of type k. Objectives:
//   max-min fairness   maximise min_j weight_j * throughput_j(x) (Gavel's normalised
//                      throughput: job j's throughput over its throughput under an
//                      equal time share of the cluster, times gang/priority weight);
//   min makespan       maximise min_j throughput_j(x) / remaining_steps_j;
//   max throughput     maximise sum_j throughput_j(x) / best rate of j;
//   min cost with SLOs maximise progress per dollar subject to each job with a
//                      deadline keeping the rate that meets it;
//   priority throughput maximise sum_j weight_j * gang_j * throughput_j(x) / best
//                      rate of j: each device goes where weight times normalised
//                      throughput is highest, so heavier jobs are served first and
//                      a lighter job takes a faster type only when it gains more
//                      there (used by aware-las-priority with attained-service weights).
// The first three add epsilon * (total normalised throughput) so that capacity left
// over once the minimum is met is not wasted. When the LP is infeasible (SLOs that
// cannot all be met) or GLPK fails, the safe fallback is the equal time share, and
// `note` says so.
#pragma once

#include <string>
#include <vector>

namespace hetsched {

enum class AllocationObjective {
  max_min_fairness,
  min_makespan,
  max_throughput,
  min_cost,
  priority_throughput
};

struct AllocationJob {
  std::vector<double> rate;  // steps/s per device type; 0 = cannot run there
  int gang_size = 1;
  double priority_weight = 1;
  double remaining_steps = 1;
  double required_rate = 0;  // min cost: steps/s needed to meet the deadline (0 = none)
  double multiplicity = 1;   // identical jobs folded into one row
  // With AllocationProblem::serve_folded_in_order: within a folded group, jobs with
  // smaller keys get the group's time first.
  double order_key = 0;
};

struct AllocationProblem {
  std::vector<AllocationJob> jobs;
  std::vector<double> capacity;  // devices per type
  std::vector<double> price_per_hour;
  // Foldable objectives: give a folded group's time to its members one after
  // another by increasing order_key (each up to a whole job's time, fastest type
  // first) instead of equally. Same group totals, so the same objective value.
  bool serve_folded_in_order = false;
};

struct AllocationResult {
  std::vector<std::vector<double>> fraction;  // [job][type]
  bool fell_back = false;
  std::string note;  // why the fallback was used
  // Optional, per job: the weight its normalised throughput carries in the policy's
  // objective (space sharing weighs a guest's gain against its host's loss with it).
  // Empty: every job weighs 1.
  std::vector<double> job_weight;
};

// Equal time share, heterogeneity-agnostic (Gavel's "isolated"/LAS): max-min of
// gang * total time / weight by water-filling, each job's time split over the types
// in proportion to their capacity. Always feasible.
AllocationResult equal_share_allocation(const AllocationProblem& problem);

AllocationResult solve_allocation(const AllocationProblem& problem, AllocationObjective objective);

}  // namespace hetsched
