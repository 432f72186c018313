// The REST API in-process on an ephemeral port: a round trip (submit, query, placement,
// history, cancel), authentication, validation answers that name the field and change
// nothing, size limits (chunked bodies too), unknown routes, node registration, metrics,
// follower redirects, hostile bodies (bytes that are not UTF-8, control characters in
// names, a megabyte of brackets in bounded memory), a 500 that leaks no library text, and
// the factories and token file behind `hetsched serve`.
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/service/control_plane.hpp"
#include "hetsched/service/service_factories.hpp"
#include "hetsched/service/service_http_server.hpp"
#include "service/simulated_engine.hpp"
#include "service/sqlite_state_store.hpp"
#include "service_test_support.hpp"
#include "support/service_deployment.hpp"

namespace hetsched {
namespace {

using testing::eventually;
using testing::TempDir;

constexpr const char* kToken = "0123456789abcdef-test-token";
constexpr const char* kJob =
    "jobs:\n  - name: pair\n    tasks:\n      - {name: a, kernel: elementwise, flops: 1.0e9, "
    "bytes: 1.0e9}\n      - {name: b, kernel: reduction, flops: 1.0e9, bytes: 1.0e9, after: [a]}\n";

// A replica that does not lead, for the redirect test.
class FollowerOf final : public Leadership {
 public:
  explicit FollowerOf(std::string leader) : leader_(std::move(leader)) {}
  bool is_leader() const override { return false; }
  std::optional<std::string> leader_address() const override { return leader_; }

 private:
  std::string leader_;
};

// A follower whose leader lookup fails with a library's exception (nlohmann's parse
// error, text and all): the 500 it causes must carry a request id and none of that text.
class LeaderLookupThatThrows final : public Leadership {
 public:
  bool is_leader() const override { return false; }
  std::optional<std::string> leader_address() const override {
    return nlohmann::json::parse("{\"leader\": ").get<std::string>();
  }
};

struct RestService {
  explicit RestService(std::unique_ptr<Leadership> lead = nullptr,
                       std::size_t max_body_bytes = 64 * 1024)
      : store(dir.file("state.db")),
        engine(default_cluster(), 1000),
        leadership(lead ? std::move(lead) : std::make_unique<SoleLeader>("http://127.0.0.1:1")) {
    ControlPlaneOptions options;
    options.time_scale = 1000;
    options.node_refresh = std::chrono::milliseconds(1);
    plane = std::make_unique<ControlPlane>(store, engine, *leadership, options);
    plane->start();
    server = std::make_unique<ServiceHttpServer>(
        *plane, HttpServerOptions{.token = kToken, .max_body_bytes = max_body_bytes, .threads = 4});
    server->bind("127.0.0.1", 0);
    server->start();
  }
  ~RestService() {
    server->stop();
    plane->stop();
  }
  HttpAnswer call(const std::string& method, const std::string& path, const std::string& body = {},
                  const std::string& token = kToken) {
    return http_call(server->address(), method, path, token, body);
  }
  nlohmann::json json(const std::string& path) {
    const HttpAnswer a = call("GET", path);
    EXPECT_EQ(a.status, 200) << path << ": " << a.body;
    return nlohmann::json::parse(a.body);
  }

