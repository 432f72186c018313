#include "service_benchmark.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "hetsched/core/quantile.hpp"
#include "hetsched/service/service_http_server.hpp"
#include "support/replica_deployment.hpp"
#include "support/serve_process.hpp"
#include "support/service_deployment.hpp"

namespace hetsched {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
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

// A chain of `tasks` small tasks, `replicas` times (one submission).
std::string chain_job(const std::string& name, std::uint64_t tasks, std::uint64_t replicas) {
  std::string text =
      fmt::format("jobs:\n  - name: {}\n    count: {}\n    tasks:\n", name, replicas);
  for (std::uint64_t t = 0; t < tasks; ++t)
    text += t == 0 ? "      - {name: t0, kernel: elementwise, flops: 1.0e6, bytes: 1.0e6}\n"
                   : fmt::format(
                         "      - {{name: t{}, kernel: elementwise, flops: 1.0e6, "
                         "bytes: 1.0e6, after: [t{}]}}\n",
                         t, t - 1);
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

// An attacker's connections (HeldConnectionsParams), held open by one thread that polls
// them all: it connects them without blocking, reopens those the server closes, and, for
// slowloris ones, trickles header lines.
class ConnectionHolder {
 public:
  ConnectionHolder(const std::string& host, int port, const HeldConnectionsParams& params)
      : params_(params), slots_(params.connections) {
    server_.sin_family = AF_INET;
    server_.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::inet_pton(AF_INET, host.c_str(), &server_.sin_addr) != 1)
      throw std::runtime_error("bench service: held connections need an IPv4 address, got " + host);
    thread_ = std::thread([this] { run(); });
  }
  ~ConnectionHolder() {
    stop_ = true;
    thread_.join();
    for (Slot& slot : slots_)
      if (slot.fd >= 0) ::close(slot.fd);
  }
  ConnectionHolder(const ConnectionHolder&) = delete;
  ConnectionHolder& operator=(const ConnectionHolder&) = delete;

  std::size_t open() const { return open_; }
  // Waits until every connection is open (or `limit` passes); false if not all opened.
  bool wait_until_all_open(std::chrono::milliseconds limit) const {
    const auto deadline = Clock::now() + limit;
    while (open_ < slots_.size() && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return open_ >= slots_.size();
  }
  std::uint64_t reopened() const { return reopened_; }
  std::uint64_t refused() const { return refused_; }
  std::uint64_t cut_answers() const { return cut_answers_; }

 private:
  enum class State { closed, connecting, open };
  struct Slot {
    int fd = -1;
    State state = State::closed;
    Clock::time_point next{};  // closed: when to reopen; open slowloris: the next line
    std::size_t lines = 0;
    bool answered = false;
  };

  void open_slot(std::size_t i, Clock::time_point now) {
    Slot& slot = slots_[i];
    slot = Slot{};
    slot.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (slot.fd < 0) {
      slot.next = now + params_.reopen_after;
      return;
    }
    if (spread_) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      local.sin_addr.s_addr =
          htonl(INADDR_LOOPBACK + 1 +
                static_cast<std::uint32_t>(i % std::max<std::size_t>(1, params_.addresses)));
      if (::bind(slot.fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0 &&
          errno == EADDRNOTAVAIL)
        spread_ = false;  // this loopback has 127.0.0.1 only: all from there
    }
    if (::connect(slot.fd, reinterpret_cast<const sockaddr*>(&server_), sizeof server_) == 0 ||
        errno == EINPROGRESS) {
      slot.state = State::connecting;
      return;
    }
    ::close(slot.fd);
    slot.fd = -1;
    slot.next = now + params_.reopen_after;
  }

  void close_slot(Slot& slot, Clock::time_point now) {
    if (slot.state == State::open) {
      --open_;
      ++reopened_;
    }
    ::close(slot.fd);
    slot.fd = -1;
    slot.state = State::closed;
    slot.next = now + params_.reopen_after;
  }

  bool send_text(Slot& slot, const std::string& text) {
    return ::send(slot.fd, text.data(), text.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(text.size());
  }

  void run() {
    std::vector<pollfd> polled;
    std::vector<std::size_t> polled_slot;
    const auto interval = params_.slowloris_interval;
    while (!stop_) {
      auto now = Clock::now();
      auto wake = now + std::chrono::milliseconds(50);
      polled.clear();
      polled_slot.clear();
      for (std::size_t i = 0; i < slots_.size(); ++i) {
        Slot& slot = slots_[i];
        if (slot.state == State::closed && now >= slot.next) open_slot(i, now);
        if (slot.state == State::open && params_.slowloris && now >= slot.next) {
          if (!send_text(slot, fmt::format("X-Held-{}: {}\r\n", slot.lines, slot.lines))) {
            close_slot(slot, now);
          } else {
            ++slot.lines;
            slot.next += interval;
          }
        }
        if (slot.state == State::closed || (params_.slowloris && slot.state == State::open))
          wake = std::min(wake, slot.next);
        if (slot.state != State::closed) {
          polled.push_back(
              {slot.fd, slot.state == State::connecting ? short(POLLOUT) : short(POLLIN), 0});
          polled_slot.push_back(i);
        }
      }
      const int wait = static_cast<int>(std::clamp<long long>(
          std::chrono::duration_cast<std::chrono::milliseconds>(wake - Clock::now()).count(), 0,
          50));
      if (::poll(polled.data(), polled.size(), wait) <= 0) continue;
      now = Clock::now();
      for (std::size_t k = 0; k < polled.size(); ++k) {
        if (polled[k].revents == 0) continue;
        Slot& slot = slots_[polled_slot[k]];
        if (slot.state == State::connecting) {
          int error = 0;
          socklen_t length = sizeof error;
          ::getsockopt(slot.fd, SOL_SOCKET, SO_ERROR, &error, &length);
          if (error != 0) {
            close_slot(slot, now);
            continue;
          }
          slot.state = State::open;
          ++open_;
          if (params_.slowloris) {
            // Spread the trickles over the interval, so that the lines do not come in waves.
            if (!send_text(slot, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"))
              close_slot(slot, now);
            else
              slot.next = now + interval * static_cast<long>(polled_slot[k] % 16 + 1) / 16;
          }
          continue;
        }
        char buffer[4096];
        const ssize_t n = ::recv(slot.fd, buffer, sizeof buffer, 0);
        if (n > 0) {
          if (!slot.answered) {
            slot.answered = true;
            const std::string_view head(buffer, static_cast<std::size_t>(n));
            if (head.rfind("HTTP/1.1 503", 0) == 0) ++refused_;
            if (head.rfind("HTTP/1.1 408", 0) == 0) ++cut_answers_;
          }
          continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        close_slot(slot, now);
      }
    }
  }

  const HeldConnectionsParams params_;
  sockaddr_in server_{};
  std::vector<Slot> slots_;
  bool spread_ = true;
  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> open_{0};
  std::atomic<std::uint64_t> reopened_{0}, refused_{0}, cut_answers_{0};
  std::thread thread_;
};

}  // namespace

HealthzUnderLoadResult measure_healthz_under_held_connections(
    const std::string& base_url, const HeldConnectionsParams& held, std::size_t probes,
    std::chrono::milliseconds probe_spacing, std::chrono::milliseconds probe_timeout) {
  raise_open_file_limit();
  constexpr std::string_view kScheme = "http://";
  const std::size_t colon = base_url.rfind(':');
  if (base_url.rfind(kScheme, 0) != 0 || colon == std::string::npos || colon < kScheme.size())
    throw std::invalid_argument("bench service: expected http://HOST:PORT, got " + base_url);
  const std::string host = base_url.substr(kScheme.size(), colon - kScheme.size());
  const int port = std::stoi(base_url.substr(colon + 1));
  HealthzUnderLoadResult result;
  ConnectionHolder holder(host, port, held);
  // A server that cannot take them all is measured with what it took.
  holder.wait_until_all_open(std::chrono::seconds(30));
  std::vector<double> latencies_ms;
  result.held_min = held.connections;
  const auto timeout_s = static_cast<time_t>(probe_timeout.count() / 1000);
  const auto timeout_us = static_cast<time_t>(probe_timeout.count() % 1000 * 1000);
  for (std::size_t p = 0; p < probes; ++p) {
    const auto started = Clock::now();
    const std::size_t open = holder.open();
    result.held_min = std::min(result.held_min, open);
    result.held_mean += static_cast<double>(open);
    httplib::Client client(base_url);
    client.set_connection_timeout(timeout_s, timeout_us);
    client.set_read_timeout(timeout_s, timeout_us);
    client.set_write_timeout(timeout_s, timeout_us);
    client.set_tcp_nodelay(true);
    const httplib::Result answer = client.Get("/healthz");
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
    latencies_ms.push_back(ms);
    if (!answer || answer->status != 200) ++result.unanswered;
    std::this_thread::sleep_until(started + probe_spacing);
  }
  result.probes = latencies_ms.size();
  if (result.probes > 0) result.held_mean /= static_cast<double>(result.probes);
  result.max_ms =
      latencies_ms.empty() ? 0 : *std::max_element(latencies_ms.begin(), latencies_ms.end());
  result.p50_ms = nearest_rank_quantile(latencies_ms, 0.50);
  result.p99_ms = nearest_rank_quantile(latencies_ms, 0.99);
  result.reopened = holder.reopened();
  result.refused = holder.refused();
  result.cut_answers = holder.cut_answers();
  return result;
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
            client = address.empty() ? nullptr : make_http_client(address);
          }
        }
        if (!client) {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          continue;
        }
        const HttpAnswer answer =
            http_call(*client, "POST", "/v1/jobs", token, one_task_job(i), "application/yaml");
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
    auto client = make_http_client(deployment.addresses().at(0));
    for (std::uint64_t i = 0; i < jobs_before; ++i)
      if (const auto ids = ids_of(
              http_call(*client, "POST", "/v1/jobs", token, one_task_job(i), "application/yaml")))
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

  const std::size_t phases = params.connections_only ? 1 : 6;
  {  // GET /healthz while connections are held open: idle ones, then slowloris ones. They
     // come from 8 loopback addresses, 125 each for the default thousand, under serve's
     // default bound per address (256), so that the server holds them all rather than
     // refusing most at once.
    RestartDeployment deployment(
        params.connections_serve_path.empty() ? params.cli_path : params.connections_serve_path,
        serve_arguments("connections.db"), token);
    const std::string address = deployment.addresses().at(0);
    HeldConnectionsParams held;
    held.connections = params.held_connections;
    result.healthz_under_idle =
        measure_healthz_under_held_connections(address, held, params.healthz_probes);
    held.slowloris = true;
    result.healthz_under_slowloris =
        measure_healthz_under_held_connections(address, held, params.healthz_probes);
  }
  if (params.progress) params.progress(1, phases);
  if (params.connections_only) {
    if (params.work_dir.empty()) fs::remove_all(dir);
    return result;
  }
  {  // REST submissions per second, then decisions per second, on one server.
    RestartDeployment deployment(params.cli_path, serve_arguments("throughput.db"), token);
    const std::string address = deployment.addresses().at(0);
    std::atomic<std::uint64_t> next{0}, acknowledged{0};
    const auto started = Clock::now();
    std::vector<std::thread> clients;
    for (std::size_t c = 0; c < std::max<std::size_t>(1, params.client_threads); ++c)
      clients.emplace_back([&] {
        auto client = make_http_client(address);
        client->set_keep_alive(true);
        for (std::uint64_t i; (i = next.fetch_add(1)) < params.submissions;)
          if (ids_of(http_call(*client, "POST", "/v1/jobs", token, one_task_job(i),
                               "application/yaml")))
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
          auto client = make_http_client(address);
          client->set_keep_alive(true);
          for (std::size_t i; (i = next_dag.fetch_add(1)) < dags.size();)
            http_call(*client, "POST", "/v1/jobs", token, dags[i], "application/yaml");
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
  if (params.progress) params.progress(2, phases);
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
  if (params.progress) params.progress(3, phases);
  {
    const auto deployment = make_deployment("kill");
    const AckedLossResult loss =
        measure_acked_loss(*deployment, params.kill_submissions, params.client_threads, rng);
    result.acked_jobs_lost = loss.lost;
    result.acked_jobs = loss.acknowledged;
  }
  if (params.progress) params.progress(4, phases);
  {  // Restart with many stored tasks: one submission of 1,000 replicas of a chain, every
     // task placed (HEFT plans each job whole) and none finished (the twin crawls), then
     // kill -9 and start again on the same file.
    const std::uint64_t chain = std::max<std::uint64_t>(1, params.restart_tasks / 1000);
    const std::uint64_t replicas = std::max<std::uint64_t>(1, params.restart_tasks / chain);
    auto arguments = serve_arguments("restart.db");
    arguments.back() = "0.000001";  // --time-scale
    RestartDeployment deployment(params.cli_path, arguments, token);
    const std::string address = deployment.addresses().at(0);
    const HttpAnswer accepted =
        http_call(address, "POST", "/v1/jobs", token, chain_job("restart", chain, replicas));
    const auto metrics = [&] { return http_call(address, "GET", "/metrics", token).body; };
    const double placements = static_cast<double>(chain * replicas);
    for (const auto deadline = Clock::now() + std::chrono::seconds(300);
         accepted.status == 201 &&
         metric_value(metrics(), "hetsched_decisions_total") < placements &&
         Clock::now() < deadline;)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (const char* suffix : {"", "-wal"}) {
      std::error_code ignored;
      const auto size = fs::file_size(dir / (std::string("restart.db") + suffix), ignored);
      if (!ignored) result.restart_store_bytes += size;
    }
    deployment.kill_leader();
    const auto restarted = Clock::now();
    deployment.recover();  // returns once the new process listens
    const std::string again = deployment.addresses().at(0);
    HttpAnswer listed;
    for (const auto deadline = Clock::now() + std::chrono::seconds(300);
         (listed = http_call(again, "GET", "/v1/jobs", token)).status != 200 &&
         Clock::now() < deadline;)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    result.restart_seconds = seconds_since(restarted);
    if (accepted.status == 201 && listed.status == 200 &&
        nlohmann::json::parse(listed.body).at("jobs").size() == replicas)
      result.restart_tasks = chain * replicas;
  }
  if (params.progress) params.progress(5, phases);
  if (!params.etcd_state.empty()) {
    // The largest chain that fits the default body limit, and smaller ones, on one
    // etcd-backed replica running the twin as fast as it can.
    for (const std::uint64_t tasks : {1000, 5000, 10000, 15000}) {
      const std::string text = chain_job("large", tasks, 1);
      if (text.size() > (1u << 20)) break;
      const std::string state = fmt::format("{}/bench-large-{}-{}", params.etcd_state, ::getpid(),
                                            rng.next_u64() % 1000000);
      ReplicaDeployment replica(params.cli_path,
                                {"--state", state, "--engine", "sim", "--token-file", token_file,
                                 "--policy", params.policy, "--time-scale", "max"},
                                token, 1);
      const std::string leader = replica.wait_for_leader(std::chrono::seconds(10));
      const auto ids = ids_of(http_call(leader, "POST", "/v1/jobs", token, text));
      if (!ids || ids->empty()) break;
      bool completed = false;
      for (const auto deadline = Clock::now() + std::chrono::seconds(120);
           !completed && Clock::now() < deadline;) {
        const HttpAnswer job =
            http_call(leader, "GET", fmt::format("/v1/jobs/{}", ids->front()), token);
        completed =
            job.status == 200 &&
            nlohmann::json::parse(job.body, nullptr, false).value("state", "") == "completed";
        if (!completed) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      if (!completed) break;
      result.max_job_tasks_etcd = tasks;
    }
  }
  if (params.progress) params.progress(6, phases);
  if (params.work_dir.empty()) fs::remove_all(dir);
  return result;
}

}  // namespace hetsched
