// The stream simulator: a deterministic discrete-event simulation (hetsched::EventQueue)
// of a job stream under a StreamPolicy, on the job-stream cluster of its workload or on
// the resources of a real cluster. Every decision is the StreamScheduler's (the core
// the service runs too); the simulator only carries them out in model time — arrivals,
// completions and round boundaries — and measures the outcome.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "hetsched/stream/stream_job.hpp"
#include "hetsched/stream/stream_policy.hpp"
#include "hetsched/stream/stream_scheduler.hpp"

namespace hetsched {

// The scheduler's options (stream_scheduler.hpp) and what the run measures.
struct StreamSimOptions : StreamSchedulerOptions {
  // Jobs whose index lies in [measure_first, measure_last) are measured; the run
  // stops once they have all finished (or everything has).
  std::size_t measure_first = 0;
  std::size_t measure_last = std::numeric_limits<std::size_t>::max();
  std::function<void(std::size_t, std::size_t)> progress;
  // Keep every run of every job (StreamReport::segments), for the report's timeline.
  bool record_segments = false;
};

// A job's run on one node from start to end (a round, or until it finished): the whole
// devices it held there, or the slot of the device it shared.
struct StreamRunSegment {
  std::size_t job = 0;   // index in the workload
  std::size_t node = 0;  // index in StreamResources::nodes
  int devices = 0;       // whole devices; 0 when it held a share of one
  int shared_device = -1;
  double start_seconds = 0;
  double end_seconds = 0;
  bool moved = false;  // it paid the migration time at its start
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
  std::vector<int> placement_nodes;  // nodes of its first placement (resource node indices)
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
  std::vector<StreamRunSegment> segments;  // with StreamSimOptions::record_segments
};

StreamReport simulate_stream(const StreamWorkload& workload, StreamPolicy& policy,
                             const StreamSimOptions& options, std::string policy_name = "");

// The same on other resources than the workload's own cluster (a real Cluster's, see
// stream_resources); the workload's cluster is then not used.
StreamReport simulate_stream(const StreamWorkload& workload, const StreamResources& resources,
                             StreamPolicy& policy, const StreamSimOptions& options,
                             std::string policy_name = "");

// The same under a fresh policy of the stream registry, by name (InputError if unknown).
StreamReport simulate_stream(const StreamWorkload& workload, const std::string& policy_name,
                             const StreamSimOptions& options = {});

}  // namespace hetsched
