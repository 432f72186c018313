#include "hetsched/service/service_factories.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "etcd_leader_election.hpp"
#include "etcd_state_store.hpp"
#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "simulated_engine.hpp"
#include "slurm_engine.hpp"
#include "sqlite_state_store.hpp"

namespace hetsched {
namespace {

// "scheme:rest" or "scheme://rest" -> {scheme, rest}; no colon: {text, ""}.
std::pair<std::string, std::string> split_scheme(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return {std::string(text), {}};
  std::string_view rest = text.substr(colon + 1);
  if (rest.substr(0, 2) == "//") rest.remove_prefix(2);
  return {std::string(text.substr(0, colon)), std::string(rest)};
}

}  // namespace

const std::vector<std::string>& state_store_schemes() {
  static const std::vector<std::string> schemes{"sqlite", "etcd"};
  return schemes;
}

const std::vector<std::string>& cluster_engine_names() {
  static const std::vector<std::string> names{"sim", "slurm"};
  return names;
}

EtcdStateUrl parse_etcd_state_url(std::string_view url) {
  const auto [scheme, rest] = split_scheme(url);
  if (scheme != "etcd")
    throw InputError(SourcePosition{"--state"}, "expected etcd://HOST:PORT,...");
  EtcdStateUrl parsed;
  std::string_view hosts = rest;
  if (const auto slash = hosts.find('/'); slash != std::string_view::npos) {
    const std::string_view space = hosts.substr(slash + 1);
    hosts = hosts.substr(0, slash);
    if (space.empty() || space.find_first_of("/ ") != std::string_view::npos)
      throw InputError(
          SourcePosition{"--state"},
          fmt::format("etcd namespace '{}' must be one word (etcd://HOST:PORT,.../NAME)", space));
    parsed.key_prefix = "/" + std::string(space) + "/";
  }
  try {
    parsed.endpoints = EtcdClient::parse_endpoints(hosts);
  } catch (const EtcdError& e) {
    throw InputError(SourcePosition{"--state"}, e.what());
  }
  return parsed;
}

std::unique_ptr<Leadership> open_leadership(std::string_view state_url, std::string my_address) {
  if (split_scheme(state_url).first != "etcd") return std::make_unique<SoleLeader>(my_address);
  const EtcdStateUrl etcd = parse_etcd_state_url(state_url);
  EtcdLeaderElectionOptions options;
  options.election_key = etcd.key_prefix + "leader";
  return std::make_unique<EtcdLeaderElection>(etcd.endpoints, std::move(my_address), options);
}

std::unique_ptr<StateStore> open_state_store(std::string_view url) {
  const auto [scheme, rest] = split_scheme(url);
  if (scheme == "etcd") {
    const EtcdStateUrl etcd = parse_etcd_state_url(url);
    return std::make_unique<EtcdStateStore>(std::make_shared<EtcdClient>(etcd.endpoints),
                                            etcd.key_prefix);
  }
  if (scheme == "sqlite") {
    if (rest.empty())
      throw InputError(SourcePosition{"--state"}, "sqlite: needs a path (sqlite:PATH)");
    const std::filesystem::path parent = std::filesystem::path(rest).parent_path();
    std::error_code error;
    if (!parent.empty()) std::filesystem::create_directories(parent, error);
    if (error)
      throw InputError(SourcePosition{"--state"},
                       fmt::format("cannot create '{}': {}", parent.string(), error.message()));
    return std::make_unique<SqliteStateStore>(rest);
  }
  throw InputError(SourcePosition{"--state"},
                   unknown_name_message("state store scheme", scheme, state_store_schemes()));
}

std::unique_ptr<ClusterEngine> open_cluster_engine(std::string_view spec,
                                                   const EngineSpecOptions& options) {
  const auto [name, rest] = split_scheme(spec);
  if (name == "sim") {
    if (!(options.time_scale > 0))
      throw InputError(SourcePosition{"--time-scale"}, "the time scale must be > 0");
    const Cluster cluster = rest.empty() ? default_cluster() : load_cluster_file(rest);
    return std::make_unique<SimulatedEngine>(cluster, options.time_scale);
  }
  if (name == "slurm") {
    if (!(options.time_scale > 0) || std::isinf(options.time_scale))
      throw InputError(SourcePosition{"--time-scale"},
                       "a real Slurm runs on the wall clock: the time scale must be a finite "
                       "number > 0 (max is for the sim engine)");
    SlurmEngineOptions slurm;
    slurm.slurm_conf = rest;  // empty: SLURM_CONF or Slurm's default
    // Tasks without a command sleep their predicted (model) seconds, compressed by
    // the time scale like the simulated engine's.
    slurm.sleep_seconds_per_predicted_second = 1.0 / options.time_scale;
    if (!options.slurm_job_tag.empty()) slurm.job_tag = options.slurm_job_tag;
    return std::make_unique<SlurmEngine>(slurm);
  }
  throw InputError(SourcePosition{"--engine"},
                   unknown_name_message("engine", name, cluster_engine_names()));
}

std::string state_directory(std::string_view state_url) {
  const auto [scheme, rest] = split_scheme(state_url);
  if (scheme == "sqlite") {
    const std::filesystem::path parent = std::filesystem::path(rest).parent_path();
    return parent.empty() ? std::string(".") : parent.string();
  }
  return ".";
}

std::string load_or_create_token(const std::string& token_file, const std::string& state_dir,
                                 std::string* used_path) {
  const auto read_first_line = [](const std::string& path) -> std::optional<std::string> {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::string line;
    std::getline(in, line);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    return line;
  };
  if (!token_file.empty()) {
    const std::optional<std::string> token = read_first_line(token_file);
    if (!token) throw InputError(SourcePosition{token_file}, "cannot read the token file");
    if (token->empty()) throw InputError(SourcePosition{token_file}, "the token file is empty");
    if (used_path != nullptr) *used_path = token_file;
    return *token;
  }
  const std::string path = (std::filesystem::path(state_dir) / "token").string();
  if (used_path != nullptr) *used_path = path;
  if (std::filesystem::exists(path)) {
    const std::optional<std::string> token = read_first_line(path);
    if (!token || token->empty())
      throw InputError(SourcePosition{path}, "the generated token file is unreadable or empty");
    return *token;
  }
  // The token is a secret, not a simulation input: it must be unpredictable, so it comes
  // from the kernel's CSPRNG (/dev/urandom) rather than the seeded hetsched::Rng that
  // makes every other random choice reproducible.
  std::array<unsigned char, 32> bytes{};
  {
    std::ifstream urandom("/dev/urandom", std::ios::binary);
    if (!urandom.read(reinterpret_cast<char*>(bytes.data()), bytes.size()))
      throw InputError(SourcePosition{"/dev/urandom"}, "cannot read random bytes for the token");
  }
  std::string token;
  for (unsigned char b : bytes) token += fmt::format("{:02x}", b);
  std::filesystem::create_directories(state_dir);
  // O_EXCL: two servers starting at once do not overwrite each other's token.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    const std::optional<std::string> other = read_first_line(path);
    if (other && !other->empty()) return *other;
    throw InputError(SourcePosition{path}, "cannot create the token file");
  }
  const std::string line = token + "\n";
  const bool written = ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  ::fsync(fd);
  ::close(fd);
  if (!written) throw InputError(SourcePosition{path}, "cannot write the token file");
  return token;
}

}  // namespace hetsched
