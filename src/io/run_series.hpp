// A run's figures over time, for the report's charts: the busy fraction of each device kind,
// the ready tasks waiting for a device, the cluster's power draw and each device's
// temperature. Each is a step function (a value holds from its time to the next one), read
// from the run's recorded timeline; a run with more changes than a chart can show is
// resampled to time-weighted averages over equal intervals, so a report's size does not grow
// with the number of tasks.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include "hetsched/backend/run_report.hpp"

namespace hetsched {

struct StepSeries {
  std::vector<double> times;   // increasing
  std::vector<double> values;  // values[i] holds on [times[i], times[i + 1])

  // From changes (time, amount added): sorted by time, summed per instant.
  static StepSeries from_changes(std::vector<std::pair<double, double>> changes);
  // The time-weighted mean over [from, to); `step` is where to start looking (the step that
  // holds at an earlier `from`, 0 at first), moved forward for the next call.
  double mean(double from, double to, std::size_t& step) const;
  // At most `points` samples over [0, end): each the time-weighted mean over its interval.
  StepSeries resampled(double end, std::size_t points) const;
};

// Several step functions on one time axis, each given by its changes: the axis holds every
// instant at which any of them changes (from 0), resampled to at most `max_points` equal
// intervals up to `end`; each value is that function's time-weighted mean over its interval.
struct SharedAxisSeries {
  std::vector<double> times;
  std::vector<std::vector<double>> values;  // one row per function
};
SharedAxisSeries on_one_axis(std::vector<std::vector<std::pair<double, double>>> changes,
                             double end, std::size_t max_points);

// The "series" object of a report (docs/report.md): utilization by kind, queue, power and,
// with the thermal model, temperature. `max_points` bounds every series' length.
nlohmann::ordered_json run_series_json(const RunReport& report, const Cluster& cluster,
                                       const TaskGraph& graph, std::size_t max_points = 2000);

}  // namespace hetsched
