// EtcdStateStore: the service's state in etcd, replicated by Raft across the
// cluster's members, for a highly available `hetsched serve`. Every key lives under
// a namespace prefix ("/hetsched/" by default). put() writes all its records in one
// transaction (atomic: all or none; at most etcd's --max-txn-ops records, 128 by
// default); list() is one range read over [prefix, prefix_end); next_sequence() is a
// compare-and-swap loop on the counter's mod_revision, so two replicas racing never
// get the same value. A write that returns has been committed by a quorum. etcd's
// failures come out as StateStoreError.
#pragma once

#include <memory>
#include <string>

#include "hetsched/service/etcd_client.hpp"
#include "hetsched/service/state_store.hpp"

namespace hetsched {

class EtcdStateStore final : public StateStore {
 public:
  EtcdStateStore(std::shared_ptr<EtcdClient> client, std::string key_prefix = "/hetsched/");

  std::string_view name() const override { return "etcd"; }
  void put(std::span<const StoredRecord> records) override;
  std::optional<std::string> get(std::string_view key) override;
  std::vector<StoredRecord> list(std::string_view prefix) override;
  void erase(std::string_view key) override;
  std::uint64_t next_sequence(std::string_view counter) override;

  EtcdClient& client() { return *client_; }

 private:
  std::uint64_t next_sequence_in_etcd(std::string_view counter);
  std::string full_key(std::string_view key) const { return key_prefix_ + std::string(key); }

  std::shared_ptr<EtcdClient> client_;
  std::string key_prefix_;
};

}  // namespace hetsched
