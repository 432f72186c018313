// EtcdClient, EtcdStateStore and EtcdLeaderElection against the loopback
// three-member etcd (scripts/testbed/etcd.sh).
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <set>
#include <thread>

#include "service/etcd_leader_election.hpp"
#include "service/etcd_state_store.hpp"
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

TEST(EtcdStateStoreIntegration, MultiRecordPutIsAllOrNothingWhenItFitsOneTransaction) {
  auto store = make_store("/" + unique_word("atomic") + "/");
  std::vector<StoredRecord> batch;
  for (int i = 0; i < 100; ++i) batch.push_back({"jobs/" + std::to_string(1000 + i), "v"});
  store.put(batch);
  EXPECT_EQ(store.list("jobs/").size(), 100u);

  // A put that fails changes nothing: a transaction that etcd refuses (the same key
  // twice) writes none of its records.
  std::vector<StoredRecord> twice{{"twice/a", "1"}, {"twice/b", "2"}, {"twice/a", "3"}};
  EXPECT_THROW(store.put(twice), StateStoreError);
  EXPECT_TRUE(store.list("twice/").empty());
}

TEST(EtcdStateStoreIntegration, WritesBeyondEtcdsRequestLimitsAreSplitAndReadBackWhole) {
  // etcd's own defaults (the testbed allows 1024 operations): 128 operations and
  // 1.5 MiB per request.
  const std::string prefix = "/" + unique_word("sized") + "/";
  auto store = make_store(prefix);
  std::vector<StoredRecord> many;
  for (int i = 0; i < 1100; ++i) many.push_back({"many/" + std::to_string(10000 + i), "v"});
  store.put(many);
  EXPECT_EQ(store.list("many/").size(), 1100u);

  // Values of 2 MB and 1 MB, over one request: each is staged in chunks and flips whole.
  std::string big(2'000'000, 'x');
  for (std::size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>('a' + i % 26);
  const std::string other(1'000'000, 'y');
  store.put(std::vector<StoredRecord>{{"big/a", big}, {"big/a/b", other}, {"big/c", "small"}});
  EXPECT_EQ(store.get("big/a"), big);
  EXPECT_EQ(store.get("big/a/b"), other);
  const auto listed = store.list("big/");
  ASSERT_EQ(listed.size(), 3u);  // the chunks are not records
  EXPECT_EQ(listed[0].value, big);
  EXPECT_EQ(listed[1].value, other);
  std::size_t records = 0;  // besides the store's counters ("sequences/")
  for (const StoredRecord& r : store.list("")) records += r.key.rfind("sequences/", 0) != 0;
  EXPECT_EQ(records, 1100u + 3u);

  // Written again (a new generation), then small, then erased: no chunk is left behind.
  const std::string bigger(2'500'000, 'z');
  store.put(std::vector<StoredRecord>{{"big/a", bigger}});
  EXPECT_EQ(store.get("big/a"), bigger);
  EXPECT_EQ(store.get("big/a/b"), other);  // "a"'s chunks lie apart from "a/b"'s
  store.put(std::vector<StoredRecord>{{"big/a", "now small"}});
  EXPECT_EQ(store.get("big/a"), "now small");
  store.erase("big/a/b");
  EXPECT_FALSE(store.get("big/a/b").has_value());
  EtcdClient raw(etcd_endpoints());
  const std::string chunks = prefix + "~chunks/";
  EXPECT_TRUE(raw.range(chunks, EtcdClient::prefix_end(chunks)).empty());
}

TEST(EtcdStateStoreIntegration, ReservedSequenceValuesAreConsecutiveAndNeverGivenTwice) {
  auto store = make_store("/" + unique_word("reserve") + "/");
  EXPECT_EQ(store.reserve_sequence("jobs", 50), 1u);
  EXPECT_EQ(store.next_sequence("jobs"), 51u);
  EXPECT_EQ(store.reserve_sequence("jobs", 1000), 52u);
  EXPECT_EQ(store.next_sequence("jobs"), 1052u);
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
  options.probe_leader = false;  // the addresses serve nothing
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
  options.probe_leader = false;  // the addresses serve nothing
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

TEST(EtcdLeaderElectionIntegration, AFollowerStopsNamingALeaderThatNoLongerAnswers) {
  // A leader that serves /healthz, then dies: its lease (10 s here) outlives it, but the
  // follower stops naming it long before, so no client is sent to a dead address.
  httplib::Server leader_http;
  leader_http.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("{}", "application/json");
  });
  const int port = leader_http.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  std::thread serving([&] { leader_http.listen_after_bind(); });
  EtcdLeaderElectionOptions options;
  options.election_key = "/" + unique_word("election") + "/leader";
  options.lease_ttl_seconds = 10;
  const std::string leader_address = "http://127.0.0.1:" + std::to_string(port);
  EtcdLeaderElection first(etcd_endpoints(), leader_address, options);
  ASSERT_TRUE(first.wait_for_leadership(std::chrono::seconds(5)));
  EtcdLeaderElection second(etcd_endpoints(), "http://127.0.0.1:3002", options);
  ASSERT_TRUE(eventually([&] { return second.leader_address() == leader_address; },
                         std::chrono::seconds(5)));

  const auto died = std::chrono::steady_clock::now();
  first.abandon();  // no keepalive, no revoke: the key stays until the lease runs out
  leader_http.stop();
  serving.join();
  ASSERT_TRUE(
      eventually([&] { return !second.leader_address().has_value(); }, std::chrono::seconds(5)));
  EXPECT_LT(std::chrono::steady_clock::now() - died, std::chrono::seconds(9));
  EXPECT_FALSE(second.is_leader());  // the dead leader's lease still holds the key
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
