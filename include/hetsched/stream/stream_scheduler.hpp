// StreamScheduler: the one job-stream core. Every body that runs gang jobs — the stream
// simulator (`hetsched simulate` on a `kind: stream` workload) and the service (`hetsched
// serve`, stream jobs submitted over REST) — keeps its jobs here and asks it, on its own
// clock, what to start: queue ordering by the StreamPolicy, EASY reservations, Gavel-style
// rounds with migration cost, backfilling of idle devices and space sharing, gang
// placement (pack: one node; spread: one node, then one rack, then anywhere),
// fractional GPUs (milli-GPU shares or MIG-like slices), CPU and memory asked of a node,
// and the device placement rules (the default, best fit, fragmentation-aware after FGD)
// over one resource view of nodes, built from a job-stream cluster, a real Cluster or
// the Alibaba GPU trace's nodes (gpu_share_placement.hpp). The body carries decisions out
// (an event queue, or launches on a cluster engine) and reports back what ended.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hetsched/stream/gang_placement.hpp"
#include "hetsched/stream/gpu_fragmentation.hpp"
#include "hetsched/stream/stream_job.hpp"
#include "hetsched/stream/stream_policy.hpp"

namespace hetsched {

class Cluster;

// One node's devices of one type (a real node with two models is two of these).
struct StreamNode {
  std::size_t type = 0;  // index into StreamResources::types
  int rack = 0;
  int devices = 0;
  int cpu_cores = 0;  // 0: CPU cores not modelled
  // The Cluster node it stands for (resources built from a Cluster), else its index.
  std::uint32_t cluster_node = 0;
  std::string name;  // the Cluster node's name, or "<model>-<i>" (i-th node of its type)
  // CPU (thousandths of a core) and memory (MiB) jobs may request from the node
  // (StreamJob::cpu_milli, memory_mib); 0 = not modelled (any request fits).
  double cpu_milli = 0;
  double memory_mib = 0;
};

// What the scheduler places on: device types (count, price, memory, slices) and nodes.
struct StreamResources {
  std::vector<StreamDeviceType> types;
  std::vector<StreamNode> nodes;
};

// Nodes of `devices_per_node` devices per type, grouped in racks, as a job-stream
// cluster describes them.
StreamResources stream_resources(const StreamCluster& cluster);
// One type per device model of a real cluster (in device order), one StreamNode per
// node and model, racks from the cluster, prices and memory from the datasheets.
StreamResources stream_resources(const Cluster& cluster);

// Which node, and which shared device, a job gets (StreamSchedulerOptions).
enum class DevicePlacement { most_free_type, best_fit, fragmentation_aware };
// Their names on the command line: most-free-type, best-fit, fragmentation-aware.
const std::vector<std::string>& device_placement_names();
// The rule of that name; nullopt for another.
std::optional<DevicePlacement> device_placement_named(std::string_view name);

struct StreamSchedulerOptions {
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
  // guest's weighted normalised gain exceeds the host's weighted loss.
  bool space_sharing = false;
  // Spread: a gang that fits no node may spread over a rack, then anywhere (it then
  // runs at its spread rate). Pack (one_node): a gang waits for one node with room,
  // as an engine that launches a task on one node needs.
  GangSpread gang_spread = GangSpread::racks_then_anywhere;
  // Which node and device a job gets:
  //  - most_free_type: queue mode takes the type with the most free devices; a gang
  //    is placed by gang_placement.hpp, a fraction on the opened device it fills most
  //    (else a free device of the fullest node);
  //  - best_fit: the node, of any type the job can run on, left with the least free
  //    GPU capacity (a fraction: on its device with the least free), ties to the node
  //    with the least free GPU capacity now, then the least free CPU;
  //  - fragmentation_aware: the node and device whose choice least increases the node's
  //    GPU fragmentation (FGD, gpu_fragmentation.hpp), ties as best fit.
  // The last two keep a gang in one node when one has room; a gang spreads (when
  // allowed) only when none has.
  DevicePlacement device_placement = DevicePlacement::most_free_type;
  // fragmentation_aware: the requests expected (FGD's target workload); empty: those
  // of the jobs submitted so far.
  std::vector<GpuRequestClass> request_mix;
  // Queue mode: true holds the jobs behind the first that does not fit (the batch
  // schedulers' way; EASY backfilling may let some start); false lets any job that
  // fits start, in the policy's order, while those that do not wait aside with no
  // reservation (Kubernetes' way with unschedulable pods).
  bool strict_order = true;
};

// Free GPU capacity of the nodes, in milli-GPUs, and the part of it FGD counts as
// fragmented for the request mix (StreamScheduler::gpu_capacity).
struct GpuCapacity {
  double free_milli = 0;
  double fragmented_milli = 0;
};

// Where a job runs: devices taken per node (node indices of the resources), and for a
// fractional job the shared-device slot on its node; its CPU core set.
struct StreamPlacement {
  std::size_t type = 0;
  GangPlacement nodes;     // (node, devices taken); a fraction takes 0 whole devices
  int shared_device = -1;  // slot of the device it shares on its node; -1: whole devices
  std::vector<int> cores;
};

enum class StreamJobState { rejected, waiting, running, finished };

// A job as the scheduler holds it.
struct StreamJobStatus {
  StreamJob job;
  StreamJobState state = StreamJobState::waiting;
  std::string rejection_reason;
  double arrival_seconds = 0;
  std::vector<double> rate;      // steps/s per type, gang in one node (times its share)
  std::vector<double> spread;    // per type, gang over nodes
  std::vector<double> share;     // share of a device's compute per type (1: whole devices)
  std::vector<int> share_units;  // units taken on one device per type (0: whole devices)
  bool plain = true;             // whole devices, nothing asked of the node: placed by counts only
  double best_rate = 0;
  std::size_t user = 0;
  double remaining = 0;          // steps
  double attained = 0;           // device-seconds received
  std::vector<double> received;  // seconds run per type
  int type = -1;                 // type of the current or last placement
  StreamPlacement placement;     // current placement (empty nodes: none)
  bool ran_before = false;
  double run_start = 0;                // queue mode: when the current run began
  double finish_seconds = 0;           // queue mode: its known finish time while running
  double reserved_start_seconds = -1;  // EASY: the first reservation made for it
};

// Queue mode: a job started now, to run to completion.
struct StreamStart {
  std::size_t job = 0;
  StreamPlacement placement;
  double rate = 0;
  double seconds = 0;         // how long it runs
  double finish_seconds = 0;  // the time it starts plus seconds
};

// Round mode: what a job does in this round.
struct StreamSegment {
  std::size_t job = 0;
  StreamPlacement placement;
  double start_seconds = 0;
  double seconds = 0;      // how long it runs: the round, or until it finishes
  double end_seconds = 0;  // start_seconds + seconds
  bool finishes = false;
  bool moved = false;       // paid the migration (checkpoint/restart) time
  bool colocated = false;   // shares its device with another job (space sharing)
  double device_share = 1;  // share of each of its devices it used
};

class StreamScheduler {
 public:
  StreamScheduler(StreamResources resources, StreamPolicy& policy, StreamSchedulerOptions options,
                  const StreamColocationTable& colocation = {});

