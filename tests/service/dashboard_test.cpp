// The dashboard's server side: the page at / (served without a token, holding no data, its
// scripts allowed by a per-answer nonce) and the event stream at GET /v1/events (401
// without the token; a snapshot, then an event per job change; keep-alives; a bounded
// number of streams, the API answering while they are held; a closed client frees its
// stream at once; stop() ends every stream cleanly and promptly), and ServiceEventHub on
// its own. The page in a browser is web/tests/dashboard.test.mjs.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/service/control_plane.hpp"
#include "hetsched/service/service_http_server.hpp"
#include "service/service_event_stream.hpp"
#include "service/simulated_engine.hpp"
#include "service/sqlite_state_store.hpp"
#include "service_test_support.hpp"

namespace hetsched {
namespace {

using testing::eventually;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

constexpr const char* kToken = "dashboard-test-token-0123456789";
constexpr const char* kJob =
    "jobs:\n  - name: dashboard-marker-job\n    tasks:\n      - {name: a, kernel: elementwise, "
    "flops: 1.0e9, bytes: 1.0e9}\n";

struct DashboardService {
  explicit DashboardService(HttpServerOptions http = {})
      : store(dir.file("state.db")),
        engine(default_cluster(), 1000),
        leadership("http://127.0.0.1:1") {
    ControlPlaneOptions options;
    options.time_scale = 1000;
    options.node_refresh = std::chrono::milliseconds(1);
    plane = std::make_unique<ControlPlane>(store, engine, leadership, options);
    plane->start();
    http.token = kToken;
    server = std::make_unique<ServiceHttpServer>(*plane, http);
    server->bind("127.0.0.1", 0);
    server->start();
  }
  ~DashboardService() {
    server->stop();
    plane->stop();
  }
  HttpAnswer call(const std::string& method, const std::string& path, const std::string& body = {},
                  const std::string& token = kToken) {
    return http_call(server->address(), method, path, token, body);
  }

  TempDir dir;
  SqliteStateStore store;
  SimulatedEngine engine;
  SoleLeader leadership;
  std::unique_ptr<ControlPlane> plane;
  std::unique_ptr<ServiceHttpServer> server;
};

// GET /v1/events read on a thread of its own; the text received so far can be waited on.
class EventStreamClient {
 public:
  EventStreamClient(const std::string& address, const std::string& token) : client_(address) {
    client_.set_read_timeout(60, 0);
    thread_ = std::thread([this, token] {
      const httplib::Result result = client_.Get(
          "/v1/events", {{"Authorization", "Bearer " + token}},
          [this](const httplib::Response& response) {
            std::lock_guard lock(mutex_);
            status_ = response.status;
            content_type_ = response.get_header_value("Content-Type");
            changed_.notify_all();
            return true;
          },
          [this](const char* data, std::size_t size) {
            std::lock_guard lock(mutex_);
            text_.append(data, size);
            changed_.notify_all();
            return true;
          });
      std::lock_guard lock(mutex_);
      ended_ = true;
      // The stream's last chunk arrived: it ended, it did not break.
      ended_cleanly_ = static_cast<bool>(result) && result.error() == httplib::Error::Success;
      changed_.notify_all();
    });
  }
  ~EventStreamClient() {
    client_.stop();
    thread_.join();
  }

  // Waits (at most `limit`) until `condition` holds over the text received.
  bool wait_for(const std::function<bool(const std::string&)>& condition,
                std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return condition(text_); });
  }
  bool wait_for_text(const std::string& needle,
                     std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    return wait_for([&](const std::string& text) { return text.find(needle) != std::string::npos; },
                    limit);
  }
  bool wait_for_end(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, limit, [&] { return ended_; });
  }
  int status() {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, std::chrono::seconds(30), [&] { return status_ != 0 || ended_; });
    return status_;
  }
  std::string content_type() {
    std::lock_guard lock(mutex_);
    return content_type_;
  }
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }
  bool ended_cleanly() {
    std::lock_guard lock(mutex_);
    return ended_cleanly_;
  }

 private:
  httplib::Client client_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::string text_, content_type_;
  int status_ = 0;
  bool ended_ = false, ended_cleanly_ = false;
  std::thread thread_;
};

// The data of every event named `name` in a stream's text, parsed.
std::vector<nlohmann::json> events_named(const std::string& text, const std::string& name) {
  std::vector<nlohmann::json> out;
  const std::string head = "event: " + name + "\n";
  for (std::size_t at = text.find(head); at != std::string::npos; at = text.find(head, at + 1)) {
    const std::size_t data = text.find("data: ", at);
    const std::size_t end = data == std::string::npos ? data : text.find("\n\n", data);
    if (end == std::string::npos) break;  // not complete yet
    out.push_back(nlohmann::json::parse(text.substr(data + 6, end - data - 6)));
  }
  return out;
}

