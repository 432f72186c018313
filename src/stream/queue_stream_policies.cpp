// The queue-mode stream policies, the classic batch-scheduler orders (as in Slurm
// and the surveys of Feitelson et al.): FIFO, shortest job first, earliest deadline
// first, priority by weight, and fair share across users (the user holding the
// fewest devices goes first). Jobs run to completion once their whole gang is free;
// the simulator adds EASY backfilling (Lifka 1995) on top when asked.
#include <algorithm>
#include <limits>

#include "hetsched/stream/stream_policy.hpp"

namespace hetsched {
namespace {

class QueuePolicy : public StreamPolicy {
 public:
  StreamPolicyMode mode() const override { return StreamPolicyMode::queue; }
};

class FifoPolicy final : public QueuePolicy {};

class ShortestJobFirstPolicy final : public QueuePolicy {
 public:
  double queue_key(const StreamJobView& job, const StreamPolicyContext&) const override {
    const double best = *std::max_element(job.rate->begin(), job.rate->end());
    return best > 0 ? job.total_steps / best : std::numeric_limits<double>::max();
  }
};

class EarliestDeadlineFirstPolicy final : public QueuePolicy {
 public:
  double queue_key(const StreamJobView& job, const StreamPolicyContext&) const override {
    // Jobs without a deadline come after every deadline, in arrival order.
    return job.deadline_seconds >= 0 ? job.deadline_seconds : 1e300 + job.arrival_seconds;
  }
};

class PriorityPolicy final : public QueuePolicy {
 public:
  double queue_key(const StreamJobView& job, const StreamPolicyContext&) const override {
    return -job.priority_weight;
  }
};

class FairSharePolicy final : public QueuePolicy {
 public:
  double queue_key(const StreamJobView& job, const StreamPolicyContext& context) const override {
    return context.user_running_devices[job.user];
  }
};

}  // namespace

std::unique_ptr<StreamPolicy> make_fifo_stream_policy() { return std::make_unique<FifoPolicy>(); }
std::unique_ptr<StreamPolicy> make_sjf_stream_policy() {
  return std::make_unique<ShortestJobFirstPolicy>();
}
std::unique_ptr<StreamPolicy> make_edf_stream_policy() {
  return std::make_unique<EarliestDeadlineFirstPolicy>();
}
std::unique_ptr<StreamPolicy> make_priority_stream_policy() {
  return std::make_unique<PriorityPolicy>();
}
std::unique_ptr<StreamPolicy> make_fair_share_stream_policy() {
  return std::make_unique<FairSharePolicy>();
}

}  // namespace hetsched