  const StreamResources& resources() const { return resources_; }
  StreamPolicyMode mode() const;

  // Adds a job that arrives at `arrival_seconds` and returns its index. A job no type
  // can hold is kept as rejected, with the reason, and never blocks the queue.
  std::size_t submit(const StreamJob& job, double arrival_seconds);
  const StreamJobStatus& job(std::size_t j) const { return jobs_[j]; }
  // Jobs waiting or running (queue mode) or arrived and unfinished (round mode).
  std::size_t jobs_present() const;

  // Queue mode: starts the jobs the policy's order lets start at `now`.
  std::vector<StreamStart> schedule(double now);
  // Queue mode: a running job ended at `now`; its devices are free again.
  void finish(std::size_t j, double now);
  // A running job lost its devices (node failure). Queue mode: it waits again with the
  // work it had left when it started (a run to completion keeps no checkpoint). Round
  // mode: the round it was given is undone (its progress, and its finish if the round
  // finished it); it takes part in the next round.
  void requeue(std::size_t j, double now);
  // A job leaves (cancelled): its devices, if it holds any, are free again.
  void withdraw(std::size_t j, double now);
  // A job already running on known resources (a restarted service reconciling with
  // its engine); queue mode. False when they are not free.
  bool adopt(std::size_t j, const StreamPlacement& placement, double started_seconds, double now);

