// SqliteStateStore: records and counters survive reopening and kill -9 of a writer, and a
// put of several records is all or nothing.
#include "hetsched/service/sqlite_state_store.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

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
  EXPECT_EQ(store.next_sequence("jobs"), 3u);  // never repeats across restarts
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

// A child process writes pairs of records in single puts and reports each put that
// returned through a pipe; it is killed with SIGKILL at a moment drawn from the seeded
// Rng. Every reported put must be there after reopening, and no pair may be half there.
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
    for (std::uint32_t i = 0;; ++i) {
      const std::string n = std::to_string(i);
      store.put(std::vector<StoredRecord>{{"a/" + n, n}, {"b/" + n, std::string(4096, 'x')}});
      if (::write(fds[1], &i, sizeof i) != sizeof i) ::_exit(1);
    }
  }
  ::close(fds[1]);
  Rng rng(7);
  const std::uint32_t kill_after = 20 + static_cast<std::uint32_t>(rng.below(100));
  std::uint32_t last_reported = 0;
  std::uint32_t reported = 0;
  while (reported < kill_after && ::read(fds[0], &last_reported, sizeof last_reported) ==
                                      static_cast<ssize_t>(sizeof last_reported))
    ++reported;
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  // Puts that returned after the last one read are in the pipe; drain them too.
  while (::read(fds[0], &last_reported, sizeof last_reported) ==
         static_cast<ssize_t>(sizeof last_reported))
    ++reported;
  ::close(fds[0]);
  ASSERT_GE(reported, kill_after);

  SqliteStateStore store(path);
  const auto a = store.list("a/");
  const auto b = store.list("b/");
  EXPECT_EQ(a.size(), b.size());  // all or nothing per put
  EXPECT_GE(a.size(), reported);  // nothing that returned is lost
  std::set<std::string> a_keys;
  for (const auto& r : a) a_keys.insert(r.key.substr(2));
  for (const auto& r : b) EXPECT_TRUE(a_keys.count(r.key.substr(2))) << r.key;
  EXPECT_TRUE(store.get("a/" + std::to_string(last_reported)).has_value());
}

}  // namespace
}  // namespace hetsched
