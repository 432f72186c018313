// ServiceMetrics: the figures the control plane exposes at /metrics, and their
// Prometheus text exposition (format 0.0.4). Names: see docs/service.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "hetsched/cluster/device_spec.hpp"

namespace hetsched {

struct LatencySummary {
  std::uint64_t count = 0;
  double sum_seconds = 0;
  double p50_seconds = 0;
  double p90_seconds = 0;
  double p99_seconds = 0;
  double max_seconds = 0;
};

struct ServiceMetrics {
  std::uint64_t jobs_submitted_total = 0;
  std::array<std::uint64_t, 5> jobs_by_state{};  // indexed by ServiceJobState
  std::uint64_t queue_length = 0;                // tasks not yet launched, of live jobs
  std::uint64_t running_tasks = 0;               // launched and not ended
  std::array<std::uint32_t, kDeviceKindCount> devices_by_kind{};
  std::array<std::uint32_t, kDeviceKindCount> busy_devices_by_kind{};
  double energy_joules = 0;           // perf-model energy of the tasks completed so far
  std::uint64_t decisions_total = 0;  // placements made by policies
  double decisions_per_second = 0;    // decisions_total / time spent deciding
  LatencySummary scheduling_latency;  // seconds per planning call of the policy
  std::uint64_t task_failures_total = 0;
  std::uint64_t replans_total = 0;
  // Scheduling steps that failed (a store or engine refused); while the latest one
  // failed, the next is tried after a growing backoff and `step_error` says why.
  std::uint64_t step_failures_total = 0;
  bool step_failing = false;
  std::string step_error;
  double uptime_seconds = 0;
  bool leader = true;
};

std::string to_prometheus_text(const ServiceMetrics& metrics);

}  // namespace hetsched