  // Round mode: decides and runs the round that begins at `now`.
  std::vector<StreamSegment> run_round(double now);
  // Round mode: the steps job j does in the round it was last given.
  double last_round_steps(std::size_t j) const { return last_round_[j].steps; }
  // Round mode: the first round boundary at or after `seconds` (rounds start at
  // multiples of the round length), when a job arrives and no round is pending.
  double round_boundary_from(double seconds) const {
    return std::ceil(seconds / options_.round_seconds) * options_.round_seconds;
  }
  // Round mode: whether a round is due (jobs present).
  bool round_pending() const { return !active_.empty(); }

  // Devices of a node held by something the scheduler does not know about (another
  // scheduler's jobs, a node down): they are not free. Replaces the last count.
  void set_unavailable(std::size_t node, int devices);
  // More resources: `larger` holds the current ones as a prefix (types and nodes of a
  // cluster that only grows) and adds nodes, and types, after them. Jobs present get
  // their rates on the new types.
  void grow(const StreamResources& larger);

  // The nodes' free GPU capacity and its fragmentation for the request mix (the
  // expected one, or that of the jobs submitted so far).
  GpuCapacity gpu_capacity() const;

  std::size_t rounds() const { return rounds_; }
  std::size_t allocations() const { return allocations_; }
  std::size_t fallbacks() const { return fallbacks_; }
  const std::string& first_fallback_note() const { return first_fallback_note_; }
  std::size_t colocated_rounds() const { return colocated_rounds_; }

 private:
  struct NodeState {
    int free = 0;         // devices held by no one (whole, not opened for fractions)
    int unavailable = 0;  // held outside the scheduler
    // Devices opened for fractional jobs, by slot: units held and memory held, GB.
    std::vector<int> units_used;
    std::vector<double> memory_used;
    std::vector<char> core_busy;
    double cpu_milli_left = 0, memory_mib_left = 0;  // host resources not requested
  };
  // A one-node placement the scored rules found, and how it ranks.
  struct ScoredPlacement {
    StreamPlacement placement;
    double score = 0;  // best fit: free GPU capacity left; FGD: growth of fragmentation
    double tie = 0;    // the node's free GPU capacity, then its free CPU
  };

  // Types and nodes of `larger` beyond those held (counts of held types updated).
  void append_resources(const StreamResources& larger);
  void reject(std::size_t j, std::string reason);
  // Job j's rates on type k (0 when it cannot run there), its share of a device there
  // and the units it takes; "" when the type can hold it, else why not.
  std::string fit_type(std::size_t j, std::size_t k, const std::vector<int>& room);
  // Per type: the largest gang it can hold (kept as nodes are added).
  const std::vector<int>& gang_room() const { return gang_room_; }
  std::optional<StreamPlacement> place_job(std::size_t j, std::size_t type) const;
  std::optional<GangPlacement> place_whole(std::size_t type, int gang) const;
  // best_fit / fragmentation_aware: the best one-node placement on a type whose entry
  // in `type_free` is not negative (every type when it is empty), or on `only_type`.
  std::optional<ScoredPlacement> place_scored(std::size_t j, int only_type,
                                              std::span<const int> type_free) const;
  bool host_fits(std::size_t j, std::size_t n) const;
  // The free milli-GPUs of node n's devices (fully free and opened ones).
  void node_free_milli(std::size_t n, std::vector<int>& free) const;
  int node_free_total(std::size_t n) const;  // their sum
  const GpuFragmentation& fragmentation() const;
  void touched(std::size_t node);                // node n's devices changed hands
  void add_free(std::size_t node, int devices);  // node n's free whole devices change
  void add_running(std::size_t j);  // queue mode: job j started (or was adopted running)
  void take(std::size_t j, const StreamPlacement& placement, int sign);
  bool can_retake(std::size_t j, const StreamPlacement& placement) const;
  int units_per_device(std::size_t type) const;
  int budget_need(std::size_t j, std::size_t type) const;
  double rate_on(std::size_t j, std::size_t type, const GangPlacement& nodes) const;
  StreamJobView view(std::size_t j) const;
  StreamPolicyContext context(double now) const;
  void account(std::size_t j, std::size_t type, double seconds, double device_share);
  void reset_nodes();
  // Queue mode: the type job j starts on now (-1: none) and, when the choice found it,
  // its placement there.
  struct TypeChoice {
    int type = -1;
    std::optional<StreamPlacement> placement;
  };
  TypeChoice agnostic_type_with_room(std::size_t j, const std::vector<int>& free) const;
  StreamStart start_now(std::size_t j, const TypeChoice& choice, double now);
  // Queue mode: a running job's devices are free again and its run is counted.
  void stop_running(std::size_t j, double now);
  void build_colocation(const StreamColocationTable& table);
  const std::pair<double, double>* colocated(std::size_t host, std::size_t guest,
                                             std::size_t type) const;
  std::vector<std::pair<std::size_t, std::size_t>> pair_guests(
      const std::vector<std::size_t>& chosen, const std::vector<int>& chosen_type,
      const std::vector<StreamPlacement>& placement) const;
  void backfill_idle(std::vector<std::size_t>& chosen, std::vector<int>& chosen_type,
                     std::vector<int>& budget) const;
  std::vector<double> job_weights() const;

