#include "hetsched/service/service_benchmark.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "hetsched/service/replica_deployment.hpp"
#include "hetsched/service/serve_process.hpp"

namespace hetsched {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::unique_ptr<httplib::Client> make_client(const std::string& base_url) {
  auto client = std::make_unique<httplib::Client>(base_url);
  client->set_connection_timeout(2, 0);
  client->set_read_timeout(30, 0);
  client->set_write_timeout(30, 0);
  client->set_tcp_nodelay(true);  // as a client of a latency-bound API should
  return client;
}

HttpAnswer call(httplib::Client& client, const std::string& method, const std::string& path,
                const std::string& token, const std::string& body,
                const std::string& content_type) {
  httplib::Headers headers;
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  if (method != "GET" && method != "POST" && method != "DELETE")
    throw std::invalid_argument("http_call: unsupported method " + method);
  const httplib::Result result = method == "GET"    ? client.Get(path, headers)
                                 : method == "POST" ? client.Post(path, headers, body, content_type)
                                                    : client.Delete(path, headers);
  HttpAnswer out;
  if (!result) return out;
  out.status = result->status;
  out.body = result->body;
  out.location = result->get_header_value("Location");
  return out;
}

// A job of one small task, unique by its name.
std::string one_task_job(std::uint64_t n) {
  return fmt::format(
      "jobs:\n  - name: bench-{}\n    tasks:\n      - {{name: t, kernel: elementwise, flops: "
      "1.0e9, bytes: 1.0e9}}\n",
      n);
}

// A random layered DAG job of `tasks` tasks (matmul and elementwise kernels, each task
// after one to three earlier ones), every figure drawn from `rng`.
std::string dag_job(std::uint64_t n, std::size_t tasks, Rng& rng) {
  std::string text = fmt::format("jobs:\n  - name: dag-{}\n    tasks:\n", n);
  for (std::size_t t = 0; t < tasks; ++t) {
    const bool matmul = rng.uniform() < 0.5;
    text += fmt::format("      - {{name: t{}, kernel: {}, flops: {:.3e}, bytes: {:.3e}", t,
                        matmul ? "dense_matmul" : "elementwise", rng.uniform(1e11, 1e13),
                        rng.uniform(1e9, 2e10));
    if (t > 0) {
      std::set<std::size_t> after;
      const std::size_t k = 1 + rng.below(std::min<std::size_t>(3, t));
      while (after.size() < k) after.insert(rng.below(t));
      text += ", after: [";
      bool first = true;
      for (std::size_t a : after) {
        text += fmt::format("{}t{}", first ? "" : ", ", a);
        first = false;
      }
      text += "]";
    }
    text += "}\n";
  }
  return text;
}

std::optional<std::vector<std::uint64_t>> ids_of(const HttpAnswer& answer) {
  if (answer.status != 201) return std::nullopt;
  try {
    return nlohmann::json::parse(answer.body).at("ids").get<std::vector<std::uint64_t>>();
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Every job id the service lists, or nullopt when no address answers.
std::optional<std::set<std::uint64_t>> listed_ids(const std::vector<std::string>& addresses,
                                                  const std::string& token) {
  for (const std::string& address : addresses) {
    const HttpAnswer answer = http_call(address, "GET", "/v1/jobs", token);
    if (answer.status != 200) continue;
    try {
      std::set<std::uint64_t> ids;
      // Parsed into a named value first: a range-for over a member of a temporary dangles.
      const nlohmann::json listing = nlohmann::json::parse(answer.body);
      for (const auto& job : listing.at("jobs")) ids.insert(job.at("id").get<std::uint64_t>());
      return ids;
    } catch (const std::exception&) {
      continue;
    }
  }
  return std::nullopt;
}

double metric_value(const std::string& text, const std::string& name) {
  std::size_t at = 0;
  while ((at = text.find(name + " ", at)) != std::string::npos) {
    if (at == 0 || text[at - 1] == '\n') return std::stod(text.substr(at + name.size() + 1));
    at += name.size();
  }
  return 0;
}

void write_token_file(const std::string& path, const std::string& token) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) throw std::runtime_error("bench service: cannot write " + path);
  const std::string line = token + "\n";
  const bool ok = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::close(fd);
  if (!ok) throw std::runtime_error("bench service: cannot write " + path);
}

}  // namespace

HttpAnswer http_call(const std::string& base_url, const std::string& method,
                     const std::string& path, const std::string& token, const std::string& body,
                     const std::string& content_type) {
  auto client = make_client(base_url);
  return call(*client, method, path, token, body, content_type);
}

struct RestartDeployment::Child {
  std::unique_ptr<ServeProcess> process;
};

RestartDeployment::RestartDeployment(std::string cli_path, std::vector<std::string> serve_arguments,
                                     std::string token)
    : cli_path_(std::move(cli_path)),
      serve_arguments_(std::move(serve_arguments)),
      token_(std::move(token)),
      child_(std::make_unique<Child>()) {
  recover();
}

RestartDeployment::~RestartDeployment() = default;

std::vector<std::string> RestartDeployment::addresses() const {
  if (!child_->process) return {};
  return {child_->process->address()};
}

