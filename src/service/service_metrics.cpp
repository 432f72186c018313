#include "hetsched/service/service_metrics.hpp"

#include <fmt/format.h>

#include "hetsched/service/service_job.hpp"

namespace hetsched {
namespace {

void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
  out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

}  // namespace

std::string to_prometheus_text(const ServiceMetrics& m) {
  std::string out;
  family(out, "hetsched_jobs_submitted_total", "counter",
         "Jobs accepted since this process started.");
  out += fmt::format("hetsched_jobs_submitted_total {}\n", m.jobs_submitted_total);
  family(out, "hetsched_jobs", "gauge", "Jobs known to the service, by state.");
  for (std::size_t s = 0; s < m.jobs_by_state.size(); ++s)
    out += fmt::format("hetsched_jobs{{state=\"{}\"}} {}\n",
                       to_string(static_cast<ServiceJobState>(s)), m.jobs_by_state[s]);
  family(out, "hetsched_queue_length", "gauge", "Tasks of live jobs not yet launched.");
  out += fmt::format("hetsched_queue_length {}\n", m.queue_length);
  family(out, "hetsched_running_tasks", "gauge", "Tasks launched on the engine and not ended.");
  out += fmt::format("hetsched_running_tasks {}\n", m.running_tasks);
  family(out, "hetsched_devices", "gauge", "Devices on nodes that are up, by kind.");
  for (std::size_t k = 0; k < kDeviceKindCount; ++k)
    out += fmt::format("hetsched_devices{{kind=\"{}\"}} {}\n",
                       to_string(static_cast<DeviceKind>(k)), m.devices_by_kind[k]);
  family(out, "hetsched_device_utilisation", "gauge",
         "Fraction of the devices of a kind running a task now.");
  for (std::size_t k = 0; k < kDeviceKindCount; ++k)
    out += fmt::format("hetsched_device_utilisation{{kind=\"{}\"}} {}\n",
                       to_string(static_cast<DeviceKind>(k)),
                       m.devices_by_kind[k] == 0
                           ? 0.0
                           : static_cast<double>(m.busy_devices_by_kind[k]) / m.devices_by_kind[k]);
  family(out, "hetsched_energy_joules_total", "counter",
         "Energy of the tasks completed, as the performance model predicts it on their device.");
  out += fmt::format("hetsched_energy_joules_total {}\n", m.energy_joules);
  family(out, "hetsched_decisions_total", "counter", "Placements made by scheduling policies.");
  out += fmt::format("hetsched_decisions_total {}\n", m.decisions_total);
  family(out, "hetsched_decisions_per_second", "gauge",
         "Placements per second of time spent in policies.");
  out += fmt::format("hetsched_decisions_per_second {}\n", m.decisions_per_second);
  family(out, "hetsched_scheduling_latency_seconds", "summary",
         "Seconds per planning call of a policy (quantiles over the latest 4096 calls).");
  const LatencySummary& l = m.scheduling_latency;
  out += fmt::format("hetsched_scheduling_latency_seconds{{quantile=\"0.5\"}} {}\n", l.p50_seconds);
  out += fmt::format("hetsched_scheduling_latency_seconds{{quantile=\"0.9\"}} {}\n", l.p90_seconds);
  out +=
      fmt::format("hetsched_scheduling_latency_seconds{{quantile=\"0.99\"}} {}\n", l.p99_seconds);
  out += fmt::format("hetsched_scheduling_latency_seconds_sum {}\n", l.sum_seconds);
  out += fmt::format("hetsched_scheduling_latency_seconds_count {}\n", l.count);
  family(out, "hetsched_task_failures_total", "counter", "Task attempts that failed.");
  out += fmt::format("hetsched_task_failures_total {}\n", m.task_failures_total);
  family(out, "hetsched_replans_total", "counter",
         "Tasks placed again after a failure or a lost node.");
  out += fmt::format("hetsched_replans_total {}\n", m.replans_total);
  family(out, "hetsched_scheduling_step_failures_total", "counter",
         "Scheduling steps that failed (the state store or the engine refused); retried with "
         "backoff.");
  out += fmt::format("hetsched_scheduling_step_failures_total {}\n", m.step_failures_total);
  family(out, "hetsched_scheduling_step_failing", "gauge",
         "1 while the latest scheduling step failed, else 0.");
  out += fmt::format("hetsched_scheduling_step_failing {}\n", m.step_failing ? 1 : 0);
  family(out, "hetsched_uptime_seconds", "gauge", "Seconds since this process started.");
  out += fmt::format("hetsched_uptime_seconds {}\n", m.uptime_seconds);
  family(out, "hetsched_leader", "gauge", "1 when this replica leads.");
  out += fmt::format("hetsched_leader {}\n", m.leader ? 1 : 0);
  return out;
}

}  // namespace hetsched
