// EtcdLeaderElection: one leader among the `hetsched serve` replicas that share an
// etcd cluster, after etcd's own election recipe (clientv3/concurrency). Each
// replica holds a lease with a short TTL, renewed by a keepalive thread. To lead, a
// replica runs the transaction "if create_revision(key) == 0 then put(key, my
// address, my lease)": exactly one wins. The key disappears with its lease, so when
// the leader dies (no more keepalives) or resigns (revokes its lease), the key is
// gone within the TTL and the next follower to poll takes over. Followers read the
// key for the leader's address. A leader that cannot renew its lease before the TTL
// runs out stops calling itself leader, so two replicas never both act as leader
// for longer than the clock skew between them. A follower names the leader only while
// the leader answers (options.probe_leader).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "hetsched/service/etcd_client.hpp"
#include "hetsched/service/leadership.hpp"

namespace hetsched {

struct EtcdLeaderElectionOptions {
  std::string election_key = "/hetsched/leader";
  std::int64_t lease_ttl_seconds = 2;
  std::chrono::milliseconds poll_interval{200};  // followers' campaign/read period
  // Followers ask the leader they read for GET /healthz at each poll: one that does not
  // answer (it died, and its lease has not run out yet) is not named as leader, so
  // clients get "no leader known, retry" rather than a redirect to a dead address.
  bool probe_leader = true;
};

class EtcdLeaderElection final : public Leadership {
 public:
  // Starts campaigning at once (a background thread); my_address is what followers
  // are told (http://host:port).
  EtcdLeaderElection(std::vector<std::string> endpoints, std::string my_address,
                     EtcdLeaderElectionOptions options = {});
  ~EtcdLeaderElection() override;  // resigns

  bool is_leader() const override;
  std::optional<std::string> leader_address() const override;
  const std::string& my_address() const { return my_address_; }

  // Gives leadership up now: stops campaigning and revokes the lease, so a follower
  // takes over at its next poll.
  void resign();
  // Stops campaigning and keepalives without revoking, as a crashed replica would;
  // the lease then expires after its TTL.
  void abandon();
  // Blocks until this replica leads or the timeout passes; returns is_leader().
  bool wait_for_leadership(std::chrono::milliseconds timeout) const;

 private:
  using Clock = std::chrono::steady_clock;
  void run();
  void step();
  void stop(bool revoke);
  bool leader_answers(const std::string& address) const;

  std::unique_ptr<EtcdClient> client_;
  std::string my_address_;
  EtcdLeaderElectionOptions options_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  std::int64_t lease_id_ = 0;
  Clock::time_point lease_valid_until_{};
  bool leading_ = false;
  std::optional<std::string> leader_address_;
  std::thread thread_;
};

}  // namespace hetsched