  // One round's choices, built by its phases (run_round).
  struct RoundPlan {
    std::vector<std::size_t> chosen;         // the jobs that run, in the order they were chosen
    std::vector<int> chosen_type;            // per job: the type it runs on, -1 when not chosen
    std::vector<StreamPlacement> placement;  // per chosen job
    std::vector<bool> moved;                 // per chosen job: it migrates this round
    std::vector<double> colocated_rate;      // per chosen job: its rate when sharing, else 0
  };
  void refresh_allocation(const StreamPolicyContext& ctx);
  RoundPlan choose_round_jobs(double now);
  void place_round_jobs(RoundPlan& plan);
  void add_colocated_guests(RoundPlan& plan);
  std::vector<StreamSegment> run_round_jobs(const RoundPlan& plan, double now);

  StreamResources resources_;
  StreamPolicy& policy_;
  StreamSchedulerOptions options_;
  std::vector<NodeState> nodes_;
  std::vector<std::vector<int>> nodes_of_type_;
  // Per type, its nodes by their free whole devices (none or fewer: 0), in node order: the
  // fullest node where a gang fits is found without a scan of the type's nodes.
  std::vector<std::vector<std::set<int>>> nodes_by_free_;
  mutable std::vector<GangNodeRoom> rooms_;  // scratch of place_whole()
  std::vector<int> free_by_type_;
  // Per type: the most CPU (milli) and memory (MiB) one of its nodes has; infinite when
  // some node does not model it.
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();
  std::vector<std::pair<double, double>> largest_host_;
  std::vector<StreamJobStatus> jobs_;
  std::vector<std::string> users_;
  std::vector<double> user_devices_;
  std::vector<std::size_t> waiting_;           // queue mode
  std::vector<std::size_t> running_;           // queue mode, in no particular order
  std::vector<std::size_t> running_position_;  // per job: where in running_, while running
  std::vector<int> gang_room_;
  std::vector<std::size_t> active_;  // round mode: arrived, unfinished jobs
  bool allocation_dirty_ = true;
  AllocationResult allocation_;
  std::vector<std::size_t> allocation_jobs_;
  std::size_t rounds_ = 0, allocations_ = 0, fallbacks_ = 0, colocated_rounds_ = 0;
  std::string first_fallback_note_;
  // Co-location rates, dense: [(host type * types + guest type) * device types + k].
  std::map<std::string, int> colocation_index_;
  std::size_t colocation_types_ = 0;
  std::vector<std::pair<double, double>> colocation_;
  std::vector<int> colocation_type_;  // per job: index into the table, -1: none
  // Round mode, per job: what its last round gave it (undone by requeue).
  struct RoundCredit {
    std::size_t round = 0;
    std::size_t type = 0;
    double steps = 0, seconds = 0, device_share = 1;
  };
  std::vector<RoundCredit> last_round_;
  // Queue mode without strict order: resources are released in epochs; a job that did
  // not fit in the current epoch cannot fit until the next (placement is monotone).
  std::uint64_t free_epoch_ = 0;
  std::vector<std::uint64_t> unfit_epoch_;  // per job; max: not tried since a release
  // Fragmentation: the mix (fixed, or counted from submissions), per node cached.
  mutable GpuFragmentation fragmentation_;
  mutable bool mix_dirty_ = true;
  std::map<std::pair<int, int>, double> request_counts_;
  mutable std::vector<double> node_fragmentation_;  // NaN: stale
  mutable std::vector<int> free_scratch_;
};

}  // namespace hetsched
