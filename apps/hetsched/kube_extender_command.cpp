// `hetsched kube-extender`: serves kube-scheduler's extender verbs (filter,
// prioritize, bind) and /healthz until SIGINT or SIGTERM. prioritize ranks nodes by
// what the --policy registry policy would choose (default greedy-eft). With --kube-api it binds
// pods through the API server and, every --sync-seconds, refreshes its node cache and
// releases the resources of pods that ended.
#include <fcntl.h>
#include <fmt/format.h>
#include <httplib.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/service/kube/kube_api_client.hpp"
#include "hetsched/service/kube/kube_extender.hpp"
#include "hetsched/service/kube/kube_extender_http.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct KubeExtenderOptions {
  std::string listen;
  std::string nodes_file;
  std::string kube_api;
  std::string token_file;
  std::string ca_file;
  std::string policy{kDefaultExtenderPolicy};
  std::size_t max_body_bytes = kDefaultExtenderBodyLimit;
  double sync_seconds = 10;
};

nlohmann::json read_node_list_file(const std::string& path) {
  const std::string text = read_text_file(path, "node list");
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    int line = 1, column = 1;
    for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw InputError(SourcePosition{path, line, column},
                     "not JSON (expected a v1.NodeList, as `kubectl get nodes -o json` prints)");
  }
}

std::pair<std::string, int> split_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw InputError("--listen: '" + listen + "' is not HOST:PORT (e.g. 127.0.0.1:8888)");
  const std::string port_text = listen.substr(colon + 1);
  int port = -1;
  try {
    std::size_t used = 0;
    port = std::stoi(port_text, &used);
    if (used != port_text.size()) port = -1;
  } catch (const std::exception&) {
    port = -1;
  }
  if (port < 0 || port > 65535)
    throw InputError("--listen: port '" + port_text + "' is not a number from 0 to 65535");
  return {listen.substr(0, colon), port};
}

void sync_with_api(KubeApi& api, KubeExtender& extender) {
  const KubeApiResult nodes = api.list_nodes();
  if (nodes.ok) {
    try {
      extender.load_nodes(nodes.body, true);
    } catch (const InputError& e) {
      std::cerr << "hetsched kube-extender: warning: node list from the API server: " << e.what()
                << "\n";
    }
  } else {
    std::cerr << "hetsched kube-extender: warning: " << nodes.error << "\n";
  }
  const KubeApiResult pods = api.list_live_pods();
  if (!pods.ok) {
    std::cerr << "hetsched kube-extender: warning: " << pods.error << "\n";
    return;
  }
  std::set<std::string> live;
  if (const auto items = pods.body.find("items"); items != pods.body.end() && items->is_array()) {
    for (const auto& pod : *items) {
      const auto metadata = pod.find("metadata");
      if (metadata == pod.end() || !metadata->is_object()) continue;
      const auto uid = metadata->find("uid");
      if (uid != metadata->end() && uid->is_string()) live.insert(uid->get<std::string>());
    }
    extender.reconcile(live);
  }
}

int stop_pipe[2] = {-1, -1};

void write_stop_byte(int) {
  const int saved = errno;
  const char byte = 1;
  [[maybe_unused]] const auto written = ::write(stop_pipe[1], &byte, 1);
  errno = saved;
}

