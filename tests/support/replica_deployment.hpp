// ReplicaDeployment: several `hetsched serve` replicas sharing one etcd state
// (--state etcd://...), for the failover benchmark and the kill -9 tests. One leads
// (elected through etcd); kill_leader() sends SIGKILL to whichever leads now, and
// the survivors elect a new leader by themselves (recover() has nothing to do).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "support/serve_process.hpp"
#include "support/service_deployment.hpp"

namespace hetsched {

class ReplicaDeployment final : public ServiceDeployment {
 public:
  // serve_arguments: the serve flags besides --listen; they must name an etcd state.
  // Starts `replicas` servers and waits (bounded) until one of them leads.
  ReplicaDeployment(std::string cli_path, std::vector<std::string> serve_arguments,
                    std::string token, std::size_t replicas = 3);
  ~ReplicaDeployment() override;

  std::string failover_mode() const override { return "replica"; }
  // Live replicas, the one that says it leads first.
  std::vector<std::string> addresses() const override;
  std::string token() const override { return token_; }
  void kill_leader() override;
  void recover() override {}

  // The address of the replica that answers /healthz with "leader": true, or "".
  std::string leader_address() const;
  // Waits until some live replica leads; returns its address ("" on timeout).
  std::string wait_for_leader(std::chrono::milliseconds timeout) const;
  std::size_t live_replicas() const { return replicas_.size(); }

 private:
  std::string token_;
  std::vector<std::unique_ptr<ServeProcess>> replicas_;
};

}  // namespace hetsched
