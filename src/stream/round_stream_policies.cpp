// The round-mode stream policies. `srtf` gives whole rounds to the jobs with the
// shortest remaining time at their best device type (preemptive SRTF). `las` is
// Gavel's heterogeneity-agnostic least-attained-service baseline: max-min fairness
// of device time, every job an equal (weighted, gang-scaled) time share spread over
// the types in proportion to their size. The `aware-*` policies solve Gavel's
// heterogeneity-aware LPs (allocation_lp.hpp): `aware-las` is max-min fairness of
// normalised throughput, then min makespan, max throughput and min cost with SLOs.
#include <algorithm>
#include <numeric>

#include "hetsched/stream/stream_policy.hpp"

namespace hetsched {
namespace {

class RoundPolicy : public StreamPolicy {
 public:
  StreamPolicyMode mode() const override { return StreamPolicyMode::round; }
};

AllocationProblem make_problem(const std::vector<StreamJobView>& jobs,
                               const StreamPolicyContext& context) {
  AllocationProblem problem;
  problem.capacity = context.capacity;
  problem.price_per_hour = context.price_per_hour;
  problem.jobs.reserve(jobs.size());
  for (const StreamJobView& view : jobs) {
    double required_rate = 0;
    if (view.deadline_seconds > context.now)
      required_rate = view.remaining_steps / (view.deadline_seconds - context.now);
    problem.jobs.push_back(AllocationJob{*view.rate, view.gang_size, view.priority_weight,
                                         view.remaining_steps, required_rate, 1.0});
  }
  return problem;
}

class ShortestRemainingTimePolicy final : public RoundPolicy {
 public:
  bool reallocate_every_round() const override { return true; }
  AllocationResult allocate(const std::vector<StreamJobView>& jobs,
                            const StreamPolicyContext& context) override {
    const std::size_t type_count = context.capacity.size();
    AllocationResult result;
    result.fraction.assign(jobs.size(), std::vector<double>(type_count, 0.0));
    std::vector<double> remaining_time(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const double best = *std::max_element(jobs[j].rate->begin(), jobs[j].rate->end());
      remaining_time[j] = best > 0 ? jobs[j].remaining_steps / best : 1e300;
    }
    std::vector<std::size_t> order(jobs.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return remaining_time[a] < remaining_time[b];
    });
    std::vector<double> free = context.capacity;
    for (std::size_t j : order) {
      // Its fastest type that still has room for the gang.
      int chosen = -1;
      for (std::size_t k = 0; k < type_count; ++k)
        if ((*jobs[j].rate)[k] > 0 && free[k] >= jobs[j].gang_size &&
            (chosen < 0 || (*jobs[j].rate)[k] > (*jobs[j].rate)[chosen]))
          chosen = static_cast<int>(k);
      if (chosen < 0) continue;
      free[chosen] -= jobs[j].gang_size;
      result.fraction[j][chosen] = 1.0;
    }
    return result;
  }
};

class LeastAttainedServicePolicy final : public RoundPolicy {
  // The base class's allocate() is the equal time share.
};

class AwarePolicy final : public RoundPolicy {
 public:
  AwarePolicy(AllocationObjective objective, bool every_round)
      : objective_(objective), every_round_(every_round) {}
  bool reallocate_every_round() const override { return every_round_; }
  AllocationResult allocate(const std::vector<StreamJobView>& jobs,
                            const StreamPolicyContext& context) override {
    return solve_allocation(make_problem(jobs, context), objective_);
  }

 private:
  AllocationObjective objective_;
  bool every_round_;
};

}  // namespace

std::unique_ptr<StreamPolicy> make_srtf_stream_policy() {
  return std::make_unique<ShortestRemainingTimePolicy>();
}
std::unique_ptr<StreamPolicy> make_las_stream_policy() {
  return std::make_unique<LeastAttainedServicePolicy>();
}
std::unique_ptr<StreamPolicy> make_aware_las_stream_policy() {
  return std::make_unique<AwarePolicy>(AllocationObjective::max_min_fairness, false);
}
std::unique_ptr<StreamPolicy> make_aware_min_makespan_stream_policy() {
  return std::make_unique<AwarePolicy>(AllocationObjective::min_makespan, false);
}
std::unique_ptr<StreamPolicy> make_aware_max_throughput_stream_policy() {
  return std::make_unique<AwarePolicy>(AllocationObjective::max_throughput, false);
}
std::unique_ptr<StreamPolicy> make_aware_min_cost_stream_policy() {
  return std::make_unique<AwarePolicy>(AllocationObjective::min_cost, false);
}

}  // namespace hetsched
