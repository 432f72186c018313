// Pareto front over (makespan, energy, cost) for one DAG job, by ε-constraint
// sweeps seeded with list schedules.
//
// Seeds: the insertion-EFT list schedule on the whole cluster and on nested device
// subsets (the k fastest, the k most energy-efficient and the k cheapest devices,
// for k = 1, 2, 3, 4, 6, 8, 12, … while all tasks can still run; a subset whose
// list schedule repeats an earlier one is skipped) — using fewer devices trades
// time for rent and idle power. For each seed the makespan bound ε is swept over
// stretches from 0 to +100 %; at each bound the energy is minimised by DVFS slack
// reclamation and by the energy-aware planner (src/energy/). Every schedule found
// is a point; the points no other point dominates (no worse in all three
// objectives, better in one) form the front (Haimes et al.'s ε-constraint method,
// the usual way to trace a front when one objective is cheap to bound).
//
// Cost = rent of the devices the schedule uses (their price per hour × makespan)
// plus electricity (energy × USD per kWh). Picking one schedule: each objective is
// normalised to [0, 1] over the front and the weighted sum is minimised.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "hetsched/energy/job_energy_model.hpp"

namespace hetsched {

struct ParetoPoint {
  double makespan_seconds = 0;
  double energy_joules = 0;
  double cost_usd = 0;
  std::string origin;  // which seed and bound produced it
  DvfsSchedule plan;
};

struct ParetoOptions {
  std::vector<double> price_per_hour;  // per device; empty: no rent
  double electricity_usd_per_kwh = 0.15;
  std::vector<double> stretches{0.0, 0.025, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0};
  double subset_size_growth = 1.5;  // subset sizes 1, then × this (at least +1) each time
};

// True when a is no worse than b in every objective and better in one.
bool dominates(const ParetoPoint& a, const ParetoPoint& b);

// The non-dominated points, sorted by makespan (then energy, cost); duplicates dropped.
std::vector<ParetoPoint> non_dominated(std::vector<ParetoPoint> points);

std::vector<ParetoPoint> pareto_front(const JobEnergyModel& model, const ParetoOptions& options);

// Index of the point with the least weighted sum of normalised objectives
// (weights for makespan, energy, cost). The front must not be empty.
std::size_t pick_by_weights(const std::vector<ParetoPoint>& front,
                            const std::array<double, 3>& weights);

}  // namespace hetsched
