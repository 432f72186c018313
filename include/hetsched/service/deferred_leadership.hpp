// DeferredLeadership: leadership as the REST layer of a `hetsched serve` replica
// should see it. The real Leadership (EtcdLeaderElection, or SoleLeader) can only be
// made once the server knows its own address (after binding the port), and a
// replica that has just won the election must not take writes before its control
// plane has reloaded the state the previous leader left. So: set() the real one
// when it exists, open() once the control plane has started; until then the
// replica answers as a follower (and names no leader when the leader is itself).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "hetsched/service/leadership.hpp"

namespace hetsched {

class DeferredLeadership final : public Leadership {
 public:
  // Call once, before open().
  void set(std::unique_ptr<Leadership> inner) {
    inner_ = std::move(inner);
    ready_.store(inner_.get(), std::memory_order_release);
  }
  void open() { open_.store(true, std::memory_order_release); }

  // The real leadership, for the serve loop (whether to start, or to step down).
  Leadership* inner() const { return ready_.load(std::memory_order_acquire); }

  bool is_leader() const override {
    const Leadership* inner = this->inner();
    return inner && open_.load(std::memory_order_acquire) && inner->is_leader();
  }
  std::optional<std::string> leader_address() const override {
    const Leadership* inner = this->inner();
    if (!inner) return std::nullopt;
    if (inner->is_leader() && !open_.load(std::memory_order_acquire)) return std::nullopt;
    return inner->leader_address();
  }

 private:
  std::unique_ptr<Leadership> inner_;
  std::atomic<Leadership*> ready_{nullptr};
  std::atomic<bool> open_{false};
};

}  // namespace hetsched