void RestartDeployment::kill_leader() {
  if (child_->process) child_->process->kill_now();
}

void RestartDeployment::recover() {
  child_->process.reset();
  child_->process = std::make_unique<ServeProcess>(cli_path_, serve_arguments_);
}

AckedLossResult measure_acked_loss(ServiceDeployment& deployment, std::uint64_t submissions,
                                   std::size_t client_threads, Rng& rng) {
  AckedLossResult result;
  const std::uint64_t low = std::max<std::uint64_t>(1, submissions / 10);
  const std::uint64_t kill_after =
      low + rng.below(std::max<std::uint64_t>(1, submissions * 8 / 10));
  std::mutex mutex;  // guards the deployment, the address and the results
  std::vector<std::string> addresses = deployment.addresses();
  std::uint64_t generation = 0;  // bumps at each restart
  bool killed = false;
  std::atomic<std::uint64_t> next{0};
  const std::string token = deployment.token();

  const auto client_loop = [&] {
    std::string address;
    std::uint64_t seen_generation = ~0ull;
    std::unique_ptr<httplib::Client> client;
    for (std::uint64_t i; (i = next.fetch_add(1)) < submissions;) {
      const auto deadline = Clock::now() + std::chrono::seconds(60);
      while (Clock::now() < deadline) {
        {
          std::lock_guard lock(mutex);
          if (seen_generation != generation || !client) {
            seen_generation = generation;
            address = addresses.empty() ? std::string() : addresses.front();
            client = address.empty() ? nullptr : make_client(address);
          }
        }
        if (!client) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        const HttpAnswer answer =
            call(*client, "POST", "/v1/jobs", token, one_task_job(i), "application/yaml");
        if (const auto ids = ids_of(answer)) {
          std::lock_guard lock(mutex);
          result.acknowledged_ids.insert(result.acknowledged_ids.end(), ids->begin(), ids->end());
          if (!killed && result.acknowledged_ids.size() >= kill_after) {
            killed = true;
            result.killed_after = result.acknowledged_ids.size();
            deployment.kill_leader();
            deployment.recover();
            addresses = deployment.addresses();
            ++generation;
          }
          break;
        }
        // No answer (the server died) or a refusal: try again, perhaps elsewhere.
        std::lock_guard lock(mutex);
        if (answer.status == 0 || answer.status == 307) {
          if (answer.status == 307 && !answer.location.empty()) {
            const std::size_t path = answer.location.find("/v1/");
            if (path != std::string::npos) addresses = {answer.location.substr(0, path)};
          } else {
            addresses = deployment.addresses();
          }
          ++generation;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t c = 0; c < std::max<std::size_t>(1, client_threads); ++c)
    threads.emplace_back(client_loop);
  for (auto& t : threads) t.join();
  result.submitted = submissions;
  result.acknowledged = result.acknowledged_ids.size();
  const auto listed = listed_ids(deployment.addresses(), token);
  for (std::uint64_t id : result.acknowledged_ids)
    if (!listed || listed->count(id) == 0) ++result.lost;
  return result;
}

double measure_failover_seconds(ServiceDeployment& deployment, std::uint64_t jobs_before) {
  const std::string token = deployment.token();
  std::set<std::uint64_t> acknowledged;
  {
    auto client = make_client(deployment.addresses().at(0));
    for (std::uint64_t i = 0; i < jobs_before; ++i)
      if (const auto ids =
              ids_of(call(*client, "POST", "/v1/jobs", token, one_task_job(i), "application/yaml")))
        acknowledged.insert(ids->begin(), ids->end());
  }
  const auto killed_at = Clock::now();
  deployment.kill_leader();
  deployment.recover();
  const auto deadline = killed_at + std::chrono::seconds(120);
  while (Clock::now() < deadline) {
    if (const auto listed = listed_ids(deployment.addresses(), token)) {
      const bool all = std::all_of(acknowledged.begin(), acknowledged.end(),
                                   [&](std::uint64_t id) { return listed->count(id) != 0; });
      if (all) return seconds_since(killed_at);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  throw std::runtime_error("bench service: the service did not come back within 120 s");
}

ServiceBenchmarkResult run_service_benchmark(const ServiceBenchmarkParams& params) {
  namespace fs = std::filesystem;
  ServiceBenchmarkResult result;
  Rng rng(params.seed);
  const fs::path dir = params.work_dir.empty() ? fs::temp_directory_path() /
                                                     fmt::format("hetsched-bench-{}", ::getpid())
                                               : fs::path(params.work_dir);
  fs::create_directories(dir);
  std::string token;
  for (int i = 0; i < 4; ++i) token += fmt::format("{:016x}", rng.next_u64());
  const std::string token_file = (dir / "token").string();
  write_token_file(token_file, token);
  std::string engine = "sim";
  if (params.nodes > 0) {
    std::string cluster = "nodes:\n";
    for (std::size_t n = 0; n < params.nodes; ++n)
      cluster += fmt::format(
          "  - {{name: node-{:04}, devices: [{{model: {}, count: 4}}, {{model: EPYC-9654, "
          "count: 1}}]}}\n",
          n, n % 2 == 0 ? "H100-SXM" : "A100-80GB");
    const std::string cluster_file = (dir / "cluster.yaml").string();
    std::ofstream(cluster_file) << cluster;
    engine = "sim:" + cluster_file;
  }
  const auto serve_arguments = [&](const std::string& db) {
    fs::remove(dir / db);
    fs::remove(dir / (db + "-wal"));
    fs::remove(dir / (db + "-shm"));
    return std::vector<std::string>{"--state",      "sqlite:" + (dir / db).string(),
                                    "--engine",     engine,
                                    "--token-file", token_file,
                                    "--policy",     params.policy,
                                    "--time-scale", "1000000"};
  };

  {  // REST submissions per second, then decisions per second, on one server.
    RestartDeployment deployment(params.cli_path, serve_arguments("throughput.db"), token);
    const std::string address = deployment.addresses().at(0);
    std::atomic<std::uint64_t> next{0}, acknowledged{0};
    const auto started = Clock::now();
    std::vector<std::thread> clients;
    for (std::size_t c = 0; c < std::max<std::size_t>(1, params.client_threads); ++c)
      clients.emplace_back([&] {
        auto client = make_client(address);
        client->set_keep_alive(true);
        for (std::uint64_t i; (i = next.fetch_add(1)) < params.submissions;)
          if (ids_of(call(*client, "POST", "/v1/jobs", token, one_task_job(i), "application/yaml")))
            ++acknowledged;
      });
    for (auto& c : clients) c.join();
    result.submissions_per_second = static_cast<double>(acknowledged) / seconds_since(started);

    const auto metrics = [&] { return http_call(address, "GET", "/metrics", token).body; };
    // The one-task jobs are placed first (one decision each), so that the decision rate
    // is the DAG jobs' own and not the tail of the submissions' backlog.
    double decisions_before = metric_value(metrics(), "hetsched_decisions_total");
    for (const auto deadline = Clock::now() + std::chrono::seconds(300);
         decisions_before < static_cast<double>(acknowledged.load()) && Clock::now() < deadline;
         decisions_before = metric_value(metrics(), "hetsched_decisions_total"))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::vector<std::string> dags;
    for (std::uint64_t j = 0; j < params.decision_jobs; ++j)
      dags.push_back(dag_job(j, params.tasks_per_job, rng));
    const double expected =
        decisions_before + static_cast<double>(params.decision_jobs * params.tasks_per_job);
    const auto dag_started = Clock::now();
    {  // from as many clients as the submissions, as users of a shared service submit
      std::atomic<std::size_t> next_dag{0};
      std::vector<std::thread> dag_clients;
      for (std::size_t c = 0; c < std::max<std::size_t>(1, params.client_threads); ++c)
        dag_clients.emplace_back([&] {
          auto client = make_client(address);
          client->set_keep_alive(true);
          for (std::size_t i; (i = next_dag.fetch_add(1)) < dags.size();)
            call(*client, "POST", "/v1/jobs", token, dags[i], "application/yaml");
        });
      for (auto& c : dag_clients) c.join();
    }
    double decisions = decisions_before;
    const auto deadline = dag_started + std::chrono::seconds(300);
    while (decisions < expected && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      decisions = metric_value(metrics(), "hetsched_decisions_total");
    }
    result.decisions = static_cast<std::uint64_t>(decisions - decisions_before);
    result.decisions_per_second = (decisions - decisions_before) / seconds_since(dag_started);
    result.policy_decisions_per_second = metric_value(metrics(), "hetsched_decisions_per_second");
  }
  if (params.progress) params.progress(1, 3);
  // With etcd: replicas on one etcd state, each measurement in a namespace of its own.
  const auto make_deployment = [&](const std::string& name) -> std::unique_ptr<ServiceDeployment> {
    if (params.etcd_state.empty())
      return std::make_unique<RestartDeployment>(params.cli_path, serve_arguments(name + ".db"),
                                                 token);
    const std::string state = fmt::format("{}/bench-{}-{}-{}", params.etcd_state, name, ::getpid(),
                                          rng.next_u64() % 1000000);
    return std::make_unique<ReplicaDeployment>(
        params.cli_path,
        std::vector<std::string>{"--state", state, "--engine", "sim", "--token-file", token_file,
                                 "--policy", params.policy, "--time-scale", "1000000"},
        token, params.replicas);
  };
  {
    const auto deployment = make_deployment("failover");
    result.failover_seconds = measure_failover_seconds(*deployment, 200);
    result.failover_mode = deployment->failover_mode();
  }
  if (params.progress) params.progress(2, 3);
  {
    const auto deployment = make_deployment("kill");
    const AckedLossResult loss =
        measure_acked_loss(*deployment, params.kill_submissions, params.client_threads, rng);
    result.acked_jobs_lost = loss.lost;
    result.acked_jobs = loss.acknowledged;
  }
  if (params.progress) params.progress(3, 3);
  if (params.work_dir.empty()) fs::remove_all(dir);
  return result;
}

}  // namespace hetsched
