// EtcdStateStore: the service's state in etcd, replicated by Raft across the
// cluster's members, for a highly available `hetsched serve`. Every key lives under
// a namespace prefix ("/hetsched/" by default). A write that returns has been
// committed by a quorum; etcd's failures come out as StateStoreError.
//
// Writes are sized to what etcd accepts: one request carries at most
// `max_request_bytes` of keys and values (etcd's --max-request-bytes, 1.5 MiB by
// default) and `max_txn_ops` operations (--max-txn-ops, 128 by default). put() writes
// its records in one transaction when they fit one (all or none), and otherwise in
// several, in order. A value too large for one request is staged as chunks under
// "~chunks/<key>\0<generation>/" first; the record's own key, written after them, then
// names that generation, so a reader sees the old value or the whole new one, never a
// part (stage, then flip the one key). Older generations are deleted after the flip.
// list() is one range read over [prefix, prefix_end) with chunked values put together;
// reserve_sequence() is a compare-and-swap loop on the counter's
// mod_revision, so two replicas racing never get overlapping values.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "hetsched/service/etcd_client.hpp"
#include "hetsched/service/state_store.hpp"

namespace hetsched {

struct EtcdStoreLimits {
  std::size_t max_request_bytes = 1536 * 1024;  // etcd's --max-request-bytes
  std::size_t max_txn_ops = 128;                // etcd's --max-txn-ops
};

class EtcdStateStore final : public StateStore {
 public:
  EtcdStateStore(std::shared_ptr<EtcdClient> client, std::string key_prefix = "/hetsched/",
                 EtcdStoreLimits limits = {});

  std::string_view name() const override { return "etcd"; }
  void put(std::span<const StoredRecord> records) override;
  std::optional<std::string> get(std::string_view key) override;
  std::vector<StoredRecord> list(std::string_view prefix) override;
  void erase(std::string_view key) override;
  std::uint64_t reserve_sequence(std::string_view counter, std::uint64_t count) override;

  EtcdClient& client() { return *client_; }

 private:
  std::uint64_t next_sequence_in_etcd(std::string_view counter, std::uint64_t count);
  std::string full_key(std::string_view key) const { return key_prefix_ + std::string(key); }
  std::string chunk_prefix(std::string_view key) const;
  // The value a stored one stands for: itself, or its chunks put together.
  std::string whole_value(std::string_view key, std::string value);
  // Sends the operations in as few transactions as the limits allow, in order.
  void send_in_batches(const std::vector<EtcdOperation>& operations);
  std::size_t chunk_bytes() const;

  std::shared_ptr<EtcdClient> client_;
  std::string key_prefix_;
  EtcdStoreLimits limits_;
};

}  // namespace hetsched
