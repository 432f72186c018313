// A run's series over time (see the header). Utilization and the queue are rebuilt from the
// recorded schedule: a device is busy from a task's start to its finish; a task waits from
// the moment it could run (its job arrived and its last predecessor finished) to its start.
// Power and temperature are the simulator's own samples.
#include "run_series.hpp"

#include <algorithm>
#include <limits>

namespace hetsched {

using nlohmann::ordered_json;

StepSeries StepSeries::from_changes(std::vector<std::pair<double, double>> changes) {
  std::stable_sort(changes.begin(), changes.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  StepSeries out;
  double value = 0;
  for (const auto& [time, amount] : changes) {
    value += amount;
    if (!out.times.empty() && out.times.back() == time) {
      out.values.back() = value;
    } else {
      out.times.push_back(time);
      out.values.push_back(value);
    }
  }
  return out;
}

double StepSeries::mean(double from, double to, std::size_t& step) const {
  while (step + 1 < times.size() && times[step + 1] <= from) ++step;
  if (!(to > from)) return values[step];
  double area = 0;
  for (std::size_t k = step; k < times.size() && times[k] < to; ++k) {
    const double next = k + 1 < times.size() ? std::min(times[k + 1], to) : to;
    area += values[k] * (next - std::max(times[k], from));
  }
  return area / (to - from);
}

StepSeries StepSeries::resampled(double end, std::size_t points) const {
  if (times.size() <= points || points == 0 || !(end > times.front())) return *this;
  const double start = times.front();
  const double width = (end - start) / static_cast<double>(points);
  StepSeries out;
  out.times.reserve(points);
  out.values.reserve(points);
  std::size_t step = 0;
  for (std::size_t b = 0; b < points; ++b) {
    const double from = start + width * static_cast<double>(b);
    out.times.push_back(from);
    out.values.push_back(mean(from, b + 1 == points ? end : from + width, step));
  }
  return out;
}

SharedAxisSeries on_one_axis(std::vector<std::vector<std::pair<double, double>>> changes,
                             double end, std::size_t max_points) {
  std::vector<std::pair<double, double>> instants{{0.0, 0.0}};
  for (const auto& function : changes)
    for (const auto& change : function) instants.emplace_back(change.first, 0.0);
  SharedAxisSeries out;
  out.times = StepSeries::from_changes(std::move(instants)).resampled(end, max_points).times;
  for (auto& function : changes) {
    function.emplace_back(0.0, 0.0);
    const StepSeries steps = StepSeries::from_changes(std::move(function));
    std::vector<double>& values = out.values.emplace_back(out.times.size());
    std::size_t step = 0;
    for (std::size_t i = 0; i < out.times.size(); ++i) {
      const double to = i + 1 < out.times.size() ? out.times[i + 1] : end;
      values[i] = steps.mean(out.times[i], to, step);
    }
  }
  return out;
}

namespace {

// Temperatures are sampled when a device's power changes; between samples the value moves
// towards its steady state, drawn here as a straight line. Each device's samples are read at
// the same `points` instants so that all devices share one time axis.
ordered_json temperature_json(const RunReport& r, std::size_t points) {
  const std::size_t devices = r.devices.size();
  std::vector<std::vector<std::pair<double, double>>> samples(devices);
  for (const TemperatureSample& s : r.temperatures)
    if (s.device < devices) samples[s.device].emplace_back(s.seconds, s.celsius);
  // The hottest devices, at most 32 lines: a chart with more is unreadable.
  std::vector<DeviceId> shown;
  for (DeviceId d = 0; d < devices; ++d)
    if (!samples[d].empty()) shown.push_back(d);
  std::stable_sort(shown.begin(), shown.end(), [&](DeviceId a, DeviceId b) {
    return r.devices[a].peak_celsius > r.devices[b].peak_celsius;
  });
  if (shown.size() > 32) shown.resize(32);
  std::sort(shown.begin(), shown.end());
  const double end = std::max(r.makespan_seconds, 0.0);
  const std::size_t n = std::max<std::size_t>(2, std::min<std::size_t>(points, 500));
  std::vector<double> times(n);
  for (std::size_t i = 0; i < n; ++i) times[i] = end * static_cast<double>(i) / double(n - 1);
  ordered_json lines = ordered_json::array();
  for (DeviceId d : shown) {
    const auto& s = samples[d];
    std::vector<double> celsius(n);
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i) {
      while (k + 1 < s.size() && s[k + 1].first <= times[i]) ++k;
      if (k + 1 < s.size() && s[k + 1].first > s[k].first && times[i] >= s[k].first) {
        const double f = (times[i] - s[k].first) / (s[k + 1].first - s[k].first);
        celsius[i] = s[k].second + f * (s[k + 1].second - s[k].second);
      } else {
        celsius[i] = s[k].second;
      }
    }
    lines.push_back({{"device", d}, {"celsius", std::move(celsius)}});
  }
  return {{"times", std::move(times)},
          {"limit_celsius", r.thermal_limit_celsius},
          {"devices", std::move(lines)}};
}

}  // namespace

ordered_json run_series_json(const RunReport& r, const Cluster& cluster, const TaskGraph& graph,
                             std::size_t max_points) {
  const double end = r.makespan_seconds;
  ordered_json out;

  // Busy devices of each kind, as a fraction of that kind's devices.
  std::vector<std::vector<std::pair<double, double>>> busy(kDeviceKindCount);
  for (const TaskRecord& t : r.schedule) {
    const auto kind = static_cast<std::size_t>(cluster.device(t.device).spec.kind);
    busy[kind].emplace_back(t.start_seconds, 1.0);
    busy[kind].emplace_back(t.finish_seconds, -1.0);
  }
  std::array<std::size_t, kDeviceKindCount> devices_of_kind{};
  for (DeviceId d = 0; d < cluster.device_count(); ++d)
    ++devices_of_kind[static_cast<std::size_t>(cluster.device(d).spec.kind)];
  SharedAxisSeries kinds = on_one_axis(std::move(busy), end, max_points);
  ordered_json by_kind = ordered_json::object();
  for (std::size_t k = 0; k < kDeviceKindCount; ++k) {
    if (devices_of_kind[k] == 0) continue;
    for (double& v : kinds.values[k]) v /= static_cast<double>(devices_of_kind[k]);
    by_kind[std::string(to_string(static_cast<DeviceKind>(k)))] = std::move(kinds.values[k]);
  }
  const std::vector<double>& axis_times = kinds.times;
  out["utilization"] = {{"times", axis_times}, {"by_kind", std::move(by_kind)}};

  // Ready tasks waiting: from the moment a task could run to its start.
  std::vector<double> start(graph.task_count(), -1), finish(graph.task_count(), -1);
  for (const TaskRecord& t : r.schedule) {
    start[t.task] = t.start_seconds;
    finish[t.task] = t.finish_seconds;
  }
  std::vector<std::pair<double, double>> waiting{{0.0, 0.0}};
  for (TaskIndex t = 0; t < graph.task_count(); ++t) {
    double ready = graph.job(graph.job_of(t)).arrival_seconds;
    bool can_run = true;
    for (const Dependency& p : graph.predecessors(t)) {
      if (finish[p.task] < 0) can_run = false;
      ready = std::max(ready, finish[p.task]);
    }
    if (!can_run) continue;  // never ready: a predecessor did not finish
    waiting.emplace_back(ready, 1.0);
    if (start[t] >= 0) waiting.emplace_back(std::max(start[t], ready), -1.0);
  }
  const StepSeries queue = StepSeries::from_changes(std::move(waiting)).resampled(end, max_points);
  out["queue"] = {{"times", queue.times}, {"tasks", queue.values}};

  // The cluster's draw, sampled by the simulator at every change.
  StepSeries power;
  for (const PowerSample& s : r.power) {
    power.times.push_back(s.seconds);
    power.values.push_back(s.watts);
  }
  power = power.resampled(end, max_points);
  out["power"] = {
      {"times", power.times},
      {"watts", power.values},
      {"cap_watts",
       r.power_cap_watts > 0 ? ordered_json(r.power_cap_watts) : ordered_json(nullptr)},
      {"node_cap_watts",
       r.node_power_cap_watts > 0 ? ordered_json(r.node_power_cap_watts) : ordered_json(nullptr)}};
  out["temperature"] = r.thermal_modeled && !r.temperatures.empty()
                           ? temperature_json(r, max_points)
                           : ordered_json(nullptr);
  return out;
}

}  // namespace hetsched
