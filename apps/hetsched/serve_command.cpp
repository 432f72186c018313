// `hetsched serve`: the control plane with its REST API (see docs/service.md).
#include <fmt/format.h>
#include <signal.h>

#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <memory>
#include <thread>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/service/control_plane.hpp"
#include "hetsched/service/deferred_leadership.hpp"
#include "hetsched/service/service_factories.hpp"
#include "hetsched/service/service_http_server.hpp"
#include "hetsched/service/service_log.hpp"
#include "hetsched/stream/stream_policy.hpp"
#include "hetsched/stream/stream_scheduler.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

// How long a stop on SIGINT or SIGTERM may take before the process ends regardless.
constexpr std::chrono::seconds kStopLimit{4};

volatile std::sig_atomic_t stop_signalled = 0;
extern "C" void stop_signal_received(int) { stop_signalled = 1; }

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";
  std::string state = "sqlite:hetsched-state/state.db";
  std::string engine = "sim";
  std::string policy = "heft";
  std::string stream_policy = "fifo";
  bool stream_backfill = false;
  std::string device_placement = "most-free-type";
  double round_seconds = 360;
  double migration_seconds = 30;
  std::string token_file;
  std::string time_scale = "1";  // a positive number, or max
  std::string slurm_job_tag;
  std::size_t max_body_bytes = 1u << 20;
  std::size_t threads = 8;
  std::size_t max_connections = 4096;
  std::size_t max_connections_per_address = 256;
  double request_head_seconds = 10;
  double idle_seconds = 5;
  std::string log_level = "info";
};

std::pair<std::string, int> parse_listen(const std::string& text) {
  const std::size_t colon = text.rfind(':');
  int port = -1;
  if (colon != std::string::npos && colon > 0) {
    const char* begin = text.data() + colon + 1;
    const char* end = text.data() + text.size();
    const auto [stop, error] = std::from_chars(begin, end, port);
    if (error != std::errc() || stop != end || begin == end) port = -1;
  }
  if (port < 0 || port > 65535)
    throw InputError(SourcePosition{"--listen"},
                     fmt::format("expected HOST:PORT with a port in 0..65535, got '{}'", text));
  return {text.substr(0, colon), port};
}

