// StateStore: where the service keeps everything it has acknowledged (jobs, their
// states and history, registered nodes), as keys and values under prefixes such as
// "jobs/000000000042". A write that returns has been made durable: SQLite in WAL
// mode on one machine (sqlite_state_store), etcd's replicated Raft log for a
// highly available control plane (etcd_state_store). The service never keeps an
// acknowledged fact only in memory.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hetsched {

// The store could not carry out a request (file unwritable, disk full, replica
// unreachable). Nothing of the failed call was made durable.
class StateStoreError : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct StoredRecord {
  std::string key;
  std::string value;
};

class StateStore {
 public:
  virtual ~StateStore() = default;
  virtual std::string_view name() const = 0;

  // Writes every record durably. One record is written all or none; several are written
  // in one atomic step where the store can (SQLite always; etcd when they fit one
  // request), otherwise in order, each record all or none.
  virtual void put(std::span<const StoredRecord> records) = 0;
  virtual std::optional<std::string> get(std::string_view key) = 0;
  // Every record whose key starts with prefix, in key order.
  virtual std::vector<StoredRecord> list(std::string_view prefix) = 0;
  virtual void erase(std::string_view key) = 0;
  // `count` consecutive new values of a named counter (returns the first), each strictly
  // greater than any value it gave out before, also across restarts and replicas (job
  // ids: a submission of n jobs takes n).
  virtual std::uint64_t reserve_sequence(std::string_view counter, std::uint64_t count) = 0;
  std::uint64_t next_sequence(std::string_view counter) { return reserve_sequence(counter, 1); }
};

}  // namespace hetsched
