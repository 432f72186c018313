// EtcdClient, EtcdStateStore and EtcdLeaderElection against the loopback
// three-member etcd (scripts/testbed/etcd.sh).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "hetsched/service/etcd_leader_election.hpp"
#include "hetsched/service/etcd_state_store.hpp"
#include "testbed.hpp"

namespace hetsched {
namespace {

using testing::etcd_endpoints;
using testing::eventually;
using testing::unique_word;

EtcdStateStore make_store(const std::string& prefix) {
  return EtcdStateStore(std::make_shared<EtcdClient>(etcd_endpoints()), prefix);
}

TEST(EtcdStateStoreIntegration, PutGetListErase) {
  auto store = make_store("/" + unique_word("store") + "/");
  const std::vector<StoredRecord> records = {{"jobs/000002", "{\"id\":2}"},
                                             {"jobs/000001", "{\"id\":1}"},
                                             {"nodes/a", std::string("binary\0value", 12)},
                                             {"jobsx", "not under jobs/"}};
  store.put(records);
  EXPECT_EQ(store.get("jobs/000001"), "{\"id\":1}");
  EXPECT_EQ(store.get("nodes/a"), std::string("binary\0value", 12));
  EXPECT_FALSE(store.get("jobs/000003").has_value());

  const auto jobs = store.list("jobs/");
  ASSERT_EQ(jobs.size(), 2u);
  EXPECT_EQ(jobs[0].key, "jobs/000001");  // key order
  EXPECT_EQ(jobs[1].key, "jobs/000002");
  EXPECT_EQ(jobs[1].value, "{\"id\":2}");
  EXPECT_EQ(store.list("").size(), 4u);

  store.put(std::vector<StoredRecord>{{"jobs/000001", "{\"id\":1,\"state\":\"done\"}"}});
  EXPECT_EQ(store.get("jobs/000001"), "{\"id\":1,\"state\":\"done\"}");
  store.erase("jobs/000001");
  EXPECT_FALSE(store.get("jobs/000001").has_value());
  EXPECT_EQ(store.list("jobs/").size(), 1u);
}

TEST(EtcdStateStoreIntegration, MultiRecordPutIsAllOrNothing) {
  auto store = make_store("/" + unique_word("atomic") + "/");
  std::vector<StoredRecord> batch;
  for (int i = 0; i < 200; ++i) batch.push_back({"jobs/" + std::to_string(1000 + i), "v"});
  store.put(batch);
  EXPECT_EQ(store.list("jobs/").size(), 200u);

  // Over the testbed's --max-txn-ops (1024): etcd refuses the whole transaction,
  // and not one of its records is written.
  std::vector<StoredRecord> too_many;
  for (int i = 0; i < 1100; ++i) too_many.push_back({"big/" + std::to_string(10000 + i), "v"});
  EXPECT_THROW(store.put(too_many), StateStoreError);
  EXPECT_TRUE(store.list("big/").empty());
}

TEST(EtcdStateStoreIntegration, NextSequenceIsStrictlyIncreasingAcrossRacingClients) {
  const std::string prefix = "/" + unique_word("sequence") + "/";
  constexpr int kPerClient = 40;
  std::vector<std::uint64_t> first_values, second_values;
  const auto draw = [&](std::vector<std::uint64_t>& values) {
    auto store = make_store(prefix);  // its own client, as another replica would have
    for (int i = 0; i < kPerClient; ++i) values.push_back(store.next_sequence("jobs"));
  };
  std::thread first(draw, std::ref(first_values));
  std::thread second(draw, std::ref(second_values));
  first.join();
  second.join();
  EXPECT_TRUE(std::is_sorted(first_values.begin(), first_values.end()));
  EXPECT_TRUE(std::is_sorted(second_values.begin(), second_values.end()));
  std::set<std::uint64_t> all(first_values.begin(), first_values.end());
  all.insert(second_values.begin(), second_values.end());
  EXPECT_EQ(all.size(), 2u * kPerClient) << "two clients got the same value";
  EXPECT_EQ(*all.begin(), 1u);
  EXPECT_EQ(*all.rbegin(), 2u * kPerClient);
  // A later client (a restarted replica) continues above every value given out.
  EXPECT_EQ(make_store(prefix).next_sequence("jobs"), 2u * kPerClient + 1);
}

TEST(EtcdLeaderElectionIntegration, OneLeaderAndAFollowerTakesOverWhenItsLeaseLapses) {
  EtcdLeaderElectionOptions options;
  options.election_key = "/" + unique_word("election") + "/leader";
  EtcdLeaderElection first(etcd_endpoints(), "http://127.0.0.1:1001", options);
  ASSERT_TRUE(first.wait_for_leadership(std::chrono::seconds(5)));
  EtcdLeaderElection second(etcd_endpoints(), "http://127.0.0.1:1002", options);
  ASSERT_TRUE(eventually([&] { return second.leader_address() == "http://127.0.0.1:1001"; },
                         std::chrono::seconds(5)));
  EXPECT_FALSE(second.is_leader());
  EXPECT_TRUE(first.is_leader());

  // The leader "crashes": no more keepalives, no revoke. Its lease (TTL 2 s) lapses
  // and the follower takes over within 5 s.
  first.abandon();
  EXPECT_FALSE(first.is_leader());
  EXPECT_TRUE(second.wait_for_leadership(std::chrono::seconds(5)));
  EXPECT_EQ(second.leader_address(), "http://127.0.0.1:1002");
}

TEST(EtcdLeaderElectionIntegration, ResigningHandsLeadershipOverAtOnce) {
  EtcdLeaderElectionOptions options;
  options.election_key = "/" + unique_word("election") + "/leader";
  EtcdLeaderElection first(etcd_endpoints(), "http://127.0.0.1:2001", options);
  ASSERT_TRUE(first.wait_for_leadership(std::chrono::seconds(5)));
  EtcdLeaderElection second(etcd_endpoints(), "http://127.0.0.1:2002", options);
  ASSERT_TRUE(
      eventually([&] { return second.leader_address().has_value(); }, std::chrono::seconds(5)));
  first.resign();
  // Revoking deletes the key, so the follower's next poll (200 ms) wins; well
  // within one lease TTL.
  EXPECT_TRUE(second.wait_for_leadership(std::chrono::seconds(2)));
}

TEST(EtcdStateStoreIntegration, KeepsWorkingWhileOneMemberIsStopped) {
  const std::string etcd_dir = testing::testbed_dir() + "/etcd";
  auto store = make_store("/" + unique_word("member-down") + "/");
  store.put(std::vector<StoredRecord>{{"before", "1"}});
  // Stop the member the client talks to first.
  const auto stopped = testing::run_testbed_script("etcd", {"stop-member", etcd_dir, "1"});
  ASSERT_TRUE(stopped.succeeded()) << stopped.standard_error;
  std::uint64_t sequence = 0;
  EXPECT_NO_THROW({
    store.put(std::vector<StoredRecord>{{"during", "2"}});
    sequence = store.next_sequence("jobs");
  });
  EXPECT_EQ(store.get("before"), "1");
  EXPECT_EQ(store.get("during"), "2");
  EXPECT_EQ(sequence, 1u);
  EXPECT_NE(store.client().current_endpoint(), "http://" + etcd_endpoints().front());
  const auto started = testing::run_testbed_script("etcd", {"start-member", etcd_dir, "1"});
  ASSERT_TRUE(started.succeeded()) << started.standard_error;
  EXPECT_EQ(store.list("").size(), 3u);  // before, during, the counter
}

}  // namespace
}  // namespace hetsched
