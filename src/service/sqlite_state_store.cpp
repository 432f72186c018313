#include "sqlite_state_store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <exception>

namespace hetsched {
namespace {

// Finalizes a prepared statement on every path out of a call.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK)
      throw StateStoreError(
          fmt::format("sqlite: cannot prepare '{}': {}", sql, sqlite3_errmsg(db)));
  }
  ~Statement() { sqlite3_finalize(statement_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, std::string_view text) {
    if (sqlite3_bind_text(statement_, index, text.data(), static_cast<int>(text.size()),
                          SQLITE_TRANSIENT) != SQLITE_OK)
      fail("bind");
  }
  void bind_int(int index, std::int64_t value) {
    if (sqlite3_bind_int64(statement_, index, value) != SQLITE_OK) fail("bind");
  }
  void bind_blob(int index, std::string_view bytes) {
    if (sqlite3_bind_blob(statement_, index, bytes.data(), static_cast<int>(bytes.size()),
                          SQLITE_TRANSIENT) != SQLITE_OK)
      fail("bind");
  }
  // True while a row is available.
  bool step() {
    const int rc = sqlite3_step(statement_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail("step");
  }
  void reset() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  std::string column_text(int index) const {
    const void* data = sqlite3_column_blob(statement_, index);
    const int size = sqlite3_column_bytes(statement_, index);
    return data == nullptr ? std::string() : std::string(static_cast<const char*>(data), size);
  }
  std::int64_t column_int(int index) const { return sqlite3_column_int64(statement_, index); }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw StateStoreError(fmt::format("sqlite: {} failed: {}", what, sqlite3_errmsg(db_)));
  }
  sqlite3* db_;
  sqlite3_stmt* statement_ = nullptr;
};

// Everything within rolls back unless commit() was reached.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) { run("BEGIN IMMEDIATE"); }
  ~Transaction() {
    if (!committed_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    run("COMMIT");
    committed_ = true;
  }

 private:
  void run(const char* sql) {
    char* error = nullptr;
    if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
      const std::string message = error != nullptr ? error : "unknown error";
      sqlite3_free(error);
      throw StateStoreError(fmt::format("sqlite: {} failed: {}", sql, message));
    }
  }
  sqlite3* db_;
  bool committed_ = false;
};

// The first key after every key that starts with prefix ("" when there is none): the
// prefix with its last byte below 0xff incremented and the rest dropped.
std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last < 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return end;
}

}  // namespace

SqliteStateStore::SqliteStateStore(const std::string& path) : path_(path) {
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw StateStoreError(fmt::format("sqlite: cannot open '{}': {}", path, message));
  }
  try {
    sqlite3_busy_timeout(db_, 5000);
    execute("PRAGMA journal_mode=WAL");
    execute("PRAGMA synchronous=FULL");
    execute(
        "CREATE TABLE IF NOT EXISTS records (key BLOB PRIMARY KEY, value BLOB NOT NULL) "
        "WITHOUT ROWID");
    execute(
        "CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) "
        "WITHOUT ROWID");
    // journal_mode answers a row; check that WAL took (a read-only medium refuses it).
    Statement mode(db_, "PRAGMA journal_mode");
    if (!mode.step() || mode.column_text(0) != "wal")
      throw StateStoreError(fmt::format("sqlite: '{}' cannot use WAL mode", path));
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

SqliteStateStore::~SqliteStateStore() { sqlite3_close(db_); }

void SqliteStateStore::execute(const char* sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    throw StateStoreError(fmt::format("sqlite: '{}' failed on '{}': {}", sql, path_, message));
  }
}

struct SqliteStateStore::CommitGroup {
  std::vector<StoredRecord> records;
  bool written = false;
  std::exception_ptr error;
};

void SqliteStateStore::put(std::span<const StoredRecord> records) {
  if (records.empty()) return;
  std::unique_lock lock(group_mutex_);
  if (!open_group_) open_group_ = std::make_shared<CommitGroup>();
  const std::shared_ptr<CommitGroup> group = open_group_;
  group->records.insert(group->records.end(), records.begin(), records.end());
  group_written_.wait(lock, [&] { return group->written || !writing_; });
  if (!group->written) {
    // No group is being written: this caller writes its group, with every put that
    // joined it, while later puts gather in the next one.
    writing_ = true;
    open_group_.reset();
    lock.unlock();
    std::exception_ptr error;
    try {
      write(group->records);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    group->written = true;
    group->error = error;
    writing_ = false;
    group_written_.notify_all();
  }
  if (group->error) std::rethrow_exception(group->error);
}

void SqliteStateStore::write(const std::vector<StoredRecord>& records) {
  std::lock_guard lock(mutex_);
  Transaction transaction(db_);
  Statement upsert(db_,
                   "INSERT INTO records(key, value) VALUES(?1, ?2) "
                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  for (const StoredRecord& record : records) {
    upsert.bind_blob(1, record.key);
    upsert.bind_blob(2, record.value);
    upsert.step();
    upsert.reset();
  }
  transaction.commit();
}

std::optional<std::string> SqliteStateStore::get(std::string_view key) {
  std::lock_guard lock(mutex_);
  Statement select(db_, "SELECT value FROM records WHERE key = ?1");
  select.bind_blob(1, key);
  if (!select.step()) return std::nullopt;
  return select.column_text(0);
}

std::vector<StoredRecord> SqliteStateStore::list(std::string_view prefix) {
  std::lock_guard lock(mutex_);
  const std::string end = prefix_end(prefix);
  Statement select(db_, end.empty() ? "SELECT key, value FROM records WHERE key >= ?1 ORDER BY key"
                                    : "SELECT key, value FROM records WHERE key >= ?1 AND key < ?2 "
                                      "ORDER BY key");
  select.bind_blob(1, prefix);
  if (!end.empty()) select.bind_blob(2, end);
  std::vector<StoredRecord> records;
  while (select.step()) records.push_back({select.column_text(0), select.column_text(1)});
  return records;
}

void SqliteStateStore::erase(std::string_view key) {
  std::lock_guard lock(mutex_);
  Transaction transaction(db_);
  Statement remove(db_, "DELETE FROM records WHERE key = ?1");
  remove.bind_blob(1, key);
  remove.step();
  transaction.commit();
}

std::uint64_t SqliteStateStore::reserve_sequence(std::string_view counter, std::uint64_t count) {
  if (count == 0) throw StateStoreError("sqlite: a sequence reservation of no values");
  std::lock_guard lock(mutex_);
  auto block = sequences_.find(counter);
  if (block == sequences_.end())
    block = sequences_.emplace(std::string(counter), SequenceBlock{}).first;
  if (block->second.end - block->second.next < count) {
    // Reserve the next block durably: its values are never handed out again. (What was
    // left of the block before is skipped: values stay consecutive within a reservation.)
    const std::uint64_t size = std::max(kSequenceBlock, count);
    Transaction transaction(db_);
    Statement bump(db_,
                   "INSERT INTO counters(name, value) VALUES(?1, ?2) "
                   "ON CONFLICT(name) DO UPDATE SET value = value + ?2 RETURNING value");
    bump.bind(1, counter);
    bump.bind_int(2, static_cast<std::int64_t>(size));
    if (!bump.step()) throw StateStoreError("sqlite: counter update returned nothing");
    const auto last = static_cast<std::uint64_t>(bump.column_int(0));
    while (bump.step()) {
    }
    bump.reset();
    transaction.commit();
    block->second = {last - size + 1, last + 1};
  }
  const std::uint64_t first = block->second.next;
  block->second.next += count;
  return first;
}

}  // namespace hetsched
