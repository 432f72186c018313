#include "hetsched/io/report_writer.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "hetsched/core/csv_field.hpp"
#include "hetsched/core/input_error.hpp"
#include "interval_lanes.hpp"
#include "run_series.hpp"

namespace hetsched {

using nlohmann::ordered_json;

ordered_json report_to_json(const RunReport& r, const Cluster& cluster, const TaskGraph& graph,
                            bool include_schedule) {
  ordered_json out;
  out["format"] = kReportFormat;
  out["format_version"] = kReportFormatVersion;
  out["policy"] = r.policy;
  out["perf_model"] = r.perf_model;
  out["seed"] = r.seed;
  out["makespan_seconds"] = r.makespan_seconds;
  out["tasks_total"] = r.tasks_total;
  out["tasks_completed"] = r.tasks_completed;
  out["unfinished_tasks"] = r.unfinished_tasks;
  out["energy_kwh"] = r.energy_kwh();
  out["cost_usd"] = r.cost_usd;
  out["mean_response_seconds"] = r.mean_response_seconds();
  out["mean_waiting_seconds"] = r.mean_waiting_seconds();
  out["deadlines_missed"] = r.deadlines_missed();
  ordered_json by_kind = ordered_json::object();
  for (std::size_t k = 0; k < kDeviceKindCount; ++k)
    if (r.devices_by_kind[k])
      by_kind[std::string(to_string(static_cast<DeviceKind>(k)))] = r.utilization_by_kind[k];
  out["utilization_by_kind"] = by_kind;
  out["transfers"] = {
      {"count", r.transfer_count}, {"bytes", r.transfer_bytes}, {"seconds", r.transfer_seconds}};
  out["events"] = r.events;
  ordered_json jobs = ordered_json::array();
  for (const JobResult& j : r.jobs) {
    ordered_json job{{"name", j.name},
                     {"arrival_seconds", j.arrival_seconds},
                     {"waiting_seconds", j.waiting_seconds()},
                     {"completion_seconds", j.completion_seconds},
                     {"response_seconds", j.response_seconds()}};
    if (j.deadline_seconds) {
      job["deadline_seconds"] = *j.deadline_seconds;
      job["deadline_met"] = j.deadline_met();
    }
    jobs.push_back(std::move(job));
  }
  out["jobs"] = std::move(jobs);
  if (r.faults) {
    std::vector<std::string> job_names;
    for (const JobResult& j : r.jobs) job_names.push_back(j.name);
    out["faults"] = fault_report_to_json(*r.faults, job_names);
    if (r.faults->cloning)  // task cloning (energy branch): only when it was on
      out["faults"]["clones"] = {{"started", r.faults->clones_started},
                                 {"won", r.faults->clones_won}};
  }
  ordered_json devices = ordered_json::array();
  for (const DeviceResult& d : r.devices) {
    const Device& device = cluster.device(d.device);
    devices.push_back(
        {{"name", device.name},
         {"node", cluster.node(device.node).name},
         {"model", device.spec.model},
         {"kind", to_string(device.spec.kind)},
         {"tasks", d.tasks},
         {"busy_seconds", d.busy_seconds},
         {"utilization", r.makespan_seconds > 0 ? d.busy_seconds / r.makespan_seconds : 0.0},
         {"busy_joules", d.busy_joules},
         {"idle_joules", d.idle_joules}});
  }
  out["devices"] = std::move(devices);
  // Power cap and thermal model: only when the run used them, so other reports are unchanged.
  if (r.power_cap_watts > 0 || r.node_power_cap_watts > 0 || r.thermal_modeled) {
    ordered_json power{{"power_cap_watts", r.power_cap_watts},
                       {"peak_power_watts", r.peak_power_watts},
                       {"power_cap_slowdowns", r.power_cap_slowdowns},
                       {"power_cap_waits", r.power_cap_waits},
                       {"power_cap_refusals", r.power_cap_refusals}};
    if (r.node_power_cap_watts > 0) {
      power["node_power_cap_watts"] = r.node_power_cap_watts;
      power["peak_node_power_watts"] = r.peak_node_power_watts;
    }
    if (r.thermal_modeled) {
      power["thermal_throttle_events"] = r.thermal_throttle_events;
      ordered_json thermal = ordered_json::array();
      for (const DeviceResult& d : r.devices)
        thermal.push_back({{"name", cluster.device(d.device).name},
                           {"peak_celsius", d.peak_celsius},
                           {"throttle_events", d.throttle_events}});
      power["devices"] = std::move(thermal);
    }
    out["power_and_thermal"] = std::move(power);
  }
  if (include_schedule) {
    ordered_json schedule = ordered_json::array();
    for (const TaskRecord& t : r.schedule) {
      const JobIndex j = graph.job_of(t.task);
      schedule.push_back({{"job", graph.job(j).name},
                          {"task", graph.task(t.task).name},
                          {"device", cluster.device(t.device).name},
                          {"pstate", t.pstate},
                          {"start_seconds", t.start_seconds},
                          {"finish_seconds", t.finish_seconds},
                          {"joules", t.joules}});
    }
    out["schedule"] = std::move(schedule);
    ordered_json transfers = ordered_json::array();
    for (const TransferRecord& x : r.transfers)
      transfers.push_back({{"job", graph.job(graph.job_of(x.consumer)).name},
                           {"task", graph.task(x.consumer).name},
                           {"from_node", cluster.node(x.from_node).name},
                           {"device", cluster.device(x.to_device).name},
                           {"bytes", x.bytes},
                           {"start_seconds", x.start_seconds},
                           {"finish_seconds", x.finish_seconds}});
    out["transfer_schedule"] = std::move(transfers);
    ordered_json marks = ordered_json::array();
    for (const TimelineMark& m : r.marks) {
      ordered_json mark{{"kind", to_string(m.kind)},
                        {"device", cluster.device(m.device).name},
                        {"seconds", m.seconds}};
      if (m.task != kNoTimelineTask) {
        mark["job"] = graph.job(graph.job_of(m.task)).name;
        mark["task"] = graph.task(m.task).name;
      }
      marks.push_back(std::move(mark));
    }
    out["marks"] = std::move(marks);
    out["series"] = run_series_json(r, cluster, graph);
  }
  return out;
}

namespace {

// Trace rows (tids) of a node's network lanes, after every device row (device d is d + 1).
constexpr std::uint64_t kFirstNetworkRow = 1u << 31;

// For each transfer, the lowest network lane of its destination node free at its start.
std::vector<std::uint32_t> transfer_lanes(const std::vector<TransferRecord>& transfers,
                                          const Cluster& cluster) {
  std::vector<std::uint32_t> node(transfers.size());
  std::vector<double> start(transfers.size()), finish(transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    node[i] = cluster.device(transfers[i].to_device).node;
    start[i] = transfers[i].start_seconds;
    finish[i] = transfers[i].finish_seconds;
  }
  return interval_lanes(node, start, finish, cluster.node_count());
}

}  // namespace

ordered_json chrome_trace(const RunReport& r, const Cluster& cluster, const TaskGraph& graph) {
  constexpr double us = 1e6;
  ordered_json events = ordered_json::array();
  for (NodeId n = 0; n < cluster.node_count(); ++n) {
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", n},
                      {"args", {{"name", cluster.node(n).name}}}});
    for (DeviceId d : cluster.node(n).devices)
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", n},
                        {"tid", d + 1},
                        {"args", {{"name", cluster.device(d).name}}}});
  }
  for (const TaskRecord& t : r.schedule) {
    const Job& job = graph.job(graph.job_of(t.task));
    const Task& task = graph.task(t.task);
    events.push_back(
        {{"name", job.name + "/" + task.name},
         {"cat", job.family.empty() ? "task" : job.family},
         {"ph", "X"},
         {"ts", t.start_seconds * us},
         {"dur", (t.finish_seconds - t.start_seconds) * us},
         {"pid", cluster.device(t.device).node},
         {"tid", t.device + 1},
         {"args",
          {{"kernel", to_string(task.kernel)}, {"pstate", t.pstate}, {"joules", t.joules}}}});
  }
  // Transfers into a node overlap without nesting, which trace viewers draw wrongly on one
  // row: each goes on the node's lowest network row free at its start, so that every row
  // holds transfers one after another.
  const std::vector<std::uint32_t> lanes = transfer_lanes(r.transfers, cluster);
  std::vector<std::uint32_t> lanes_per_node(cluster.node_count(), 0);
  for (std::size_t i = 0; i < r.transfers.size(); ++i) {
    const TransferRecord& x = r.transfers[i];
    const NodeId node = cluster.device(x.to_device).node;
    lanes_per_node[node] = std::max(lanes_per_node[node], lanes[i] + 1);
    events.push_back(
        {{"name", "to " + graph.task(x.consumer).name},
         {"cat", "transfer"},
         {"ph", "X"},
         {"ts", x.start_seconds * us},
         {"dur", (x.finish_seconds - x.start_seconds) * us},
         {"pid", node},
         {"tid", kFirstNetworkRow + lanes[i]},
         {"args", {{"bytes", x.bytes}, {"from_node", cluster.node(x.from_node).name}}}});
  }
  for (NodeId n = 0; n < cluster.node_count(); ++n)
    for (std::uint32_t lane = 0; lane < lanes_per_node[n]; ++lane)
      events.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", n},
                        {"tid", kFirstNetworkRow + lane},
                        {"args", {{"name", fmt::format("network {}", lane + 1)}}}});
  return ordered_json{{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

std::string summary_table(const std::vector<const RunReport*>& reports) {
  struct Row {
    std::string label;
    std::function<std::string(const RunReport&)> value;
  };
  const auto kind_utilization = [](DeviceKind kind) {
    return [kind](const RunReport& r) {
      const auto k = static_cast<std::size_t>(kind);
      return r.devices_by_kind[k] ? fmt::format("{:.1f} %", 100 * r.utilization_by_kind[k])
                                  : std::string("-");
    };
  };
  const std::vector<Row> rows{
      {"makespan (s)",
       [](const RunReport& r) { return fmt::format("{:.2f}", r.makespan_seconds); }},
      {"tasks completed",
       [](const RunReport& r) { return fmt::format("{}/{}", r.tasks_completed, r.tasks_total); }},
      {"mean job response (s)",
       [](const RunReport& r) { return fmt::format("{:.2f}", r.mean_response_seconds()); }},
      {"mean job wait (s)",
       [](const RunReport& r) { return fmt::format("{:.2f}", r.mean_waiting_seconds()); }},
      {"deadlines missed",
       [](const RunReport& r) { return fmt::format("{}", r.deadlines_missed()); }},
      {"GPU utilization", kind_utilization(DeviceKind::gpu)},
      {"TPU utilization", kind_utilization(DeviceKind::tpu)},
      {"CPU utilization", kind_utilization(DeviceKind::cpu)},
      {"energy (kWh)", [](const RunReport& r) { return fmt::format("{:.3f}", r.energy_kwh()); }},
      {"cost (USD)", [](const RunReport& r) { return fmt::format("{:.2f}", r.cost_usd); }},
      {"data moved (GB)",
       [](const RunReport& r) { return fmt::format("{:.1f}", r.transfer_bytes / 1e9); }},
  };
  std::size_t label_width = 6;
  for (const Row& row : rows) label_width = std::max(label_width, row.label.size());
  std::vector<std::size_t> widths;
  for (const RunReport* r : reports) {
    std::size_t w = r->policy.size();
    for (const Row& row : rows) w = std::max(w, row.value(*r).size());
    widths.push_back(w);
  }
  std::string out = fmt::format("{:<{}}", "policy", label_width);
  for (std::size_t i = 0; i < reports.size(); ++i)
    out += fmt::format("  {:>{}}", reports[i]->policy, widths[i]);
  out += "\n" + std::string(out.size(), '-') + "\n";
  for (const Row& row : rows) {
    out += fmt::format("{:<{}}", row.label, label_width);
    for (std::size_t i = 0; i < reports.size(); ++i)
      out += fmt::format("  {:>{}}", row.value(*reports[i]), widths[i]);
    out += "\n";
  }
  return out;
}

void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary);
  if (!file) throw InputError(SourcePosition{path, 0, 0}, "cannot open for writing");
  file << text;
  if (!file) throw InputError(SourcePosition{path, 0, 0}, "write failed");
}

