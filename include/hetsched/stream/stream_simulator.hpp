// The stream simulator: a deterministic discrete-event simulation (hetsched::EventQueue)
// of a job stream on a StreamCluster under a StreamPolicy. Jobs are validated at
// submission (a gang larger than any type that can run it, or a device type the
// cluster lacks, is rejected with a reason and never blocks the queue). Gangs are
// placed preferring one node, then one rack, then anywhere (best fit). Round-mode
// policies are carried out in rounds; a job moved to other devices pays
// `migration_seconds` of checkpoint/restart.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "hetsched/stream/stream_job.hpp"
#include "hetsched/stream/stream_policy.hpp"

namespace hetsched {

struct StreamSimOptions {
  double round_seconds = 360;
  double migration_seconds = 30;
  bool easy_backfilling = false;  // queue-mode policies only
  // Round mode: a job's priority on the type it ran on last round is multiplied by
  // this, so that jobs move less often (each move costs migration_seconds).
  double stay_bonus = 3.0;
  // Round mode: devices the allocation leaves idle in a round go to jobs left out of
  // it (heaviest first by the policy's weight, then least attained service), each on
  // the type where it progresses most this round (work conservation).
  bool backfill_idle_devices = true;
  // Round mode, space sharing (Gavel's space-sharing variant): a single-device job
  // left without devices this round may share a device with a single-device job
  // that has one, when the workload has their measured co-located rates and the
  // guest's weighted normalised gain exceeds the host's weighted loss (weights from
  // the policy's allocation, 1 when it gives none). Both then run at their
  // co-located rates for the round.
  bool space_sharing = false;
  // Jobs whose index lies in [measure_first, measure_last) are measured; the run
  // stops once they have all finished (or everything has).
  std::size_t measure_first = 0;
  std::size_t measure_last = std::numeric_limits<std::size_t>::max();
  std::function<void(std::size_t, std::size_t)> progress;
};

struct StreamJobOutcome {
  std::string name;
  double arrival_seconds = 0;
  double first_start_seconds = -1;
  double finish_seconds = -1;
  double reserved_start_seconds = -1;  // EASY: the first reservation made for it
  bool rejected = false;
  std::string rejection_reason;
  int migrations = 0;
  double device_seconds = 0;
  double cost_usd = 0;
  bool slo_violated = false;
  bool spread_over_nodes = false;    // some run had its gang on more than one node
  std::vector<int> placement_nodes;  // nodes of its first placement (node ids)
  // Its first placement, for fractional GPUs and CPU cores: the shared-device slot
  // on its node (-1: whole devices), the share of a device it held, its CPU cores.
  int shared_device = -1;
  double device_share = 1;
  std::vector<int> cpu_core_set;
};

struct StreamReport {
  std::string policy;
  std::vector<StreamJobOutcome> jobs;
  std::size_t measured_jobs = 0;
  std::size_t finished_measured = 0;
  std::size_t rejected = 0;
  double average_jct_seconds = 0;
  double p50_jct_seconds = 0, p95_jct_seconds = 0, p99_jct_seconds = 0;
  double average_wait_seconds = 0;
  double makespan_seconds = 0;  // last finish of a measured job minus first arrival
  std::vector<std::string> type_names;
  std::vector<double> utilisation;  // busy device-seconds / (devices * makespan), per type
  double jain_fairness = 0;         // Jain's index over measured jobs' slowdown^-1
  // Finish-time fairness (Themis, Mahajan et al., NSDI 2020): rho = JCT / isolated
  // JCT, where the isolated JCT is the time the job would take on its equal 1/N share
  // of the cluster (N = jobs present when it arrived, itself included; its share of
  // time spread over the types it can use in proportion to their size, as in the
  // agnostic equal share). rho <= 1: the job did no worse than on its own share.
  double ftf_rho_average = 0;
  double ftf_rho_max = 0;
  double ftf_unfair_fraction = 0;    // share of measured jobs with rho > 1
  double jain_fairness_ftf = 0;      // Jain's index over measured jobs' rho^-1
  std::size_t colocated_rounds = 0;  // job-rounds run sharing a device
  std::size_t slo_violations = 0;
  double cost_usd = 0;
  std::size_t rounds = 0;
  std::size_t allocations = 0;
  std::size_t fallbacks = 0;
  std::string first_fallback_note;
  double wall_seconds = 0;
};

StreamReport simulate_stream(const StreamWorkload& workload, StreamPolicy& policy,
                             const StreamSimOptions& options, std::string policy_name = "");

// The same under a fresh policy of the stream registry, by name (InputError if unknown).
StreamReport simulate_stream(const StreamWorkload& workload, const std::string& policy_name,
                             const StreamSimOptions& options = {});

}  // namespace hetsched
