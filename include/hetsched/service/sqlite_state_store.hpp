// SqliteStateStore: the embedded, single-machine StateStore. One SQLite database
// file in WAL (write-ahead log) mode with synchronous=FULL, so the log is synced to
// disk before a commit returns: a put() that returned survives kill -9 of the
// process (and a power cut, as far as the disk honours fsync). Records live in a
// key/value table, counters in their own table; every put() and next_sequence()
// is one transaction, so a put of several records is all or nothing. One
// connection serves every thread of the process, serialised by a mutex.
#pragma once

#include <mutex>
#include <string>

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
  std::uint64_t next_sequence(std::string_view counter) override;

  const std::string& path() const { return path_; }

 private:
  void execute(const char* sql);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::mutex mutex_;
};

}  // namespace hetsched