  TempDir dir;
  SqliteStateStore store;
  SimulatedEngine engine;
  std::unique_ptr<Leadership> leadership;
  std::unique_ptr<ControlPlane> plane;
  std::unique_ptr<ServiceHttpServer> server;
};

TEST(ServiceHttp, SubmitQueryAndCancelRoundTrip) {
  RestService s;
  EXPECT_EQ(s.call("GET", "/healthz", {}, "").status, 200);
  const HttpAnswer created = s.call("POST", "/v1/jobs?policy=peft", kJob);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::uint64_t id = nlohmann::json::parse(created.body).at("ids").at(0);
  const std::string path = "/v1/jobs/" + std::to_string(id);
  ASSERT_TRUE(eventually([&] { return s.json(path).at("state") == "completed"; }));
  const nlohmann::json job = s.json(path);
  EXPECT_EQ(job.at("policy"), "peft");
  EXPECT_EQ(job.at("name"), "pair");
  EXPECT_FALSE(job.contains("source_text"));
  ASSERT_EQ(job.at("tasks").size(), 2u);
  for (const auto& task : job.at("tasks")) {
    EXPECT_FALSE(task.at("device").get<std::string>().empty());
    EXPECT_TRUE(task.at("started_at").is_number());
    EXPECT_TRUE(task.at("finished_at").is_number());
    std::vector<std::string> events;
    for (const auto& e : task.at("history")) events.push_back(e.at("event"));
    EXPECT_EQ(events, (std::vector<std::string>{"planned", "launched", "started", "finished"}));
  }
  const nlohmann::json list = s.json("/v1/jobs");
  ASSERT_EQ(list.at("jobs").size(), 1u);
  EXPECT_EQ(list.at("jobs").at(0).at("completed_tasks"), 2);
  EXPECT_EQ(s.call("DELETE", path).status, 409);  // already ended
  EXPECT_EQ(s.call("DELETE", "/v1/jobs/12345").status, 404);

  const HttpAnswer metrics = s.call("GET", "/metrics");
  ASSERT_EQ(metrics.status, 200);
  for (const char* name :
       {"hetsched_queue_length ", "hetsched_running_tasks ",
        "hetsched_device_utilisation{kind=\"gpu\"}", "hetsched_energy_joules_total ",
        "hetsched_decisions_total 2", "hetsched_decisions_per_second ",
        "hetsched_scheduling_latency_seconds{quantile=\"0.99\"}",
        "hetsched_scheduling_latency_seconds_count 1"})
    EXPECT_NE(metrics.body.find(name), std::string::npos) << name;
}

TEST(ServiceHttp, CancelOverRestEndsARunningJob) {
  RestService s;
  const HttpAnswer created =
      s.call("POST", "/v1/jobs",
             "{\"jobs\": [{\"name\": \"long\", \"tasks\": [{\"name\": \"t\", \"kernel\": "
             "\"dense_matmul\", "
             "\"precision\": \"bf16\", \"flops\": 1e21, \"kinds\": [\"gpu\"]}]}]}");
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string path =
      "/v1/jobs/" + std::to_string(nlohmann::json::parse(created.body).at("ids").at(0).get<int>());
  ASSERT_TRUE(eventually([&] { return s.json(path).at("state") == "running"; }));
  const HttpAnswer cancelled = s.call("DELETE", path);
  EXPECT_EQ(cancelled.status, 202) << cancelled.body;
  ASSERT_TRUE(eventually([&] { return s.json(path).at("state") == "cancelled"; }));
}

TEST(ServiceHttp, UnauthenticatedAndMalformedRequestsAreRefusedAndChangeNothing) {
  RestService s;
  ASSERT_EQ(s.call("POST", "/v1/jobs", kJob).status, 201);
  // What is accepted: the jobs (their records change as they run) and the nodes.
  const auto stored_before = testing::stored_job_ids(s.store);
  const auto nodes_before = s.store.list("nodes/").size();

  EXPECT_EQ(s.call("POST", "/v1/jobs", kJob, "").status, 401);
  EXPECT_EQ(s.call("POST", "/v1/jobs", kJob, "wrong-token").status, 401);
  EXPECT_EQ(s.call("POST", "/v1/jobs", kJob, std::string(kToken) + "x").status, 401);
  EXPECT_EQ(s.call("GET", "/v1/jobs", {}, "").status, 401);
  EXPECT_EQ(s.call("GET", "/metrics", {}, "nope").status, 401);
  EXPECT_EQ(s.call("DELETE", "/v1/jobs/1", {}, "").status, 401);

  const auto expect_field = [&](const HttpAnswer& a, int status, const std::string& field) {
    EXPECT_EQ(a.status, status) << a.body;
    const nlohmann::json body = nlohmann::json::parse(a.body);
    // A text error names "body" or, when it can tell, the field inside it ("body.kernel").
    EXPECT_EQ(body.at("field").get<std::string>().rfind(field, 0), 0u) << a.body;
    EXPECT_FALSE(body.at("error").get<std::string>().empty());
  };
  expect_field(s.call("POST", "/v1/jobs", "jobs: [ {name: x, tasks: [ {name: a, kernel: warp}]}]"),
               400, "body");
  expect_field(s.call("POST", "/v1/jobs", "{{{ not yaml"), 400, "body");
  expect_field(s.call("POST", "/v1/jobs", ""), 400, "body");
  expect_field(s.call("POST", "/v1/jobs?policy=hefft", kJob), 400, "policy");
  expect_field(s.call("POST", "/v1/jobs?policy=", kJob), 400, "policy");
  expect_field(s.call("POST", "/v1/jobs?colour=red", kJob), 400, "colour");
  expect_field(s.call("GET", "/v1/jobs/abc"), 400, "id");
  expect_field(s.call("GET", "/v1/jobs/99999999999999999999999"), 400, "id");
  expect_field(s.call("GET", "/v1/jobs/77"), 404, "id");
  const HttpAnswer wrong_field = s.call(
      "POST", "/v1/jobs", "jobs:\n  - name: x\n    tasks:\n      - {name: a, flops: lots}\n");
  EXPECT_EQ(wrong_field.status, 400) << wrong_field.body;
  EXPECT_NE(wrong_field.body.find("flops"), std::string::npos) << wrong_field.body;
  EXPECT_EQ(s.call("POST", "/v1/jobs", std::string(100 * 1024, 'x')).status, 413);
  EXPECT_EQ(s.call("GET", "/v1/nope").status, 404);
  EXPECT_EQ(s.call("GET", "/nope").status, 404);  // "/" is the dashboard
  EXPECT_EQ(
      s.call("POST", "/v1/nodes", "nodes: [ {name: gpu-x, devices: [{model: H900}]} ]").status,
      400);

  EXPECT_EQ(testing::stored_job_ids(s.store), stored_before);
  EXPECT_EQ(s.store.list("nodes/").size(), nodes_before);
  EXPECT_EQ(s.json("/v1/jobs").at("jobs").size(), 1u);
}

TEST(ServiceHttp, RegisteredNodesAreListedAndUsed) {
  RestService s;
  const std::size_t before = s.json("/v1/nodes").at("nodes").size();
  const HttpAnswer registered =
      s.call("POST", "/v1/nodes",
             "nodes:\n  - name: extra-tpu\n    devices: [{model: TPU-v5e, count: 2}]\n");
  ASSERT_EQ(registered.status, 201) << registered.body;
  EXPECT_EQ(s.call("POST", "/v1/nodes", "nodes: [ {name: extra-tpu, devices: [{model: TPU-v5e}]} ]")
                .status,
            400);  // the name is taken
  ASSERT_TRUE(eventually([&] { return s.json("/v1/nodes").at("nodes").size() == before + 1; }));
  const nlohmann::json nodes = s.json("/v1/nodes").at("nodes");
  EXPECT_EQ(nodes.back().at("name"), "extra-tpu");
  EXPECT_EQ(nodes.back().at("devices").at(0).at("count"), 2);
  EXPECT_TRUE(s.store.get("nodes/extra-tpu").has_value());  // registered again on restart
}

TEST(ServiceHttp, FollowerRedirectsWritesAndJobReadsToTheLeader) {
  RestService s(std::make_unique<FollowerOf>("http://10.0.0.7:8080"));
  const HttpAnswer post = s.call("POST", "/v1/jobs?policy=heft", kJob);
  EXPECT_EQ(post.status, 307);
  EXPECT_EQ(post.location, "http://10.0.0.7:8080/v1/jobs?policy=heft");
  EXPECT_EQ(s.call("DELETE", "/v1/jobs/1").status, 307);
  // A follower's own view is not the state: reads of jobs and nodes go to the leader too.
  const HttpAnswer list = s.call("GET", "/v1/jobs");
  EXPECT_EQ(list.status, 307);
  EXPECT_EQ(list.location, "http://10.0.0.7:8080/v1/jobs");
  EXPECT_EQ(s.call("GET", "/v1/jobs/1").location, "http://10.0.0.7:8080/v1/jobs/1");
  EXPECT_EQ(s.call("GET", "/v1/nodes").status, 307);
  // Its own health and metrics it answers itself; without a token, 401 as anywhere.
  EXPECT_EQ(s.call("GET", "/healthz", {}, "").status, 200);
  EXPECT_EQ(s.call("GET", "/metrics").status, 200);
  EXPECT_EQ(s.call("GET", "/v1/jobs", {}, "wrong").status, 401);
  EXPECT_TRUE(testing::stored_job_ids(s.store).empty());
}

TEST(ServiceHttp, StreamJobsOverRestNameTheFieldOfEveryMistake) {
  RestService s;
  const std::string good =
      "kind: stream\njobs:\n  - {name: train, gang: 2, steps: 1000, weight: 2, deadline: 600,\n"
      "     preemptible: false, rates: {H100-SXM: 100, A100-80GB: 50}}\n";
  const HttpAnswer created = s.call("POST", "/v1/jobs?policy=priority", good);
  ASSERT_EQ(created.status, 201) << created.body;
  const std::uint64_t id = nlohmann::json::parse(created.body).at("ids").at(0);
  const std::string path = "/v1/jobs/" + std::to_string(id);
  ASSERT_TRUE(eventually([&] { return s.json(path).at("state") == "completed"; }));
  const nlohmann::json job = s.json(path);
  EXPECT_EQ(job.at("kind"), "stream");
  EXPECT_EQ(job.at("policy"), "priority");
  EXPECT_EQ(job.at("stream").at("gang"), 2);
  EXPECT_EQ(job.at("stream").at("preemptible"), false);
  const nlohmann::json& task = job.at("tasks").at(0);
  ASSERT_EQ(task.at("gang_devices").size(), 2u);
  for (const auto& device : task.at("gang_devices"))
    EXPECT_EQ(device.get<std::string>().rfind(task.at("node").get<std::string>() + "/", 0), 0u)
        << device;
  EXPECT_NE(task.at("device").get<std::string>().find("H100"), std::string::npos);  // fastest
  EXPECT_DOUBLE_EQ(task.at("expected_seconds").get<double>(), 10.0);  // 1000 steps at 100/s

  const std::pair<std::string, std::string> bad[] = {
      {"kind: stream\njobs:\n  - {gang: 0, steps: 10, rates: {H100-SXM: 1}}\n",
       "body.jobs[0].gang"},
      {"kind: stream\njobs:\n  - {gang: 1.5, steps: 10, rates: {H100-SXM: 1}}\n",
       "body.jobs[0].gang"},
      {"kind: stream\njobs:\n  - {rates: {H100-SXM: 1}}\n", "body.jobs[0].steps"},
      {"kind: stream\njobs:\n  - {steps: -3, rates: {H100-SXM: 1}}\n", "body.jobs[0].steps"},
      {"kind: stream\njobs:\n  - {steps: 10}\n", "body.jobs[0].rates"},
      {"kind: stream\njobs:\n  - {steps: 10, rates: {H100-SXM: fast}}\n",
       "body.jobs[0].rates.H100-SXM"},
      {"kind: stream\njobs:\n  - {steps: 10, rates: {H200-NVL: 5}}\n",
       "body.jobs[0].rates.H200-NVL"},
      {"kind: stream\njobs:\n  - {steps: 10, gang: 4000, rates: {H100-SXM: 5}}\n",
       "body.jobs[0].gang"},
      {"kind: stream\njobs:\n  - {steps: 10, weight: 0, rates: {H100-SXM: 5}}\n",
       "body.jobs[0].weight"},
      {"kind: stream\njobs:\n  - {steps: 10, deadline: -1, rates: {H100-SXM: 5}}\n",
       "body.jobs[0].deadline"},
      {"kind: stream\njobs:\n  - {steps: 10, preemptible: maybe, rates: {H100-SXM: 5}}\n",
       "body.jobs[0].preemptible"},
      {"kind: stream\njobs:\n  - {steps: 10, colour: red, rates: {H100-SXM: 5}}\n",
       "body.jobs[0].colour"},
      {"kind: stream\nthroughputs: /etc/passwd\njobs:\n  - {steps: 1, rates: {V100: 1}}\n",
       "body.throughputs"},
      {"kind: stream\njobs: []\n", "body.jobs"},
  };
  for (const auto& [body, field] : bad) {
    const HttpAnswer answer = s.call("POST", "/v1/jobs", body);
    EXPECT_EQ(answer.status, 400) << body << answer.body;
    EXPECT_EQ(nlohmann::json::parse(answer.body).value("field", ""), field) << body << answer.body;
  }
  const HttpAnswer wrong_policy = s.call("POST", "/v1/jobs?policy=heft", good);
  EXPECT_EQ(wrong_policy.status, 400);
  EXPECT_EQ(nlohmann::json::parse(wrong_policy.body).at("field"), "policy");
  EXPECT_EQ(testing::stored_job_ids(s.store).size(), 1u);  // only the good one was stored
}

TEST(ServiceHttp, BadBytesInABodyAreA400NamingTheFieldAndStoreNothing) {
  RestService s;
  const auto refused = [&](const std::string& body, const std::string& field) {
    const HttpAnswer a = s.call("POST", "/v1/jobs", body);
    EXPECT_EQ(a.status, 400) << a.body;
    const nlohmann::json answer = nlohmann::json::parse(a.body);  // the answer is UTF-8
    EXPECT_EQ(answer.value("field", ""), field) << a.body;
    EXPECT_EQ(a.body.find("json.exception"), std::string::npos) << a.body;
    return answer;
  };
  // Bytes FF FE in a job name, in YAML and in JSON: the body, with line, column and offset.
  const std::string yaml = "jobs:\n  - name: \"ab\xFF\xFE\"\n    tasks: [{name: t, flops: 1}]\n";
  const nlohmann::json in_yaml = refused(yaml, "body");
  EXPECT_EQ(in_yaml.at("line"), 2);
  EXPECT_EQ(in_yaml.at("column"), 14);
  EXPECT_EQ(in_yaml.at("offset"), yaml.find('\xFF'));
  EXPECT_NE(in_yaml.at("error").get<std::string>().find("0xFF"), std::string::npos);
  EXPECT_NE(in_yaml.at("error").get<std::string>().find("name:"), std::string::npos);
  const nlohmann::json in_json = refused(
      "{\"jobs\": [{\"name\": \"\xFF\xFE\", \"tasks\": [{\"name\": \"t\", \"flops\": 1}]}]}",
      "body");
  EXPECT_EQ(in_json.at("line"), 1);
  EXPECT_EQ(in_json.at("column"), 21);
  // A truncated sequence and an overlong form are not UTF-8 either.
  refused("jobs:\n  - name: x\xE2\x82\n", "body");
  refused("jobs:\n  - name: x\xC0\xAF\n", "body");
  // A NUL, a line break or an escape in a job or task name: the name's field.
  refused("{\"jobs\": [{\"name\": \"a\\u0000b\", \"tasks\": [{\"name\": \"t\", \"flops\": 1}]}]}",
          "body.name");
  refused("jobs:\n  - name: x\n    tasks: [{name: \"t\\e[2J\", flops: 1}]\n", "body.name");
  refused("jobs:\n  - name: \"x\\ny\"\n    tasks: [{name: t, flops: 1}]\n", "body.name");
  EXPECT_EQ(s.call("POST", "/v1/jobs", std::string("jobs:\n  - name: \"a\0b\"\n", 22)).status, 400);
  refused("kind: stream\njobs:\n  - {name: \"a\\0b\", steps: 10, rates: {H100-SXM: 1}}\n",
          "body.jobs[0].name");
  refused("kind: stream\njobs:\n  - {name: \"a\xFF\", steps: 10, rates: {H100-SXM: 1}}\n", "body");
  // Registered nodes are read by the same readers behind the same check.
  EXPECT_EQ(
      s.call("POST", "/v1/nodes", "nodes: [ {name: \"n\xFF\", devices: [{model: H100-SXM}]} ]")
          .status,
      400);
  EXPECT_TRUE(testing::stored_job_ids(s.store).empty());
  EXPECT_TRUE(s.store.list("nodes/").empty());
}

TEST(ServiceHttp, AnUnexpectedExceptionIsA500WithARequestIdAndNoLibraryText) {
  RestService s(std::make_unique<LeaderLookupThatThrows>());
  const HttpAnswer first = s.call("GET", "/v1/jobs");
  const HttpAnswer second = s.call("POST", "/v1/jobs", kJob);
  for (const HttpAnswer& a : {first, second}) {
    EXPECT_EQ(a.status, 500) << a.body;
    EXPECT_EQ(a.body.find("json"), std::string::npos) << a.body;
    EXPECT_EQ(a.body.find("parse"), std::string::npos) << a.body;
    const nlohmann::json body = nlohmann::json::parse(a.body);
    const std::string id = body.at("request_id");
    EXPECT_FALSE(id.empty());
    EXPECT_NE(body.at("error").get<std::string>().find(id), std::string::npos) << a.body;
  }
  EXPECT_NE(nlohmann::json::parse(first.body).at("request_id"),
            nlohmann::json::parse(second.body).at("request_id"));
  EXPECT_EQ(s.call("GET", "/healthz", {}, "").status, 200);  // the server carries on
}

// Sends `body` to the service in chunks (Transfer-Encoding: chunked, no Content-Length).
httplib::Result send_chunked(RestService& s, const std::string& method, const std::string& path,
                             const std::string& body) {
  httplib::Client client(s.server->address());
  client.set_bearer_token_auth(kToken);
  client.set_read_timeout(std::chrono::seconds(20));
  client.set_write_timeout(std::chrono::seconds(20));
  const auto provider = [&body](std::size_t offset, httplib::DataSink& sink) {
    if (offset >= body.size()) {
      sink.done();
      return true;
    }
    return sink.write(body.data() + offset, std::min<std::size_t>(16 * 1024, body.size() - offset));
  };
  return method == "POST" ? client.Post(path, provider, "application/yaml")
                          : client.Put(path, provider, "application/yaml");
}

TEST(ServiceHttp, ChunkedBodiesAreHeldToTheBodyLimit) {
  RestService s;  // a 64 KiB limit
  // Under the limit, a chunked body is a submission like any other.
  const httplib::Result small = send_chunked(s, "POST", "/v1/jobs", kJob);
  ASSERT_TRUE(small) << httplib::to_string(small.error());
  EXPECT_EQ(small->status, 201) << small->body;
  const std::size_t stored = testing::stored_job_ids(s.store).size();
  // Over it: a valid workload padded with a comment, which would be stored were the limit
  // not applied.
  const std::string padded = "# " + std::string(80 * 1024, 'x') + "\n" + kJob;
  const httplib::Result over = send_chunked(s, "POST", "/v1/jobs", padded);
  ASSERT_TRUE(over) << httplib::to_string(over.error());
  EXPECT_EQ(over->status, 413) << over->body;
  EXPECT_EQ(nlohmann::json::parse(over->body).at("error"), "request body too large");
  const httplib::Result nodes = send_chunked(s, "POST", "/v1/nodes", padded);
  ASSERT_TRUE(nodes) << httplib::to_string(nodes.error());
  EXPECT_EQ(nodes->status, 413) << nodes->body;
  // Far over it (160 times the limit): reading stops; the answer, when the client gets to
  // read it before the connection closes, is 413.
  const httplib::Result huge = send_chunked(s, "POST", "/v1/jobs", std::string(10 << 20, '#'));
  if (huge) {
    EXPECT_EQ(huge->status, 413) << huge->body;
  }
  // Elsewhere a chunked body is not read at all: the server answers 411 and closes, so a
  // client still writing its body may see the write fail before it reads the answer (on a
  // busy machine it often does); an answer it reads is 411.
  const httplib::Result elsewhere = send_chunked(s, "PUT", "/v1/jobs", kJob);
  if (elsewhere) {
    EXPECT_EQ(elsewhere->status, 411) << elsewhere->body;
  }
  EXPECT_EQ(testing::stored_job_ids(s.store).size(), stored);
  EXPECT_TRUE(s.store.list("nodes/").empty());
  EXPECT_EQ(s.call("GET", "/healthz", {}, "").status, 200);
}

// A field of /proc/self/status in kB ("VmRSS", "VmHWM"), or -1.
long proc_status_kb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return -1;
}

TEST(ServiceHttp, AMegabyteOfBracketsIsA400InBoundedMemory) {
  RestService s(nullptr, 2 << 20);
  const std::string brackets(1'000'000, '[');
  // The same brackets after a line that makes the body look like a job stream, which the
  // stream submission reader takes.
  const std::string stream_brackets = "kind: stream\njobs: " + brackets;
  for (const std::string* body : {&brackets, &stream_brackets}) {
    // Writing 5 to clear_refs resets the peak (VmHWM) to the current resident size, so the
    // peak read after the request is this request's (Linux >= 4.0).
    std::ofstream("/proc/self/clear_refs") << "5";
    const long before_kb = proc_status_kb("VmRSS");
    const HttpAnswer a = s.call("POST", "/v1/jobs", *body);
    const long peak_kb = proc_status_kb("VmHWM");
    EXPECT_EQ(a.status, 400) << a.body.substr(0, 200);
    EXPECT_EQ(nlohmann::json::parse(a.body).at("field"), "body");
    ASSERT_GT(before_kb, 0);
    // About 50 MB at most for a 1 MB body (the body itself is held three times: the
    // client's, the server's, the parser's padded copy).
    EXPECT_LT(peak_kb - before_kb, 50'000) << body->substr(0, 20);
  }
  EXPECT_TRUE(testing::stored_job_ids(s.store).empty());
}

TEST(ServiceFactories, UnknownSchemesAndEnginesNameTheValidOnes) {
  try {
    open_state_store("sqlitee:/tmp/x.db");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sqlite"), std::string::npos) << e.what();
  }
  try {
    open_cluster_engine("simm", {});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("sim"), std::string::npos) << e.what();
  }
  EXPECT_THROW(open_state_store("sqlite:"), InputError);
  EXPECT_THROW(open_cluster_engine("sim:/no/such/cluster.yaml", {}), InputError);
  EXPECT_EQ(open_cluster_engine("sim", {.time_scale = 2})->name(), "sim");
  EXPECT_EQ(state_directory("sqlite:/var/lib/hetsched/state.db"), "/var/lib/hetsched");
}

TEST(ServiceFactories, GeneratedTokenIsSecretToTheOwnerAndReused) {
  TempDir dir;
  std::string path;
  const std::string token = load_or_create_token("", dir.path().string(), &path);
  EXPECT_EQ(token.size(), 64u);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
  struct stat info {};
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(load_or_create_token("", dir.path().string()), token);
  EXPECT_THROW(load_or_create_token(dir.file("missing"), dir.path().string()), InputError);
  EXPECT_TRUE(constant_time_equals("abc", "abc"));
  EXPECT_FALSE(constant_time_equals("abc", "abd"));
  EXPECT_FALSE(constant_time_equals("abc", "abcd"));
}

}  // namespace
}  // namespace hetsched
