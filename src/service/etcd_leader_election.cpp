// EtcdLeaderElection: lease + create-revision transaction (see the header). One
// background thread does everything: renew the lease (or get a new one when it has
// expired), try to take the election key, and otherwise read who holds it.
#include "etcd_leader_election.hpp"

#include <httplib.h>

#include <algorithm>

namespace hetsched {

EtcdLeaderElection::EtcdLeaderElection(std::vector<std::string> endpoints, std::string my_address,
                                       EtcdLeaderElectionOptions options)
    : my_address_(std::move(my_address)), options_(std::move(options)) {
  // Requests must give up well within the lease's lifetime.
  EtcdClientOptions client_options;
  client_options.request_timeout =
      std::min(client_options.request_timeout,
               std::chrono::milliseconds(options_.lease_ttl_seconds * 1000 / 3));
  client_options.connect_timeout =
      std::min(client_options.connect_timeout, client_options.request_timeout);
  client_ = std::make_unique<EtcdClient>(std::move(endpoints), client_options);
  thread_ = std::thread([this] { run(); });
}

EtcdLeaderElection::~EtcdLeaderElection() { stop(true); }

bool EtcdLeaderElection::is_leader() const {
  std::lock_guard lock(mutex_);
  return leading_ && Clock::now() < lease_valid_until_;
}

std::optional<std::string> EtcdLeaderElection::leader_address() const {
  std::lock_guard lock(mutex_);
  if (leading_ && Clock::now() < lease_valid_until_) return my_address_;
  return leader_address_;
}

bool EtcdLeaderElection::wait_for_leadership(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  changed_.wait_for(lock, timeout, [this] {
    return stopping_ || (leading_ && Clock::now() < lease_valid_until_);
  });
  return leading_ && Clock::now() < lease_valid_until_;
}

void EtcdLeaderElection::resign() { stop(true); }
void EtcdLeaderElection::abandon() { stop(false); }

void EtcdLeaderElection::stop(bool revoke) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::int64_t lease = 0;
  {
    std::lock_guard lock(mutex_);
    lease = lease_id_;
    leading_ = false;
    lease_id_ = 0;
  }
  if (revoke && lease != 0) {
    try {
      client_->lease_revoke(lease);
    } catch (const std::exception&) {
      // etcd unreachable: the lease expires by itself within its TTL
    }
  }
}

void EtcdLeaderElection::run() {
  while (true) {
    try {
      step();
    } catch (const std::exception&) {
      // etcd unreachable or answering badly: keep the last view; is_leader() turns
      // false by itself once the lease can no longer be known to be alive.
    }
    std::unique_lock lock(mutex_);
    changed_.notify_all();
    if (changed_.wait_for(lock, options_.poll_interval, [this] { return stopping_; })) return;
  }
}

void EtcdLeaderElection::step() {
  std::int64_t lease = 0;
  {
    std::lock_guard lock(mutex_);
    lease = lease_id_;
  }
  const auto asked_at = Clock::now();
  if (lease == 0) {
    lease = client_->lease_grant(options_.lease_ttl_seconds);
    std::lock_guard lock(mutex_);
    lease_id_ = lease;
    lease_valid_until_ = asked_at + std::chrono::seconds(options_.lease_ttl_seconds);
  } else {
    const std::int64_t ttl_left = client_->lease_keepalive(lease);
    std::lock_guard lock(mutex_);
    if (ttl_left <= 0) {  // expired while we could not renew it: start over
      lease_id_ = 0;
      leading_ = false;
      return;
    }
    lease_valid_until_ = asked_at + std::chrono::seconds(ttl_left);
  }

  const std::string& key = options_.election_key;
  const auto result = client_->txn(
      {EtcdCompare{key, EtcdCompare::Target::create_revision, EtcdCompare::Result::equal, 0}},
      {EtcdOperation{EtcdOperation::Kind::put, key, my_address_, lease}},
      {EtcdOperation{EtcdOperation::Kind::range, key}});
  std::unique_lock lock(mutex_);
  if (result.succeeded) {
    leading_ = true;
    leader_address_ = my_address_;
    return;
  }
  if (!result.ranges.empty() && !result.ranges.front().empty()) {
    const EtcdKeyValue& holder = result.ranges.front().front();
    leading_ = holder.lease == lease;
    leader_address_ = holder.value;
  } else {
    leading_ = false;
    leader_address_.reset();
  }
  if (leading_ || !leader_address_ || !options_.probe_leader) return;
  // The holder's lease may outlive it by up to its TTL: ask it whether it serves.
  const std::string address = *leader_address_;
  lock.unlock();
  const bool answers = leader_answers(address);
  lock.lock();
  if (!answers && leader_address_ == address) leader_address_.reset();
}

bool EtcdLeaderElection::leader_answers(const std::string& address) const {
  try {
    httplib::Client client(address);
    const auto limit = std::max(std::chrono::milliseconds(50), options_.poll_interval / 2);
    client.set_connection_timeout(limit);
    client.set_read_timeout(limit);
    const httplib::Result answer = client.Get("/healthz");
    return answer && answer->status == 200;
  } catch (const std::exception&) {
    return false;  // an address httplib cannot use
  }
}

}  // namespace hetsched
