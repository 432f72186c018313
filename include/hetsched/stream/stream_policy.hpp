// StreamPolicy: who gets devices in a job stream. Two modes:
//  - queue: jobs wait in an order the policy defines (FIFO, SJF, EDF, priority,
//    fair share) and run to completion once their whole gang is free; optionally
//    with EASY backfilling. Decided at every arrival and completion.
//  - round: time is cut into rounds (Gavel: 6 minutes); each round the policy gives
//    a time-fraction allocation x[job][type] and the simulator runs, per round, the
//    jobs that have received the least of their allocation so far (preemptive).
// Adding a policy = one file in src/stream/ + one line in stream_policy_list.inc.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/stream/allocation_lp.hpp"

namespace hetsched {

enum class StreamPolicyMode { queue, round };

struct StreamJobView {
  std::size_t job = 0;                        // index in the workload
  const std::vector<double>* rate = nullptr;  // steps/s per type (consolidated)
  int gang_size = 1;
  double priority_weight = 1;
  double arrival_seconds = 0;
  double total_steps = 0;
  double remaining_steps = 0;
  double deadline_seconds = -1;  // -1 = none
  double attained_device_seconds = 0;
  std::size_t user = 0;
};

struct StreamPolicyContext {
  double now = 0;
  std::vector<double> capacity;              // devices per type
  std::vector<double> price_per_hour;        // per type
  std::vector<double> user_running_devices;  // devices held now, per user
};

class StreamPolicy {
 public:
  virtual ~StreamPolicy() = default;
  virtual StreamPolicyMode mode() const = 0;
  // queue mode: smaller keys are served first (ties by arrival, then index).
  virtual double queue_key(const StreamJobView& job, const StreamPolicyContext& context) const;
  // queue mode: the positions in `jobs` in the order they are served — by queue_key,
  // then arrival, then job index. The simulator and the service both queue by it.
  std::vector<std::size_t> queue_order(std::span<const StreamJobView> jobs,
                                       const StreamPolicyContext& context) const;
  // round mode: true when the allocation depends on progress and must be
  // recomputed every round, not only when jobs arrive or finish.
  virtual bool reallocate_every_round() const { return false; }
  // round mode: whether devices the allocation leaves idle in a round may go to jobs
  // left out of it (StreamSimOptions::backfill_idle_devices). A policy that idles
  // devices on purpose (least cost) says no.
  virtual bool work_conserving() const { return true; }
  virtual AllocationResult allocate(const std::vector<StreamJobView>& jobs,
                                    const StreamPolicyContext& context);
};

struct StreamPolicyInfo {
  std::string_view name;
  std::string_view summary;
  std::unique_ptr<StreamPolicy> (*make)();
};

const std::vector<StreamPolicyInfo>& stream_policy_registry();
std::vector<std::string> stream_policy_names();
// Throws InputError with the closest names when unknown.
std::unique_ptr<StreamPolicy> make_stream_policy(std::string_view name);
bool is_stream_policy(std::string_view name);

}  // namespace hetsched