void run_kube_extender(const KubeExtenderOptions& options) {
  const auto [host, port] = split_listen(options.listen);
  std::unique_ptr<KubeApiClient> api;
  if (!options.kube_api.empty()) {
    KubeApiOptions api_options;
    api_options.url = options.kube_api;
    if (!options.token_file.empty())
      api_options.bearer_token = read_kube_token_file(options.token_file);
    api_options.ca_file = options.ca_file;
    api = std::make_unique<KubeApiClient>(api_options);
  } else if (!options.token_file.empty() || !options.ca_file.empty()) {
    throw InputError("--kube-token-file and --kube-ca-file need --kube-api URL");
  }
  KubeExtender extender(api.get(), options.policy);
  if (!options.nodes_file.empty()) {
    try {
      extender.load_nodes(read_node_list_file(options.nodes_file));
    } catch (const InputError& e) {
      if (!e.where().file.empty()) throw;
      throw InputError(SourcePosition{options.nodes_file, 0, 0}, e.message());
    }
  }

  // SIGINT and SIGTERM write a byte to a pipe (all a handler may safely do, in whatever
  // thread the signal lands: libraries start threads of their own before main); one
  // thread reads it and stops the server.
  if (::pipe2(stop_pipe, O_CLOEXEC) != 0) throw std::runtime_error("cannot create a pipe");
  struct sigaction on_signal {};
  on_signal.sa_handler = write_stop_byte;
  sigemptyset(&on_signal.sa_mask);
  ::sigaction(SIGINT, &on_signal, nullptr);
  ::sigaction(SIGTERM, &on_signal, nullptr);

  httplib::Server server;
  server.set_payload_max_length(options.max_body_bytes);
  KubeExtenderHttp(extender, options.max_body_bytes).mount(server);
  const int bound_port =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound_port < 0)
    throw InputError(
        fmt::format("--listen: cannot listen on {} (address in use or not local)", options.listen));

  std::mutex mutex;
  std::condition_variable wake;
  bool stopping = false;
  bool listen_done = false;
  std::thread signal_thread([&] {
    char byte = 0;
    while (::read(stop_pipe[0], &byte, 1) < 0 && errno == EINTR) {
    }
    std::unique_lock lock(mutex);
    stopping = true;
    wake.notify_all();
    // A signal may come before listen_after_bind runs, when stop() has nothing to stop
    // yet: repeat it until the server has ended.
    while (!listen_done) {
      server.stop();
      wake.wait_for(lock, std::chrono::milliseconds(50), [&] { return listen_done; });
    }
  });
  std::thread sync_thread;
  if (api) {
    sync_thread = std::thread([&] {
      std::unique_lock lock(mutex);
      while (!stopping) {
        lock.unlock();
        sync_with_api(*api, extender);
        lock.lock();
        wake.wait_for(lock, std::chrono::duration<double>(options.sync_seconds),
                      [&] { return stopping; });
      }
    });
  }
  std::cout << fmt::format("hetsched kube-extender listening on http://{}:{}", host, bound_port)
            << std::endl;
  server.listen_after_bind();
  {
    std::lock_guard lock(mutex);
    stopping = true;
    listen_done = true;
  }
  wake.notify_all();
  write_stop_byte(0);  // ends the signal thread's wait if no signal came
  signal_thread.join();
  if (sync_thread.joinable()) sync_thread.join();
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::close(stop_pipe[0]);
  ::close(stop_pipe[1]);
}

}  // namespace

void add_kube_extender_command(CLI::App& app) {
  auto options = std::make_shared<KubeExtenderOptions>();
  CLI::App* command = app.add_subcommand(
      "kube-extender",
      "serve kube-scheduler's extender verbs (filter, prioritize, bind) with hetsched's placement");
  command->add_option("--listen", options->listen, "HOST:PORT to listen on (port 0: any free)")
      ->required();
  command->add_option("--policy", options->policy,
                      "registry policy whose choice ranks the nodes in prioritize (`hetsched "
                      "policies` lists them); default greedy-eft");
  command->add_option("--nodes", options->nodes_file,
                      "a v1.NodeList JSON file (kubectl get nodes -o json) to fill the node cache");
  command->add_option("--kube-api", options->kube_api,
                      "the Kubernetes API server's URL, to bind pods and follow nodes and pods");
  command->add_option("--kube-token-file", options->token_file,
                      "file holding the bearer token for --kube-api");
  command->add_option("--kube-ca-file", options->ca_file,
                      "PEM CA bundle to verify an https --kube-api");
  command->add_option("--max-body-bytes", options->max_body_bytes, "largest request body accepted")
      ->check(finite_range(std::size_t{1024}, std::size_t{1} << 31));
  command
      ->add_option("--sync-seconds", options->sync_seconds,
                   "how often to refresh nodes and release ended pods from --kube-api")
      ->check(finite_range(0.1, 3600.0));
  command->callback([options] { run_kube_extender(*options); });
}

}  // namespace hetsched::cli
