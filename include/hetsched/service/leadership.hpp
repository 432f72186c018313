// Leadership: which replica of `hetsched serve` may change state. With the embedded
// SQLite store there is one replica and it always leads (SoleLeader); with etcd the
// replicas elect one leader through a lease and a create-revision transaction
// (etcd_leader_election), and followers redirect writes to the leader's address.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace hetsched {

class Leadership {
 public:
  virtual ~Leadership() = default;
  // True while this replica holds leadership; cheap, called on every write.
  virtual bool is_leader() const = 0;
  // The advertised address (http://host:port) of the current leader, if known.
  virtual std::optional<std::string> leader_address() const = 0;
};

class SoleLeader final : public Leadership {
 public:
  explicit SoleLeader(std::string address) : address_(std::move(address)) {}
  bool is_leader() const override { return true; }
  std::optional<std::string> leader_address() const override { return address_; }

 private:
  std::string address_;
};

}  // namespace hetsched
