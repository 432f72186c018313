// SqliteStateStore: records and counters survive reopening and kill -9 of a writer, a
// put of several records is all or nothing, and concurrent puts are group-committed whole.
#include "service/sqlite_state_store.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <set>
#include <thread>

#include "hetsched/core/rng.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

using testing::TempDir;

TEST(SqliteStateStore, PutGetListEraseAndSequencesSurviveReopening) {
  TempDir dir;
  const std::string path = dir.file("state.db");
  {
    SqliteStateStore store(path);
    const std::vector<StoredRecord> records{{"jobs/000000000002", "two"},
                                            {"jobs/000000000001", "one"},
                                            {"nodes/a", "node a"},
                                            {"jobsx", "not under jobs/"}};
    store.put(records);
    store.put(std::vector<StoredRecord>{{"jobs/000000000001", "one, updated"}});
    EXPECT_EQ(store.next_sequence("jobs"), 1u);
    EXPECT_EQ(store.next_sequence("jobs"), 2u);
    EXPECT_EQ(store.next_sequence("other"), 1u);
    store.erase("nodes/a");
  }
  SqliteStateStore store(path);
  EXPECT_EQ(store.get("jobs/000000000001"), "one, updated");
  EXPECT_FALSE(store.get("nodes/a").has_value());
  const std::vector<StoredRecord> jobs = store.list("jobs/");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].key, "jobs/000000000001");  // key order
  EXPECT_EQ(jobs[1].value, "two");
  EXPECT_EQ(store.list("").size(), 3u);
  // Never repeats across restarts (what was left of the reserved block is skipped).
  const std::uint64_t after_restart = store.next_sequence("jobs");
  EXPECT_GT(after_restart, 2u);
  EXPECT_EQ(store.next_sequence("jobs"), after_restart + 1);
  EXPECT_EQ(store.name(), "sqlite");
}

TEST(SqliteStateStore, KeysWithHighBytesAndEmptyValuesRoundTrip) {
  TempDir dir;
  SqliteStateStore store(dir.file("state.db"));
  const std::string key("p/\xff\x00z", 5);
  store.put(std::vector<StoredRecord>{{key, ""}, {"p\xff", "after"}});
  EXPECT_EQ(store.get(key), "");
  EXPECT_EQ(store.list("p/").size(), 1u);
  EXPECT_EQ(store.list("p").size(), 2u);
}

TEST(SqliteStateStore, UnopenablePathIsAStateStoreError) {
  EXPECT_THROW(SqliteStateStore("/proc/definitely/not/here.db"), StateStoreError);
}

// Puts from many threads at once are written in groups; every one returns once its
// records are there, each with all of its records.
TEST(SqliteStateStore, ConcurrentPutsAreAllWrittenWholeAndIdsNeverRepeat) {
  TempDir dir;
  const std::string path = dir.file("state.db");
  constexpr int kThreads = 8, kPuts = 40;
  std::vector<std::uint64_t> ids[kThreads];
  {
    SqliteStateStore store(path);
    std::vector<std::thread> writers;
    for (int w = 0; w < kThreads; ++w)
      writers.emplace_back([&, w] {
        for (int i = 0; i < kPuts; ++i) {
          const std::string n = std::to_string(w) + "-" + std::to_string(i);
          store.put(std::vector<StoredRecord>{{"a/" + n, n}, {"b/" + n, n}});
          EXPECT_EQ(store.get("b/" + n), n);  // durable and readable once put returned
          ids[w].push_back(store.next_sequence("jobs"));
        }
      });
    for (auto& t : writers) t.join();
  }
  SqliteStateStore store(path);
  EXPECT_EQ(store.list("a/").size(), static_cast<std::size_t>(kThreads * kPuts));
  EXPECT_EQ(store.list("b/").size(), static_cast<std::size_t>(kThreads * kPuts));
  std::set<std::uint64_t> all;
  for (const auto& per_thread : ids) {
    EXPECT_TRUE(std::is_sorted(per_thread.begin(), per_thread.end()));
    all.insert(per_thread.begin(), per_thread.end());
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kPuts));  // no id twice
  EXPECT_GT(store.next_sequence("jobs"), *all.rbegin());
}

// A child process writes pairs of records in single puts from four threads (so puts
// are group-committed) and reports each put that returned through a pipe; it is killed
// with SIGKILL at a moment drawn from the seeded Rng. Every reported put must be there
// after reopening, and no pair may be half there.
TEST(SqliteStateStore, PutsThatReturnedSurviveKillNineAndStayAtomic) {
  TempDir dir;
  const std::string path = dir.file("state.db");
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    SqliteStateStore store(path);
    constexpr std::uint32_t kWriters = 4;
    std::vector<std::thread> writers;
    for (std::uint32_t w = 0; w < kWriters; ++w)
      writers.emplace_back([&, w] {
        for (std::uint32_t i = w;; i += kWriters) {
          const std::string n = std::to_string(i);
          store.put(std::vector<StoredRecord>{{"a/" + n, n}, {"b/" + n, std::string(4096, 'x')}});
          if (::write(fds[1], &i, sizeof i) != sizeof i) ::_exit(1);  // atomic: < PIPE_BUF
        }
      });
    for (auto& t : writers) t.join();
    ::_exit(0);
  }
  ::close(fds[1]);
  Rng rng(7);
  const std::uint32_t kill_after = 20 + static_cast<std::uint32_t>(rng.below(100));
  std::set<std::uint32_t> reported;
  std::uint32_t value = 0;
  while (reported.size() < kill_after &&
         ::read(fds[0], &value, sizeof value) == static_cast<ssize_t>(sizeof value))
    reported.insert(value);
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  // Puts that returned after the last one read are in the pipe; drain them too.
  while (::read(fds[0], &value, sizeof value) == static_cast<ssize_t>(sizeof value))
    reported.insert(value);
  ::close(fds[0]);
  ASSERT_GE(reported.size(), kill_after);

  SqliteStateStore store(path);
  const auto a = store.list("a/");
  const auto b = store.list("b/");
  EXPECT_EQ(a.size(), b.size());  // all or nothing per put
  std::set<std::string> a_keys;
  for (const auto& r : a) a_keys.insert(r.key.substr(2));
  for (const auto& r : b) EXPECT_TRUE(a_keys.count(r.key.substr(2))) << r.key;
  for (std::uint32_t i : reported)  // nothing that returned is lost
    EXPECT_TRUE(a_keys.count(std::to_string(i))) << i;
}

}  // namespace
}  // namespace hetsched
