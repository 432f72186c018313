#include "hetsched/energy/pareto_front.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <tuple>

#include "hetsched/energy/dvfs_slack_reclamation.hpp"
#include "hetsched/energy/energy_aware_planner.hpp"
#include "hetsched/energy/energy_remapping.hpp"

namespace hetsched {
namespace {

double cost_of(const JobEnergyModel& model, const DvfsSchedule& plan, double energy_joules,
               const ParetoOptions& options) {
  std::vector<bool> used(model.device_count(), false);
  for (const PlannedTask& t : plan.schedule.tasks) used[t.device] = true;
  double rent = 0;
  for (DeviceId d = 0; d < model.device_count(); ++d)
    if (used[d] && d < options.price_per_hour.size())
      rent += options.price_per_hour[d] * plan.schedule.makespan_seconds / 3600.0;
  return rent + energy_joules / 3.6e6 * options.electricity_usd_per_kwh;
}

bool all_tasks_can_run(const JobEnergyModel& model, const std::vector<bool>& keep) {
  for (std::uint32_t t = 0; t < model.task_count(); ++t) {
    bool any = false;
    for (DeviceId d = 0; d < model.device_count() && !any; ++d)
      any = keep[d] && model.seconds(t, d, 0) != kCannotRun;
    if (!any) return false;
  }
  return true;
}

}  // namespace

bool dominates(const ParetoPoint& a, const ParetoPoint& b) {
  const bool no_worse = a.makespan_seconds <= b.makespan_seconds &&
                        a.energy_joules <= b.energy_joules && a.cost_usd <= b.cost_usd;
  const bool better = a.makespan_seconds < b.makespan_seconds ||
                      a.energy_joules < b.energy_joules || a.cost_usd < b.cost_usd;
  return no_worse && better;
}

std::vector<ParetoPoint> non_dominated(std::vector<ParetoPoint> points) {
  std::stable_sort(points.begin(), points.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    return std::tie(a.makespan_seconds, a.energy_joules, a.cost_usd) <
           std::tie(b.makespan_seconds, b.energy_joules, b.cost_usd);
  });
  std::vector<ParetoPoint> front;
  for (ParetoPoint& p : points) {
    bool keep = true;
    for (const ParetoPoint& q : points)
      if (dominates(q, p)) {
        keep = false;
        break;
      }
    if (keep && !front.empty() && front.back().makespan_seconds == p.makespan_seconds &&
        front.back().energy_joules == p.energy_joules && front.back().cost_usd == p.cost_usd)
      keep = false;  // the same objectives twice
    if (keep) front.push_back(std::move(p));
  }
  return front;
}