TEST(DashboardEventHub, NotifyWakesWaitersAndStopEndsThem) {
  ServiceEventHub hub(4);
  auto subscription = hub.subscribe();
  ASSERT_NE(subscription, nullptr);
  const std::uint64_t seen = hub.sequence();
  using Wake = ServiceEventHub::Subscription::Wake;
  // Nothing happened: the wait ends at its deadline.
  EXPECT_EQ(subscription->wait(seen, -1, Clock::now() + std::chrono::milliseconds(20)),
            Wake::timeout);
  // A change from another thread wakes it long before its deadline.
  std::thread notifier([&] { hub.notify(); });
  const auto started = Clock::now();
  EXPECT_EQ(subscription->wait(seen, -1, started + std::chrono::seconds(30)), Wake::changed);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(10));
  notifier.join();
  EXPECT_GT(hub.sequence(), seen);
  // A quiet wait ignores changes; a stop ends both kinds.
  hub.notify();
  EXPECT_EQ(subscription->wait_quietly(-1, Clock::now() + std::chrono::milliseconds(20)),
            Wake::timeout);
  std::thread stopper([&] { hub.stop(); });
  EXPECT_EQ(subscription->wait(hub.sequence(), -1, Clock::now() + std::chrono::seconds(30)),
            Wake::stopping);
  stopper.join();
  EXPECT_EQ(subscription->wait_quietly(-1, Clock::now() + std::chrono::seconds(30)),
            Wake::stopping);
  EXPECT_TRUE(hub.stopping());
  EXPECT_EQ(hub.subscribe(), nullptr);
}

TEST(DashboardEventHub, BoundsTheStreamsAndFreesASlotWhenOneCloses) {
  ServiceEventHub hub(2);
  auto first = hub.subscribe();
  auto second = hub.subscribe();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(hub.subscribe(), nullptr);
  EXPECT_EQ(hub.open_streams(), 2u);
  first.reset();
  EXPECT_EQ(hub.open_streams(), 1u);
  EXPECT_NE(hub.subscribe(), nullptr);
  // A stop waits for the streams to go, within its deadline.
  hub.stop();
  EXPECT_FALSE(hub.wait_until_closed(Clock::now() + std::chrono::milliseconds(20)));
  std::thread closer([&] { second.reset(); });
  EXPECT_TRUE(hub.wait_until_closed(Clock::now() + std::chrono::seconds(30)));
  closer.join();
}

TEST(DashboardEventHub, APeerThatClosesEndsTheWait) {
  ServiceEventHub hub(1);
  auto subscription = hub.subscribe();
  int pair[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
  using Wake = ServiceEventHub::Subscription::Wake;
  EXPECT_EQ(
      subscription->wait(hub.sequence(), pair[0], Clock::now() + std::chrono::milliseconds(20)),
      Wake::timeout);
  std::thread closer([&] { ::close(pair[1]); });
  EXPECT_EQ(subscription->wait(hub.sequence(), pair[0], Clock::now() + std::chrono::seconds(30)),
            Wake::peer_closed);
  closer.join();
  ::close(pair[0]);
}

TEST(DashboardHttp, PageIsServedWithoutATokenAndHoldsNoData) {
  DashboardService s;
  ASSERT_EQ(s.call("POST", "/v1/jobs", kJob).status, 201);
  httplib::Client client(s.server->address());
  const httplib::Result page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(page->body.find("dashboard-marker-job"), std::string::npos);
  EXPECT_EQ(page->body.find("{{"), std::string::npos) << "a placeholder is left";
  EXPECT_NE(page->body.find("id=\"login-form\""), std::string::npos);
  // Nothing is fetched from elsewhere: scripts and styles are inline.
  EXPECT_FALSE(std::regex_search(page->body, std::regex("<script[^>]+src=")));
  EXPECT_FALSE(std::regex_search(page->body, std::regex("<link[^>]+stylesheet")));
  // Scripts run only with this answer's nonce; no form posts anywhere; no framing.
  const std::string policy = page->get_header_value("Content-Security-Policy");
  std::smatch nonce;
  ASSERT_TRUE(std::regex_search(policy, nonce, std::regex("script-src 'nonce-([0-9a-f]{32})'")))
      << policy;
  EXPECT_NE(page->body.find("<script nonce=\"" + nonce[1].str() + "\">"), std::string::npos);
  EXPECT_NE(policy.find("form-action 'none'"), std::string::npos);
  EXPECT_NE(policy.find("connect-src 'self'"), std::string::npos);
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos);
  const httplib::Result again = client.Get("/");
  ASSERT_TRUE(again);
  EXPECT_NE(again->get_header_value("Content-Security-Policy"), policy) << "the nonce is reused";
  // The page alone is open: the data routes still want the token.
  EXPECT_EQ(s.call("GET", "/v1/jobs", {}, "").status, 401);
  EXPECT_EQ(s.call("GET", "/?x=1", {}, "").status, 400);
}

