// Fault files: the failures and recovery rules of a simulated run, in YAML.
//
//   model:                      # seeded random failures (optional)
//     mtbf_hours: 10            # override every device's catalog MTBF; > 0
//     mtbf_scale: 1             # or scale the catalog MTBFs; > 0
//     distribution: weibull     # exponential (default) or weibull
//     weibull_shape: 0.7
//     repair_seconds: 600       # .inf: a crashed device never returns
//     transients_per_device_hour: 0.1
//     stragglers_per_device_hour: 0.05
//     straggler_slowdown: 3
//     straggler_seconds: 600
//     partitions_per_node_hour: 0.01
//     partition_seconds: 300
//   failures:                   # an explicit list (optional)
//     - {time: 3600, kind: crash, device: "h100-0/H100-SXM#0", duration: 600}
//     - {time: 100, kind: partition, node: "cpu-0", duration: 30}
//     - {time: 50, kind: transient, device: "a100-0/A100-80GB#1"}
//     - {time: 10, kind: straggler, device: "...", duration: 60, slowdown: 3}
//   heartbeat: {interval_seconds: 5, timeout_seconds: 15}
//   retry: {max_attempts: 5, backoff_seconds: 1, max_backoff_seconds: 60}
//   checkpoint: {mode: daly, interval_seconds: 3600, storage_bandwidth: 2e9}
//   replicas: 2
//   critical_jobs: [train-llm-1.3b]
//   replica_domain: node        # any | node | rack: where replicas avoid their siblings
//   respawn_replicas: true      # restart a lost copy elsewhere from the newest checkpoint
//   predictor: {ecc_reference_per_hour: 1, ecc_shift_per_hour: 20, ecc_cusum_threshold: 4,
//               temperature_ewma_weight: 0.3, temperature_residual_celsius: 1.5,
//               require_both: true, inspection_seconds: 600}
//   telemetry: {sample_seconds: 60, noise_celsius: 0.5, ecc_per_hour: 1,
//               degradation_lead_seconds: 1800, precursor_fraction: 0.7,
//               degraded_ecc_per_hour: 60,
//               degraded_extra_celsius: 6, bursts_per_device_hour: 0.01, burst_seconds: 900,
//               burst_ecc_per_hour: 40, burst_extra_celsius: 4}
//
// Errors name the file, line and column, and for unknown keys, kinds, devices
// and nodes the closest valid names.
#pragma once

#include <string>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/fault/fault_options.hpp"

namespace hetsched {

// Parses YAML text (`file` names it in errors) into enabled FaultOptions.
FaultOptions parse_fault_yaml(const std::string& text, const std::string& file,
                              const Cluster& cluster);
FaultOptions load_fault_file(const std::string& path, const Cluster& cluster);

}  // namespace hetsched