std::vector<ParetoPoint> pareto_front(const JobEnergyModel& model, const ParetoOptions& options) {
  const std::size_t devices = model.device_count();
  std::vector<ParetoPoint> points;
  auto add = [&](const DvfsSchedule& plan, const std::string& origin) {
    const ScheduleEnergy e = model.energy(plan);
    points.push_back(ParetoPoint{plan.schedule.makespan_seconds, e.total_joules(),
                                 cost_of(model, plan, e.total_joules(), options), origin, plan});
  };
  // Device rankings for the nested subsets.
  std::vector<double> mean_seconds(devices, 0.0), mean_joules(devices, 0.0);
  for (DeviceId d = 0; d < devices; ++d) {
    std::size_t count = 0;
    for (std::uint32_t t = 0; t < model.task_count(); ++t)
      if (model.seconds(t, d, 0) != kCannotRun) {
        mean_seconds[d] += model.seconds(t, d, 0);
        mean_joules[d] +=
            model.dynamic_joules(t, d, 0) + model.idle_watts(d) * model.seconds(t, d, 0);
        ++count;
      }
    // Devices that run few tasks rank last.
    const double coverage =
        static_cast<double>(count) / std::max<std::size_t>(1, model.task_count());
    mean_seconds[d] = count ? mean_seconds[d] / count / coverage : kCannotRun;
    mean_joules[d] = count ? mean_joules[d] / count / coverage : kCannotRun;
  }
  std::vector<std::pair<std::string, std::vector<DeviceId>>> rankings;
  auto ranking = [&](const std::string& name, auto key) {
    std::vector<DeviceId> order(devices);
    std::iota(order.begin(), order.end(), DeviceId{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](DeviceId a, DeviceId b) { return key(a) < key(b); });
    rankings.emplace_back(name, std::move(order));
  };
  ranking("fastest", [&](DeviceId d) { return mean_seconds[d]; });
  ranking("efficient", [&](DeviceId d) { return mean_joules[d]; });
  if (!options.price_per_hour.empty())
    ranking("cheapest", [&](DeviceId d) {
      return d < options.price_per_hour.size() ? options.price_per_hour[d] : 0.0;
    });
  std::vector<std::pair<std::string, std::vector<bool>>> subsets;
  subsets.emplace_back(fmt::format("all {} devices", devices), std::vector<bool>(devices, true));
  // Subset sizes 1, 2, 3, 4, 6, 8, 12, 16, … (1.5× apart by default): the front's
  // shape, not every size, is what matters, and this keeps large clusters cheap.
  std::vector<std::size_t> sizes;
  for (std::size_t k = 1; k < devices;
       k = std::max(k + 1,
                    static_cast<std::size_t>(static_cast<double>(k) * options.subset_size_growth)))
    sizes.push_back(k);
  for (const auto& [name, order] : rankings)
    for (std::size_t k : sizes) {
      std::vector<bool> keep(devices, false);
      for (std::size_t i = 0; i < k; ++i) keep[order[i]] = true;
      if (!all_tasks_can_run(model, keep)) continue;
      if (std::any_of(subsets.begin(), subsets.end(),
                      [&](const auto& s) { return s.second == keep; }))
        continue;
      subsets.emplace_back(fmt::format("{} {}", k, name), std::move(keep));
    }
  std::vector<std::vector<DeviceId>> seen_seeds;
  for (const auto& [subset_name, keep] : subsets) {
    const JobEnergyModel restricted = model.restricted_to(keep);
    const StaticSchedule seed = insertion_eft_schedule(restricted);
    if (seed.makespan_seconds == kCannotRun) continue;
    // A subset whose list schedule places every task as another one did gives the
    // same points: skip it (a job of one task needs only a few seeds).
    std::vector<DeviceId> placement;
    for (const PlannedTask& t : seed.tasks) placement.push_back(t.device);
    if (std::find(seen_seeds.begin(), seen_seeds.end(), placement) != seen_seeds.end()) continue;
    seen_seeds.push_back(std::move(placement));
    // What re-mapping finds within the seed's own makespan: every deadline below considers it.
    constexpr std::size_t kRemapPasses = 1;
    std::optional<EnergyRemapResult> within_seed_makespan;
    if (seed.makespan_seconds > 0)
      within_seed_makespan =
          minimise_energy_within_bound(restricted, seed, seed.makespan_seconds, kRemapPasses);
    for (double stretch : options.stretches) {
      const SlackReclamationResult r = reclaim_slack(restricted, seed, stretch);
      add(r.plan, fmt::format("eft on {}, dvfs +{:g}%", subset_name, 100 * stretch));
      const EnergyAwarePlan e = plan_energy_aware(
          restricted, seed.makespan_seconds * (1 + stretch), seed,
          EnergyAwareOptions{.consolidate = false,
                             .remap_passes = kRemapPasses,
                             .remap_within_fastest_makespan =
                                 within_seed_makespan ? &*within_seed_makespan : nullptr});
      if (e.deadline_met)
        add(e.plan, fmt::format("energy-aware on {}, deadline +{:g}%", subset_name, 100 * stretch));
    }
  }
  return non_dominated(std::move(points));
}

std::size_t pick_by_weights(const std::vector<ParetoPoint>& front,
                            const std::array<double, 3>& weights) {
  std::array<double, 3> low{kCannotRun, kCannotRun, kCannotRun}, high{0, 0, 0};
  auto values = [](const ParetoPoint& p) {
    return std::array<double, 3>{p.makespan_seconds, p.energy_joules, p.cost_usd};
  };
  for (const ParetoPoint& p : front) {
    const auto v = values(p);
    for (int i = 0; i < 3; ++i) low[i] = std::min(low[i], v[i]), high[i] = std::max(high[i], v[i]);
  }
  std::size_t best = 0;
  double best_score = kCannotRun;
  for (std::size_t i = 0; i < front.size(); ++i) {
    const auto v = values(front[i]);
    double score = 0;
    for (int k = 0; k < 3; ++k)
      if (high[k] > low[k]) score += weights[k] * (v[k] - low[k]) / (high[k] - low[k]);
    if (score < best_score) best_score = score, best = i;
  }
  return best;
}

}  // namespace hetsched
