// ReplicaDeployment: replicas of `hetsched serve` on one etcd state; who leads is
// read from each replica's /healthz ("leader": true once it has been elected and has
// reloaded the state).
#include "support/replica_deployment.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>

namespace hetsched {
namespace {

bool says_it_leads(const std::string& address, const std::string& token) {
  const HttpAnswer answer = http_call(address, "GET", "/healthz", token);
  if (answer.status != 200) return false;
  const auto body = nlohmann::json::parse(answer.body, nullptr, false);
  return body.is_object() && body.value("leader", false);
}

}  // namespace

ReplicaDeployment::ReplicaDeployment(std::string cli_path, std::vector<std::string> serve_arguments,
                                     std::string token, std::size_t replicas)
    : token_(std::move(token)) {
  for (std::size_t i = 0; i < std::max<std::size_t>(1, replicas); ++i) {
    replicas_.push_back(std::make_unique<ServeProcess>(cli_path, serve_arguments));
    if (i == 0 && wait_for_leader(std::chrono::seconds(20)).empty()) {
      throw std::runtime_error("replica deployment: the first replica did not become leader");
    }
  }
}

ReplicaDeployment::~ReplicaDeployment() = default;

std::string ReplicaDeployment::leader_address() const {
  for (const auto& replica : replicas_) {
    if (says_it_leads(replica->address(), token_)) return replica->address();
  }
  return {};
}

std::string ReplicaDeployment::wait_for_leader(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto leader = leader_address(); !leader.empty()) return leader;
    if (std::chrono::steady_clock::now() >= deadline) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::vector<std::string> ReplicaDeployment::addresses() const {
  std::vector<std::string> result;
  const std::string leader = leader_address();
  if (!leader.empty()) result.push_back(leader);
  for (const auto& replica : replicas_) {
    if (replica->address() != leader) result.push_back(replica->address());
  }
  return result;
}

void ReplicaDeployment::kill_leader() {
  const std::string leader = leader_address();
  for (auto it = replicas_.begin(); it != replicas_.end(); ++it) {
    if ((*it)->address() == leader) {
      (*it)->kill_now();
      replicas_.erase(it);
      return;
    }
  }
}

}  // namespace hetsched