void run_serve(const ServeOptions& options) {
  // SIGINT and SIGTERM end the server. They are blocked here, before the engine, the store
  // or anything else of ours starts a thread (each inherits the mask), and taken by
  // sigtimedwait below. Threads started before (a math library's pool, at load time) do
  // not block them: one delivered there runs stop_signal_received, which only raises a
  // flag the same loop reads, instead of the default action killing the process.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  struct sigaction on_stop {};
  on_stop.sa_handler = stop_signal_received;
  sigemptyset(&on_stop.sa_mask);
  sigaction(SIGINT, &on_stop, nullptr);
  sigaction(SIGTERM, &on_stop, nullptr);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  const auto [host, port] = parse_listen(options.listen);
  if (options.max_connections_per_address > options.max_connections)
    throw InputError(SourcePosition{"--max-connections-per-address"},
                     fmt::format("{} is more than --max-connections ({})",
                                 options.max_connections_per_address, options.max_connections));
  make_policy(options.policy, {});  // an unknown name is an InputError before anything is created
  make_stream_policy(options.stream_policy);
  const double time_scale = options.time_scale == "max" ? std::numeric_limits<double>::infinity()
                                                        : parse_option_number(options.time_scale);
  std::unique_ptr<ClusterEngine> engine = open_cluster_engine(
      options.engine,
      EngineSpecOptions{.time_scale = time_scale, .slurm_job_tag = options.slurm_job_tag});
  std::unique_ptr<StateStore> store;  // last of the checks: it creates files
  try {
    store = open_state_store(options.state);
  } catch (const StateStoreError& e) {
    throw InputError(SourcePosition{"--state"}, e.what());
  }
  std::string token_path;
  const std::string token =
      load_or_create_token(options.token_file, state_directory(options.state), &token_path);
  // Leadership is known once the port is bound (it advertises the address); until
  // this replica leads and its control plane has reloaded the state, writes are
  // redirected to the leader (see DeferredLeadership).
  DeferredLeadership leadership;
  ControlPlaneOptions plane_options;
  plane_options.default_policy = options.policy;
  plane_options.default_stream_policy = options.stream_policy;
  plane_options.stream_easy_backfilling = options.stream_backfill;
  plane_options.stream_device_placement = *device_placement_named(options.device_placement);
  plane_options.stream_round_seconds = options.round_seconds;
  plane_options.stream_migration_seconds = options.migration_seconds;
  plane_options.time_scale = time_scale;
  ControlPlane control_plane(*store, *engine, leadership, plane_options);

  // Every connection holds a descriptor: the soft limit (often 1024) goes up to the hard one.
  raise_open_file_limit();
  ServiceHttpServer server(
      control_plane,
      HttpServerOptions{.token = token,
                        .max_body_bytes = options.max_body_bytes,
                        .threads = options.threads,
                        .max_connections = options.max_connections,
                        .max_connections_per_address = options.max_connections_per_address,
                        .idle_seconds = options.idle_seconds,
                        .request_head_seconds = options.request_head_seconds});
  if (server.max_connections() < options.max_connections)
    std::fprintf(stderr,
                 "hetsched serve: the open-file limit leaves room for %zu connections; serving at "
                 "most that many (--max-connections %zu)\n",
                 server.max_connections(), options.max_connections);
  try {
    server.bind(host, port);
  } catch (const std::runtime_error& e) {
    throw InputError(SourcePosition{"--listen"}, e.what());
  }
  leadership.set(open_leadership(options.state, server.address()));
  bool leading = false;
  const auto lead_if_elected = [&] {
    if (leading || !leadership.inner()->is_leader()) return;
    control_plane.start();  // reloads the store and reconciles with the engine
    leadership.open();
    leading = true;
  };
  lead_if_elected();  // a sole leader starts before it answers anything
  server.start();
  std::printf("listening on %s\ntoken file: %s\n", server.address().c_str(), token_path.c_str());
  std::fflush(stdout);
  while (true) {
    timespec period{0, 100'000'000};
    if (sigtimedwait(&signals, nullptr, &period) > 0 || stop_signalled) break;
    if (leading && !leadership.inner()->is_leader()) {
      // Another replica may lead now: stop at once rather than act on stale state;
      // a supervisor restarts this one as a follower.
      std::fprintf(stderr, "hetsched serve: lost leadership; exiting\n");
      server.stop();
      control_plane.stop();
      std::fflush(stdout);
      std::_Exit(3);
    }
    lead_if_elected();
  }
  // A clean stop ends within kStopLimit whatever is in flight (a client uploading slowly,
  // a long write to the store): everything acknowledged is stored already, so what is
  // still running when the limit passes is cut short, as a crash would cut it.
  std::thread([] {
    std::this_thread::sleep_for(kStopLimit);
    std::fprintf(stderr,
                 "hetsched serve: stopping took longer than %lld s; exiting now (everything "
                 "acknowledged is stored)\n",
                 static_cast<long long>(kStopLimit.count()));
    std::fflush(stdout);
    std::_Exit(0);
  }).detach();
  server.stop();
  control_plane.stop();
}

}  // namespace

