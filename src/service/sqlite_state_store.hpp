// SqliteStateStore: the embedded, single-machine StateStore. One SQLite database
// file in WAL (write-ahead log) mode with synchronous=FULL, so the log is synced to
// disk before a commit returns: a put() that returned survives kill -9 of the
// process (and a power cut, as far as the disk honours fsync). Records live in a
// key/value table, counters in their own table; a put of several records is all or
// nothing. One connection serves every thread of the process, serialised by a mutex.
//
// Group commit: the sync to disk is what a put costs, so puts that arrive while one
// is being written wait and are then written together, in arrival order, in one
// transaction and one sync; each returns once its records are durable (or throws, the
// whole group having been written by none). reserve_sequence() takes its values from a
// block of at least kSequenceBlock reserved durably at once, so ids stay strictly increasing
// across restarts (a restart skips what was left of the block) at one sync per block.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hetsched/service/state_store.hpp"

struct sqlite3;

namespace hetsched {

class SqliteStateStore final : public StateStore {
 public:
  // Opens (creating when missing) the database at `path`; throws StateStoreError
  // when it cannot be opened or is not a hetsched state database.
  explicit SqliteStateStore(const std::string& path);
  ~SqliteStateStore() override;
  SqliteStateStore(const SqliteStateStore&) = delete;
  SqliteStateStore& operator=(const SqliteStateStore&) = delete;

  std::string_view name() const override { return "sqlite"; }
  void put(std::span<const StoredRecord> records) override;
  std::optional<std::string> get(std::string_view key) override;
  std::vector<StoredRecord> list(std::string_view prefix) override;
  void erase(std::string_view key) override;
  std::uint64_t reserve_sequence(std::string_view counter, std::uint64_t count) override;

  const std::string& path() const { return path_; }

  static constexpr std::uint64_t kSequenceBlock = 128;

 private:
  struct CommitGroup;
  void execute(const char* sql);
  void write(const std::vector<StoredRecord>& records);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::mutex mutex_;  // the connection
  // Group commit: the group puts join while another group is being written.
  std::mutex group_mutex_;
  std::condition_variable group_written_;
  std::shared_ptr<CommitGroup> open_group_;
  bool writing_ = false;
  struct SequenceBlock {
    std::uint64_t next = 0, end = 0;  // values [next, end) are reserved and unused
  };
  std::map<std::string, SequenceBlock, std::less<>> sequences_;  // under mutex_
};

}  // namespace hetsched
