// Electricity price and grid carbon intensity over time, and what a run costs in
// money and CO₂. Both series are step functions (a value holds from its start
// time to the next one, the last one forever), as day-ahead prices and grid
// intensity feeds are published per hour. A run's power is a step function too
// (every device's idle power all along, plus each task's power above idle while
// it runs), so cost and carbon are exact integrals of their product.
//
// Deferral (carbon- and price-aware scheduling, as in Google's carbon-intelligent
// computing and Wiesner et al. 2021 "Let's wait awhile"): a deferrable job with a
// deadline may start later, at the start time in [arrival, deadline − duration]
// where its energy costs least; for step functions the best start is one where the
// job's start or end meets a step, so those candidates are enough.
#pragma once

#include <string>
#include <vector>

#include "hetsched/backend/run_report.hpp"
#include "hetsched/cluster/cluster.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

struct StepSeries {
  std::vector<double> start_seconds;  // increasing; the first applies before it too
  std::vector<double> values;
  double at(double seconds) const;
  // ∫ value dt over [from, to].
  double integral(double from, double to) const;
};

struct PriceCarbonSeries {
  StepSeries usd_per_kwh;
  StepSeries kg_co2_per_kwh;
};

// Reads "start_seconds,usd_per_kwh,kg_co2_per_kwh" rows (a header line allowed,
// '#' comments); bad rows are InputError with the line and column.
PriceCarbonSeries parse_price_carbon_csv(const std::string& text, const std::string& file_name);

struct RunFootprint {
  double energy_joules = 0;
  double cost_usd = 0;
  double kg_co2 = 0;
};

// From a recorded simulation report: idle power of every device over [0, makespan]
// plus each task's joules spread evenly over its run.
RunFootprint run_footprint(const RunReport& report, const Cluster& cluster,
                           const PriceCarbonSeries& series);

struct DeferralChoice {
  double start_seconds = 0;
  double cost_usd = 0;
  double kg_co2 = 0;
  double cost_if_now_usd = 0;
  double kg_co2_if_now = 0;
};

// The start in [earliest, latest_start] that minimises price_weight × cost +
// carbon_weight × kg CO₂ for a job drawing `watts` for `duration_seconds`.
DeferralChoice best_deferral(const PriceCarbonSeries& series, double earliest, double latest_start,
                             double duration_seconds, double watts, double price_weight = 1,
                             double carbon_weight = 0);

// The workload with each deferrable job (one with a deadline) moved to its best
// start, given an estimate of its duration and average draw per job.
Workload defer_jobs(const Workload& workload, const std::vector<double>& duration_seconds,
                    const std::vector<double>& watts, const PriceCarbonSeries& series,
                    double price_weight = 1, double carbon_weight = 0);

}  // namespace hetsched