void add_serve_command(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  CLI::App* command = app.add_subcommand(
      "serve",
      "run the control plane: REST API, durable state, placements carried out by an engine");
  command->add_option("--listen", options->listen, "HOST:PORT to listen on (port 0: any free port)")
      ->capture_default_str();
  command
      ->add_option("--state", options->state,
                   "where the state lives: sqlite:PATH, or etcd://HOST:PORT,...[/NAMESPACE] "
                   "(replicas on one etcd elect a leader)")
      ->capture_default_str();
  command
      ->add_option("--engine", options->engine,
                   "what carries out placements: sim or sim:CLUSTER_FILE (the digital twin), slurm "
                   "or slurm:SLURM_CONF (a real Slurm)")
      ->capture_default_str();
  command->add_option("--stream-policy", options->stream_policy,
                      "default stream policy for `kind: stream` jobs (fifo, sjf, edf, priority, "
                      "fair-share, las, aware-las, ...)");
  command->add_flag("--backfill", options->stream_backfill,
                    "queue-mode stream policies backfill by EASY (as simulate --backfill)");
  command
      ->add_option("--device-placement", options->device_placement,
                   "which node and device a stream job gets (as simulate --device-placement)")
      ->capture_default_str()
      ->check(CLI::IsMember(device_placement_names()));
  command
      ->add_option("--round-seconds", options->round_seconds,
                   "round length of round-mode stream policies (each round a lease per gang)")
      ->capture_default_str()
      ->check(finite_range(1, 86400));
  command
      ->add_option("--migration-seconds", options->migration_seconds,
                   "checkpoint/restart time a stream job pays when a round moves it")
      ->capture_default_str()
      ->check(finite_range(0, 86400));
  command->add_option("--policy", options->policy, "default DAG policy (see `hetsched policies`)")
      ->capture_default_str();
  command->add_option(
      "--token-file", options->token_file,
      "file holding the bearer token (default: generated into the state directory)");
  command
      ->add_option("--time-scale", options->time_scale,
                   "simulated seconds per real second (sim engine: max runs the twin as fast "
                   "as it can; slurm engine: stand-in tasks sleep their predicted time "
                   "divided by it)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            if (text == "max" || finite_positive(text).empty()) return "";
            return fmt::format("expected a positive number or max, got '{}'", text);
          },
          "POSITIVE|max"));
  command->add_option(
      "--slurm-job-tag", options->slurm_job_tag,
      "slurm engine: the Slurm job comment marking this service's jobs (default hetsched)");
  command->add_option("--max-body-bytes", options->max_body_bytes, "larger request bodies get 413")
      ->capture_default_str()
      ->check(finite_range(std::size_t{1024}, std::size_t{1} << 30));
  command
      ->add_option("--threads", options->threads,
                   "HTTP threads kept ready (more start on demand, one per open connection)")
      ->capture_default_str()
      ->check(finite_range(std::size_t{1}, std::size_t{256}));
  command
      ->add_option("--max-connections", options->max_connections,
                   "open connections at most; beyond, a new one gets 503 (lowered to what the "
                   "open-file limit allows)")
      ->capture_default_str()
      ->check(finite_range(std::size_t{1}, std::size_t{1'000'000}));
  command
      ->add_option("--max-connections-per-address", options->max_connections_per_address,
                   "open connections at most from one client address (IPv6: one /64); beyond, "
                   "503")
      ->capture_default_str()
      ->check(finite_range(std::size_t{1}, std::size_t{1'000'000}));
  command
      ->add_option("--request-head-seconds", options->request_head_seconds,
                   "a request's line and headers must arrive within this of its first byte, or "
                   "the connection gets 408 and is closed (slow clients cannot hold it)")
      ->capture_default_str()
      ->check(finite_range(0.1, 3600.0));
  command
      ->add_option("--idle-seconds", options->idle_seconds,
                   "a connection on which no request starts for this long is closed")
      ->capture_default_str()
      ->check(finite_range(0.1, 3600.0));
  command
      ->add_option("--log-level", options->log_level,
                   "the lowest level of the service's log lines written to stderr: trace, "
                   "debug, info, warn, error, critical or off")
      ->capture_default_str();
  command->callback([options] {
    set_service_log_level(options->log_level);
    run_serve(*options);
  });
}

}  // namespace hetsched::cli