TEST(DashboardHttp, EventsNeedTheToken) {
  DashboardService s;
  EXPECT_EQ(s.call("GET", "/v1/events", {}, "").status, 401);
  EXPECT_EQ(s.call("GET", "/v1/events", {}, "wrong-token").status, 401);
  EventStreamClient wrong(s.server->address(), "wrong-token");
  EXPECT_EQ(wrong.status(), 401);
  EXPECT_EQ(wrong.text().find("event:"), std::string::npos);
}

TEST(DashboardHttp, EventsGiveASnapshotThenEachJobChange) {
  DashboardService s;
  EventStreamClient stream(s.server->address(), kToken);
  ASSERT_EQ(stream.status(), 200);
  EXPECT_EQ(stream.content_type(), "text/event-stream");
  ASSERT_TRUE(stream.wait_for_text("event: snapshot\n")) << stream.text();
  const nlohmann::json snapshot = events_named(stream.text(), "snapshot").at(0);
  EXPECT_EQ(snapshot.at("engine"), "sim");
  EXPECT_GT(snapshot.at("metrics").at("devices_total").get<int>(), 0);

  const HttpAnswer created = s.call("POST", "/v1/jobs", kJob);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::uint64_t id = nlohmann::json::parse(created.body).at("ids").at(0);
  // The job appears, then ends completed, as job events; metrics follow.
  const auto job_reached = [id](const std::string& state) {
    return [id, state](const std::string& text) {
      for (const nlohmann::json& e : events_named(text, "job"))
        if (e.at("id") == id && e.at("state") == state) return true;
      return false;
    };
  };
  ASSERT_TRUE(stream.wait_for(job_reached("completed"))) << stream.text();
  const std::vector<nlohmann::json> jobs = events_named(stream.text(), "job");
  EXPECT_EQ(jobs.front().at("id"), id);
  EXPECT_EQ(jobs.front().at("name"), "dashboard-marker-job");
  EXPECT_TRUE(jobs.front().at("previous").is_null());  // new to this stream
  EXPECT_EQ(jobs.back().at("completed_tasks"), 1);
  ASSERT_TRUE(stream.wait_for([&](const std::string& text) {
    for (const nlohmann::json& m : events_named(text, "metrics"))
      if (m.at("jobs").at("completed") == 1) return true;
    return false;
  })) << stream.text();
}

TEST(DashboardHttp, AQuietStreamGetsKeepAlives) {
  DashboardService s(HttpServerOptions{.event_keepalive_seconds = 0.2});
  EventStreamClient stream(s.server->address(), kToken);
  ASSERT_TRUE(stream.wait_for_text("event: snapshot\n"));
  EXPECT_TRUE(stream.wait_for_text("\n: keep-alive\n\n")) << stream.text();
}

TEST(DashboardHttp, StreamsAreBoundedLeaveTheApiAnsweringAndEndAtStop) {
  DashboardService s(HttpServerOptions{.threads = 2, .max_event_streams = 2});
  auto first = std::make_unique<EventStreamClient>(s.server->address(), kToken);
  auto second = std::make_unique<EventStreamClient>(s.server->address(), kToken);
  ASSERT_TRUE(first->wait_for_text("event: snapshot\n"));
  ASSERT_TRUE(second->wait_for_text("event: snapshot\n"));
  EXPECT_EQ(s.server->event_streams(), 2u);
  // A third stream is refused; everything else is answered as before.
  const HttpAnswer third = s.call("GET", "/v1/events");
  EXPECT_EQ(third.status, 503) << third.body;
  EXPECT_EQ(nlohmann::json::parse(third.body).at("limit"), 2);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(s.call("GET", "/v1/jobs").status, 200);
  EXPECT_EQ(s.call("POST", "/v1/jobs", kJob).status, 201);
  // A client that goes away frees its stream at once (not at the next keep-alive).
  first.reset();
  EXPECT_TRUE(eventually([&] { return s.server->event_streams() == 1; }, std::chrono::seconds(5)));
  // stop() ends the open stream cleanly (its last chunk sent) and promptly.
  const auto stopping = Clock::now();
  s.server->stop();
  EXPECT_TRUE(second->wait_for_end(std::chrono::seconds(5)));
  EXPECT_LT(Clock::now() - stopping, std::chrono::seconds(3));
  EXPECT_TRUE(second->ended_cleanly());
}

}  // namespace
}  // namespace hetsched