void create_output_directory(const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) throw InputError(SourcePosition{path, 0, 0}, "cannot create directory: " + ec.message());
}

std::string schedule_to_csv(const RunReport& report, const Cluster& cluster, const TaskGraph& graph,
                            bool with_header) {
  std::string text =
      with_header ? "policy,job,task,device,node,pstate,start_seconds,finish_seconds\n" : "";
  for (const TaskRecord& record : report.schedule) {
    const Device& device = cluster.device(record.device);
    text += fmt::format("{},{},{},{},{},{},{},{}\n", csv_field(report.policy),
                        csv_field(graph.job(graph.job_of(record.task)).name),
                        csv_field(graph.task(record.task).name), csv_field(device.name),
                        csv_field(cluster.node(device.node).name), record.pstate,
                        record.start_seconds, record.finish_seconds);
  }
  return text;
}

nlohmann::ordered_json schedule_to_json(const RunReport& report, const Cluster& cluster,
                                        const TaskGraph& graph) {
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (const TaskRecord& record : report.schedule) {
    const Device& device = cluster.device(record.device);
    tasks.push_back({{"job", graph.job(graph.job_of(record.task)).name},
                     {"task", graph.task(record.task).name},
                     {"device", device.name},
                     {"node", cluster.node(device.node).name},
                     {"pstate", record.pstate},
                     {"start_seconds", record.start_seconds},
                     {"finish_seconds", record.finish_seconds}});
  }
  return {{"policy", report.policy}, {"tasks", std::move(tasks)}};
}

}  // namespace hetsched
