#include "hetsched/service/simulated_engine.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"

namespace hetsched {

std::vector<EngineNode> engine_nodes_of(const Cluster& cluster) {
  std::vector<EngineNode> nodes;
  for (const Node& node : cluster.nodes()) {
    EngineNode out;
    out.name = node.name;
    out.memory_bytes = node.host_memory_bytes;
    for (DeviceId id : node.devices) {
      const DeviceSpec& spec = cluster.device(id).spec;
      if (spec.kind == DeviceKind::cpu) out.cpus += static_cast<std::uint32_t>(spec.compute_units);
      auto group = std::find_if(out.devices.begin(), out.devices.end(), [&](const auto& g) {
        return g.kind == spec.kind && g.model == spec.model;
      });
      if (group == out.devices.end())
        out.devices.push_back({spec.kind, spec.model, 1});
      else
        ++group->count;
    }
    nodes.push_back(std::move(out));
  }
  return nodes;
}

SimulatedEngine::SimulatedEngine(const Cluster& cluster, double time_scale)
    : time_scale_(time_scale) {
  if (!(time_scale > 0)) throw InputError("time scale must be > 0");
  add_nodes(cluster);
}

void SimulatedEngine::add_nodes(const Cluster& cluster) {
  std::lock_guard lock(mutex_);
  const std::vector<EngineNode> added = engine_nodes_of(cluster);
  for (const EngineNode& node : added) {
    if (find_node(node.name) != nullptr)
      throw InputError(fmt::format("node '{}' is already registered", node.name));
  }
  for (const EngineNode& node : added) nodes_.push_back({node, {}});
  for (const Device& device : cluster.devices()) {
    const bool known = std::any_of(specs_.begin(), specs_.end(), [&](const DeviceSpec& s) {
      return s.kind == device.spec.kind && s.model == device.spec.model;
    });
    if (!known) specs_.push_back(device.spec);
  }
}

SimulatedEngine::SimNode* SimulatedEngine::find_node(std::string_view name) {
  for (SimNode& node : nodes_)
    if (node.info.name == name) return &node;
  return nullptr;
}

std::vector<EngineNode> SimulatedEngine::nodes() {
  std::lock_guard lock(mutex_);
  std::vector<EngineNode> out;
  out.reserve(nodes_.size());
  for (const SimNode& node : nodes_) out.push_back(node.info);
  return out;
}

std::optional<DeviceSpec> SimulatedEngine::device_spec(DeviceKind kind,
                                                       std::string_view model) const {
  std::lock_guard lock(mutex_);
  for (const DeviceSpec& spec : specs_)
    if (spec.kind == kind && spec.model == model) return spec;
  return std::nullopt;
}

void SimulatedEngine::set_node_state(std::string_view name, EngineNodeState state) {
  std::lock_guard lock(mutex_);
  SimNode* node = find_node(name);
  if (node == nullptr) {
    std::vector<std::string> names;
    for (const SimNode& n : nodes_) names.push_back(n.info.name);
    throw InputError(unknown_name_message("node", name, names));
  }
  node->info.state = state;
  if (state != EngineNodeState::down) return;
  // A node that goes down takes its running tasks with it; its queued ones can no
  // longer start there either.
  for (auto it = active_.begin(); it != active_.end();) {
    SimTask& task = it->second;
    if (task.launch.node != name) {
      ++it;
      continue;
    }
    if (task.state == EngineTaskState::running) release(task);
    ended_.push_back({it->first, task.engine_id, EngineTaskState::failed, task.launch.node,
                      fmt::format("node {} went down", name)});
    it = active_.erase(it);
  }
}

std::string SimulatedEngine::launch(const EngineLaunch& launch) {
  std::lock_guard lock(mutex_);
  SimNode* node = find_node(launch.node);
  if (node == nullptr) throw EngineError(fmt::format("sim: no node '{}'", launch.node));
  if (node->info.state != EngineNodeState::up)
    throw EngineError(fmt::format("sim: node '{}' does not accept work", launch.node));
  const auto group = std::find_if(
      node->info.devices.begin(), node->info.devices.end(),
      [&](const auto& g) { return g.kind == launch.kind && g.model == launch.device_model; });
  if (group == node->info.devices.end() || group->count < launch.device_count ||
      launch.device_count == 0)
    throw EngineError(fmt::format("sim: node '{}' has no {} x {}", launch.node, launch.device_count,
                                  launch.device_model));
  if (!(launch.expected_seconds >= 0))
    throw EngineError(fmt::format("sim: task '{}' has no valid expected time", launch.task_key));
  if (active_.count(launch.task_key) != 0)
    throw EngineError(fmt::format("sim: task '{}' is already launched", launch.task_key));
  SimTask task;
  task.launch = launch;
  task.engine_id = std::to_string(next_engine_id_++);
  task.queued_at = Clock::now();
  const std::string id = task.engine_id;
  auto [it, inserted] = active_.emplace(launch.task_key, std::move(task));
  (void)inserted;
  try_start(it->second, Clock::now());
  return id;
}

bool SimulatedEngine::try_start(SimTask& task, Clock::time_point now) {
  SimNode* node = find_node(task.launch.node);
  if (node == nullptr || node->info.state != EngineNodeState::up) return false;
  const auto group =
      std::find_if(node->info.devices.begin(), node->info.devices.end(), [&](const auto& g) {
        return g.kind == task.launch.kind && g.model == task.launch.device_model;
      });
  std::uint32_t& busy = node->busy_by_model[task.launch.device_model];
  if (group == node->info.devices.end() || busy + task.launch.device_count > group->count)
    return false;
  busy += task.launch.device_count;
  task.state = EngineTaskState::running;
  const auto real = std::chrono::duration<double>(task.launch.expected_seconds / time_scale_);
  // A task longer than the clock can count to (centuries) never ends by itself; converting
  // it would overflow and end it at once.
  const auto left = std::chrono::duration<double>(Clock::time_point::max() - now);
  task.ends_at = real < left / 2 ? now + std::chrono::duration_cast<Clock::duration>(real)
                                 : Clock::time_point::max();
  return true;
}

void SimulatedEngine::release(const SimTask& task) {
  if (SimNode* node = find_node(task.launch.node))
    node->busy_by_model[task.launch.device_model] -= task.launch.device_count;
}

void SimulatedEngine::cancel(std::string_view task_key) {
  std::lock_guard lock(mutex_);
  auto it = active_.find(std::string(task_key));
  if (it == active_.end()) return;
  if (it->second.state == EngineTaskState::running) release(it->second);
  ended_.push_back({it->first, it->second.engine_id, EngineTaskState::cancelled,
                    it->second.launch.node, "cancelled"});
  active_.erase(it);
}

void SimulatedEngine::advance(Clock::time_point now) {
  // End every running task that is due, in order of its end, then start what fits,
  // oldest first (a FIFO queue per node, like a cluster manager's).
  std::vector<std::map<std::string, SimTask>::iterator> due;
  for (auto it = active_.begin(); it != active_.end(); ++it)
    if (it->second.state == EngineTaskState::running && it->second.ends_at <= now)
      due.push_back(it);
  std::sort(due.begin(), due.end(),
            [](const auto& a, const auto& b) { return a->second.ends_at < b->second.ends_at; });
  for (auto it : due) {
    release(it->second);
    ended_.push_back(
        {it->first, it->second.engine_id, EngineTaskState::completed, it->second.launch.node, {}});
    active_.erase(it);
  }
  std::vector<SimTask*> pending;
  for (auto& [key, task] : active_)
    if (task.state == EngineTaskState::pending) pending.push_back(&task);
  std::sort(pending.begin(), pending.end(),
            [](const SimTask* a, const SimTask* b) { return a->queued_at < b->queued_at; });
  for (SimTask* task : pending) try_start(*task, now);
}

std::vector<EngineTaskStatus> SimulatedEngine::poll() {
  std::lock_guard lock(mutex_);
  advance(Clock::now());
  std::vector<EngineTaskStatus> out = std::move(ended_);
  ended_.clear();
  for (const auto& [key, task] : active_)
    out.push_back({key, task.engine_id, task.state, task.launch.node, {}});
  return out;
}

}  // namespace hetsched
