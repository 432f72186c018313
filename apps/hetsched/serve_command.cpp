// `hetsched serve`: the control plane with its REST API (see docs/service.md).
#include <fmt/format.h>
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/policy/policy_registry.hpp"
#include "hetsched/service/control_plane.hpp"
#include "hetsched/service/service_factories.hpp"
#include "hetsched/service/service_http_server.hpp"
#include "hetsched/service/simulated_engine.hpp"

namespace hetsched::cli {
namespace {

struct ServeOptions {
  std::string listen = "127.0.0.1:8080";
  std::string state = "sqlite:hetsched-state/state.db";
  std::string engine = "sim";
  std::string policy = "heft";
  std::string token_file;
  double time_scale = 1.0;
  std::size_t max_body_bytes = 1u << 20;
  std::size_t threads = 8;
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
  const auto [host, port] = parse_listen(options.listen);
  make_policy(options.policy, {});  // an unknown name is an InputError before anything is created
  std::unique_ptr<ClusterEngine> engine =
      open_cluster_engine(options.engine, EngineSpecOptions{.time_scale = options.time_scale});
  std::unique_ptr<StateStore> store;  // last of the checks: it creates files
  try {
    store = open_state_store(options.state);
  } catch (const StateStoreError& e) {
    throw InputError(SourcePosition{"--state"}, e.what());
  }
  std::string token_path;
  const std::string token =
      load_or_create_token(options.token_file, state_directory(options.state), &token_path);
  SoleLeader leadership(fmt::format("http://{}", options.listen));
  ControlPlaneOptions plane_options;
  plane_options.default_policy = options.policy;
  plane_options.time_scale = options.time_scale;
  plane_options.node_registry = dynamic_cast<SimulatedEngine*>(engine.get());
  ControlPlane control_plane(*store, *engine, leadership, plane_options);

  // SIGINT and SIGTERM end the server; they are taken by sigwait below, never by a
  // handler, so every thread started from here on blocks them.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  control_plane.start();  // reloads the store and reconciles with the engine
  ServiceHttpServer server(
      control_plane,
      HttpServerOptions{
          .token = token, .max_body_bytes = options.max_body_bytes, .threads = options.threads});
  try {
    server.bind(host, port);
  } catch (const std::runtime_error& e) {
    throw InputError(SourcePosition{"--listen"}, e.what());
  }
  server.start();
  std::printf("listening on %s\ntoken file: %s\n", server.address().c_str(), token_path.c_str());
  std::fflush(stdout);
  int received = 0;
  sigwait(&signals, &received);
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
  command->add_option("--state", options->state, "where the state lives: sqlite:PATH")
      ->capture_default_str();
  command
      ->add_option("--engine", options->engine,
                   "what carries out placements: sim or sim:CLUSTER_FILE (the digital twin)")
      ->capture_default_str();
  command->add_option("--policy", options->policy, "default DAG policy (see `hetsched policies`)")
      ->capture_default_str();
  command->add_option(
      "--token-file", options->token_file,
      "file holding the bearer token (default: generated into the state directory)");
  command
      ->add_option("--time-scale", options->time_scale,
                   "sim engine: simulated seconds per real second")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  command->add_option("--max-body-bytes", options->max_body_bytes, "larger request bodies get 413")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30));
  command->add_option("--threads", options->threads, "HTTP request threads")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{256}));
  command->callback([options] { run_serve(*options); });
}

}  // namespace hetsched::cli
