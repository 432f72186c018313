// A job stream's run as a report document (the format of report_to_json), so that the HTML
// report draws it like a run of tasks. The stream scheduler counts a node's free devices
// rather than naming them, so each run of a job on a node is given device slots there by
// interval partitioning (interval_lanes.hpp: a gang of k devices is k intervals that start
// together and so take k different slots); a job that shares a device is drawn on the slot
// of the device it shares. Each run is one entry of the schedule per device it held; series
// over time are the busy share of each device kind and the jobs waiting (arrived, not
// running, not finished).
#include <fmt/format.h>

#include <algorithm>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/io/report_writer.hpp"
#include "interval_lanes.hpp"
#include "run_series.hpp"

namespace hetsched {

using nlohmann::ordered_json;

namespace {

std::string kind_of(const StreamDeviceType& type) {
  const DeviceSpec* spec = find_catalog_part(type.model);
  return std::string(to_string(spec != nullptr ? spec->kind : DeviceKind::gpu));
}

}  // namespace

ordered_json stream_report_to_json(const StreamReport& r, const StreamWorkload& workload,
                                   const StreamResources& resources) {
  ordered_json out;
  out["format"] = kReportFormat;
  out["format_version"] = kReportFormatVersion;
  out["policy"] = r.policy;
  out["workload_kind"] = "stream";
  out["makespan_seconds"] = r.makespan_seconds;
  out["mean_response_seconds"] = r.average_jct_seconds;
  out["mean_waiting_seconds"] = r.average_wait_seconds;
  out["deadlines_missed"] = r.slo_violations;
  out["jobs_finished"] = r.finished_measured;
  out["cost_usd"] = r.cost_usd;
  ordered_json by_kind = ordered_json::object();
  for (std::size_t k = 0; k < r.type_names.size(); ++k) by_kind[r.type_names[k]] = r.utilisation[k];
  out["utilization_by_kind"] = std::move(by_kind);  // per device type

  // Devices: node by node, slot by slot.
  std::vector<std::size_t> first_device(resources.nodes.size() + 1, 0);
  ordered_json devices = ordered_json::array();
  for (std::size_t n = 0; n < resources.nodes.size(); ++n) {
    const StreamNode& node = resources.nodes[n];
    const StreamDeviceType& type = resources.types[node.type];
    first_device[n + 1] = first_device[n] + static_cast<std::size_t>(node.devices);
    for (int i = 0; i < node.devices; ++i)
      devices.push_back({{"name", fmt::format("{}/{}{}", node.name, type.model, i)},
                         {"node", node.name},
                         {"model", type.model},
                         {"kind", kind_of(type)}});
  }

  // Slots: one interval per device of each run, partitioned per node.
  std::vector<std::size_t> unit_segment;
  std::vector<std::uint32_t> unit_node;
  std::vector<double> unit_start, unit_end;
  for (std::size_t i = 0; i < r.segments.size(); ++i) {
    const StreamRunSegment& s = r.segments[i];
    if (s.devices <= 0) continue;  // a shared device: its own slot
    for (int d = 0; d < s.devices; ++d) {
      unit_segment.push_back(i);
      unit_node.push_back(static_cast<std::uint32_t>(s.node));
      unit_start.push_back(s.start_seconds);
      unit_end.push_back(s.end_seconds);
    }
  }
  const std::vector<std::uint32_t> slots =
      interval_lanes(unit_node, unit_start, unit_end, resources.nodes.size());
  std::vector<std::size_t> segment_first_unit(r.segments.size(), 0);
  for (std::size_t u = unit_segment.size(); u-- > 0;) segment_first_unit[unit_segment[u]] = u;

  const auto device_name = [&](std::size_t node, std::size_t slot) -> const ordered_json& {
    const std::size_t on_node = first_device[node + 1] - first_device[node];
    return devices[first_device[node] + std::min(slot, on_node - 1)]["name"];
  };
  ordered_json schedule = ordered_json::array(), marks = ordered_json::array();
  std::vector<std::pair<double, double>> waiting{{0.0, 0.0}};
  std::vector<std::vector<std::pair<double, double>>> busy(resources.types.size());
  for (std::size_t i = 0; i < r.segments.size(); ++i) {
    const StreamRunSegment& s = r.segments[i];
    const std::string& job = workload.jobs[s.job].name;
    const std::size_t type = resources.nodes[s.node].type;
    const auto run_on = [&](std::size_t slot) {
      schedule.push_back({{"job", job},
                          {"task", job},
                          {"device", device_name(s.node, slot)},
                          {"start_seconds", s.start_seconds},
                          {"finish_seconds", s.end_seconds}});
    };
    if (s.devices <= 0) {
      run_on(static_cast<std::size_t>(std::max(s.shared_device, 0)));
    } else {
      for (int d = 0; d < s.devices; ++d) run_on(slots[segment_first_unit[i] + d]);
    }
    if (s.moved)
      marks.push_back({{"kind", "migration"},
                       {"device", schedule.back()["device"]},
                       {"seconds", s.start_seconds},
                       {"job", job},
                       {"task", job}});
    const double held = s.devices > 0 ? s.devices : 1.0;
    busy[type].emplace_back(s.start_seconds, held);
    busy[type].emplace_back(s.end_seconds, -held);
    waiting.emplace_back(s.start_seconds, -1.0);
    waiting.emplace_back(s.end_seconds, 1.0);
  }

  ordered_json jobs = ordered_json::array();
  for (std::size_t j = 0; j < r.jobs.size(); ++j) {
    const StreamJobOutcome& o = r.jobs[j];
    const bool finished = !o.rejected && o.finish_seconds >= 0;  // rejected: never completes
    ordered_json entry{
        {"name", o.name},
        {"arrival_seconds", o.arrival_seconds},
        {"completion_seconds", finished ? ordered_json(o.finish_seconds) : ordered_json()},
        {"response_seconds",
         finished ? ordered_json(o.finish_seconds - o.arrival_seconds) : ordered_json()}};
    if (const auto& deadline = workload.jobs[j].deadline_seconds) {
      entry["deadline_seconds"] = *deadline;
      entry["deadline_met"] = !o.slo_violated;
    }
    if (o.rejected) entry["rejected"] = o.rejection_reason;
    jobs.push_back(std::move(entry));
    if (o.rejected) continue;
    // Waiting from arrival until finished, less every run (added above as -1 … +1).
    waiting.emplace_back(o.arrival_seconds, 1.0);
    if (finished) waiting.emplace_back(o.finish_seconds, -1.0);
  }
  out["jobs"] = std::move(jobs);
  out["devices"] = std::move(devices);
  out["schedule"] = std::move(schedule);
  out["transfer_schedule"] = ordered_json::array();
  out["marks"] = std::move(marks);

  constexpr std::size_t kMaxPoints = 2000;
  double end = 0;  // the last run's end or job's finish
  for (const StreamRunSegment& s : r.segments) end = std::max(end, s.end_seconds);
  for (const StreamJobOutcome& o : r.jobs) end = std::max(end, o.finish_seconds);
  SharedAxisSeries types = on_one_axis(std::move(busy), end, kMaxPoints);
  ordered_json utilization = ordered_json::object();
  for (std::size_t k = 0; k < resources.types.size(); ++k) {
    if (resources.types[k].count <= 0) continue;
    for (double& v : types.values[k]) v /= resources.types[k].count;
    utilization[resources.types[k].model] = std::move(types.values[k]);
  }
  const StepSeries queue = StepSeries::from_changes(std::move(waiting)).resampled(end, kMaxPoints);
  out["series"] = {{"utilization", {{"times", types.times}, {"by_kind", std::move(utilization)}}},
                   {"queue", {{"times", queue.times}, {"tasks", queue.values}}},
                   {"power",
                    {{"times", ordered_json::array()},
                     {"watts", ordered_json::array()},
                     {"cap_watts", nullptr},
                     {"node_cap_watts", nullptr}}},
                   {"temperature", nullptr}};
  return out;
}

}  // namespace hetsched
