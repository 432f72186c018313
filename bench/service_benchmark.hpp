// Figures of `hetsched bench service`: REST submissions per second over loopback from
// several client threads, scheduling decisions per second through the service,
// failover time, acknowledged jobs lost when the server is killed with SIGKILL
// during a run of submissions, and the latency of GET /healthz while a thousand idle or
// slowloris connections are held open.
//
// The failover seam: a ServiceDeployment is whatever serves the API — one
// `hetsched serve` on SQLite restarted after the kill ("restart", here), or several
// replicas on etcd where a follower takes over ("replica", the etcd deployment joins
// through the same interface). measure_failover and measure_acked_loss only use it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/core/rng.hpp"
#include "support/service_deployment.hpp"

namespace hetsched {

struct AckedLossResult {
  std::uint64_t submitted = 0;     // submissions attempted
  std::uint64_t acknowledged = 0;  // answered 201 with an id
  std::uint64_t lost = 0;          // acknowledged ids missing after recovery
  std::uint64_t killed_after = 0;  // acknowledgements seen when the kill was sent
  std::vector<std::uint64_t> acknowledged_ids;
};

// Submits `submissions` one-task jobs from `client_threads` threads, kills the leader
// after a number of acknowledgements drawn from `rng` (between a tenth and nine
// tenths of them), lets the clients retry against addresses() until all submissions
// were tried, recovers, and counts the acknowledged ids the service no longer has.
AckedLossResult measure_acked_loss(ServiceDeployment& deployment, std::uint64_t submissions,
                                   std::size_t client_threads, Rng& rng);

// Seconds from kill_leader() until a server answers GET /v1/jobs with every job it had
// acknowledged before the kill (`jobs_before` one-task jobs are submitted first).
double measure_failover_seconds(ServiceDeployment& deployment, std::uint64_t jobs_before);

// Connections held open against a server, as an attacker would: `connections` of them,
// from loopback addresses 127.0.0.2, 127.0.0.3, ... (`addresses` of them, round robin;
// all of 127.0.0.0/8 is loopback on Linux), each reopened when the server closes it
// (no sooner than `reopen_after`). Idle ones send nothing; slowloris ones send a request
// line, then one header line every `slowloris_interval` and never the blank line.
struct HeldConnectionsParams {
  std::size_t connections = 1000;
  std::size_t addresses = 8;
  bool slowloris = false;
  std::chrono::milliseconds slowloris_interval{1000};
  std::chrono::milliseconds reopen_after{100};
};

struct HealthzUnderLoadResult {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;  // an unanswered probe counts its time waited
  std::size_t probes = 0;
  std::size_t unanswered = 0;     // no 200 within the probe's timeout
  std::size_t held_min = 0;       // the fewest connections held open when a probe began
  double held_mean = 0;           // connections held open when a probe began, on average
  std::uint64_t reopened = 0;     // held connections the server closed (and were reopened)
  std::uint64_t refused = 0;      // of which answered 503 first (a connection bound)
  std::uint64_t cut_answers = 0;  // of which answered 408 first (a request-head deadline)
};

// Holds `held` connections open to the server at `base_url` (http://127.0.0.1:PORT) and
// meanwhile sends `probes` GET /healthz from 127.0.0.1, one at a time on a new connection
// each, `probe_spacing` apart (so that the probes span the server's idle and head
// timeouts and its closing and the holder's reopening fall among them); a probe without
// an answer in `probe_timeout` is unanswered.
HealthzUnderLoadResult measure_healthz_under_held_connections(
    const std::string& base_url, const HeldConnectionsParams& held, std::size_t probes,
    std::chrono::milliseconds probe_spacing = std::chrono::milliseconds(60),
    std::chrono::milliseconds probe_timeout = std::chrono::seconds(10));

struct ServiceBenchmarkParams {
  std::string cli_path;  // the hetsched binary, for the serve children
  // The binary whose `serve` the connection phase measures (another build's, to compare);
  // empty: cli_path.
  std::string connections_serve_path;
  // GET /healthz latency under held connections: this many idle, then slowloris, ones.
  std::size_t held_connections = 1000;
  std::size_t healthz_probes = 200;
  bool connections_only = false;          // run only that phase
  std::uint64_t restart_tasks = 100'000;  // stored tasks the restart is measured with
  std::string work_dir;                   // where the SQLite files go (created; removed afterwards)
  std::size_t client_threads = 16;        // concurrent REST clients (submissions and DAG jobs)
  std::uint64_t submissions = 2000;       // for submissions_per_second
  std::uint64_t kill_submissions = 1000;  // for acked_jobs_lost
  // DAG jobs for decisions_per_second: enough that the rate is the service's steady one,
  // not the second after the submissions (whose jobs are still finishing then).
  std::uint64_t decision_jobs = 1000;
  std::size_t tasks_per_job = 20;
  std::string policy = "heft";
  // Nodes of the twin the measured service runs on, each four GPUs (H100 and A100 nodes
  // alternating) and a CPU; 0: the built-in default cluster.
  std::size_t nodes = 1000;
  std::uint64_t seed = 1;
  // etcd://HOST:PORT,... : failover and kill -9 are measured on `replicas` servers
  // sharing this etcd (a follower takes over) instead of one restarted SQLite server.
  std::string etcd_state;
  std::size_t replicas = 3;
  // Called after each phase (held connections, throughput, failover, kill -9) with
  // (done, phases).
  std::function<void(std::size_t, std::size_t)> progress;
};

struct ServiceBenchmarkResult {
  double submissions_per_second = 0;
  // End to end: first DAG submission (from client_threads clients) to last placement.
  double decisions_per_second = 0;
  std::uint64_t decisions = 0;
  double policy_decisions_per_second = 0;  // inside the policy only (/metrics gauge)
  double failover_seconds = 0;
  std::string failover_mode;
  std::uint64_t acked_jobs_lost = 0;
  std::uint64_t acked_jobs = 0;
  HealthzUnderLoadResult healthz_under_idle;
  HealthzUnderLoadResult healthz_under_slowloris;
  // kill -9 of a SQLite server holding restart_tasks tasks (1,000 replicas of a chain, one
  // submission): seconds from the restart until GET /v1/jobs lists them all, and the
  // store's size on disk before the kill.
  double restart_seconds = 0;
  std::uint64_t restart_tasks = 0;
  std::uint64_t restart_store_bytes = 0;
  // With etcd: the largest single job (a chain of tasks, as large as the body limit
  // allows) that an etcd-backed leader accepted and ran to completion; 0 without etcd.
  std::uint64_t max_job_tasks_etcd = 0;
};

ServiceBenchmarkResult run_service_benchmark(const ServiceBenchmarkParams& params);

}  // namespace hetsched
