#include "price_carbon.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>

#include "hetsched/core/input_error.hpp"

namespace hetsched {

double StepSeries::at(double seconds) const {
  if (values.empty()) return 0;
  const auto it = std::upper_bound(start_seconds.begin(), start_seconds.end(), seconds);
  return it == start_seconds.begin() ? values.front() : values[(it - start_seconds.begin()) - 1];
}

double StepSeries::integral(double from, double to) const {
  if (values.empty() || to <= from) return 0;
  double total = 0, t = from;
  while (t < to) {
    const auto it = std::upper_bound(start_seconds.begin(), start_seconds.end(), t);
    const double next = it == start_seconds.end() ? to : std::min(to, *it);
    total += at(t) * (next - t);
    t = next;
  }
  return total;
}

PriceCarbonSeries parse_price_carbon_csv(const std::string& text, const std::string& file_name) {
  PriceCarbonSeries out;
  std::istringstream in(text);
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (line_number == 1 && !line.empty() &&
        !(std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '-' || line[0] == '.'))
      continue;  // header
    double values[3];
    std::size_t position = 0;
    for (int field = 0; field < 3; ++field) {
      const std::size_t end = line.find(',', position);
      const std::string cell =
          line.substr(position, end == std::string::npos ? std::string::npos : end - position);
      const char* first = cell.data();
      while (*first == ' ') ++first;
      const auto [ptr, ec] = std::from_chars(first, cell.data() + cell.size(), values[field]);
      if (ec != std::errc() || (field < 2 && end == std::string::npos) ||
          (field == 2 && end != std::string::npos))
        throw InputError(SourcePosition{file_name, line_number, static_cast<int>(position) + 1},
                         "expected three numbers: start_seconds,usd_per_kwh,kg_co2_per_kwh");
      if (values[field] < 0)
        throw InputError(SourcePosition{file_name, line_number, static_cast<int>(position) + 1},
                         fmt::format("expected a non-negative number, got {}", values[field]));
      position = end == std::string::npos ? line.size() : end + 1;
    }
    if (!out.usd_per_kwh.start_seconds.empty() && values[0] <= out.usd_per_kwh.start_seconds.back())
      throw InputError(SourcePosition{file_name, line_number, 1},
                       "start_seconds must increase from row to row");
    out.usd_per_kwh.start_seconds.push_back(values[0]);
    out.usd_per_kwh.values.push_back(values[1]);
    out.kg_co2_per_kwh.start_seconds.push_back(values[0]);
    out.kg_co2_per_kwh.values.push_back(values[2]);
  }
  if (out.usd_per_kwh.values.empty())
    throw InputError(SourcePosition{file_name, line_number, 0}, "the series has no rows");
  return out;
}

RunFootprint run_footprint(const RunReport& report, const Cluster& cluster,
                           const PriceCarbonSeries& series) {
  RunFootprint out;
  constexpr double kJoulesPerKwh = 3.6e6;
  double idle_watts = 0;
  for (const Device& d : cluster.devices()) idle_watts += d.spec.idle_watts;
  auto add = [&](double watts, double from, double to) {
    out.energy_joules += watts * (to - from);
    out.cost_usd += watts * series.usd_per_kwh.integral(from, to) / kJoulesPerKwh;
    out.kg_co2 += watts * series.kg_co2_per_kwh.integral(from, to) / kJoulesPerKwh;
  };
  add(idle_watts, 0, report.makespan_seconds);
  for (const TaskRecord& t : report.schedule) {
    const double seconds = t.finish_seconds - t.start_seconds;
    if (seconds <= 0) continue;
    const double above_idle = t.joules / seconds - cluster.device(t.device).spec.idle_watts;
    add(above_idle, t.start_seconds, t.finish_seconds);
  }
  return out;
}

DeferralChoice best_deferral(const PriceCarbonSeries& series, double earliest, double latest_start,
                             double duration_seconds, double watts, double price_weight,
                             double carbon_weight) {
  constexpr double kJoulesPerKwh = 3.6e6;
  auto evaluate = [&](double start, double& cost, double& co2) {
    cost = watts * series.usd_per_kwh.integral(start, start + duration_seconds) / kJoulesPerKwh;
    co2 = watts * series.kg_co2_per_kwh.integral(start, start + duration_seconds) / kJoulesPerKwh;
  };
  DeferralChoice out;
  evaluate(earliest, out.cost_if_now_usd, out.kg_co2_if_now);
  out.start_seconds = earliest;
  out.cost_usd = out.cost_if_now_usd;
  out.kg_co2 = out.kg_co2_if_now;
  if (latest_start <= earliest) return out;
  std::vector<double> candidates{earliest, latest_start};
  for (double s : series.usd_per_kwh.start_seconds)
    candidates.push_back(s), candidates.push_back(s - duration_seconds);
  std::sort(candidates.begin(), candidates.end());
  double best = price_weight * out.cost_usd + carbon_weight * out.kg_co2;
  for (double start : candidates) {
    if (start < earliest || start > latest_start) continue;
    double cost, co2;
    evaluate(start, cost, co2);
    const double score = price_weight * cost + carbon_weight * co2;
    if (score < best - 1e-15 * std::max(1.0, best)) {
      best = score;
      out.start_seconds = start;
      out.cost_usd = cost;
      out.kg_co2 = co2;
    }
  }
  return out;
}

Workload defer_jobs(const Workload& workload, const std::vector<double>& duration_seconds,
                    const std::vector<double>& watts, const PriceCarbonSeries& series,
                    double price_weight, double carbon_weight) {
  Workload out = workload;
  for (std::size_t j = 0; j < out.jobs.size() && j < duration_seconds.size() && j < watts.size();
       ++j) {
    Job& job = out.jobs[j];
    if (!job.deadline_seconds) continue;
    const double latest = *job.deadline_seconds - duration_seconds[j];
    const DeferralChoice choice =
        best_deferral(series, job.arrival_seconds, latest, duration_seconds[j], watts[j],
                      price_weight, carbon_weight);
    job.arrival_seconds = choice.start_seconds;
  }
  return out;
}

}  // namespace hetsched
