#include "simulated_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

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

SimulatedEngine::SimulatedEngine(const Cluster& cluster, double time_scale,
                                 SimulationOptions simulation)
    : time_scale_(time_scale), simulation_(std::move(simulation)) {
  if (!(time_scale > 0)) throw InputError("time scale must be > 0");
  cluster_.network() = cluster.network();
  add_nodes(cluster);
  apply_added_nodes();
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
  added_.push_back(cluster);
  node_generation_.fetch_add(1, std::memory_order_release);
}

void SimulatedEngine::apply_added_nodes() {
  std::vector<Cluster> added;
  {
    std::lock_guard lock(mutex_);
    added.swap(added_);
  }
  if (added.empty()) return;
  for (const Cluster& cluster : added)
    for (const Node& node : cluster.nodes()) {
      std::vector<DeviceSpec> devices;
      for (DeviceId d : node.devices) devices.push_back(cluster.device(d).spec);
      cluster_.add_node(node, devices);
    }
  if (simulator_) simulator_->cluster_grew();
}

SimulatedEngine::SimNode* SimulatedEngine::find_node(std::string_view name) {
  for (SimNode& node : nodes_)
    if (node.info.name == name) return &node;
  return nullptr;
}

std::vector<EngineNode> SimulatedEngine::nodes() {
  apply_added_nodes();
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
  if (node->info.state != state) node_generation_.fetch_add(1, std::memory_order_release);
  node->info.state = state;
  if (state != EngineNodeState::down) return;
  // A node that goes down takes its running launches with it; its queued ones can no
  // longer start there either. (DAG tasks the simulator runs there are the control
  // plane's to stop: it sees the node down before the next instant.)
  for (auto it = active_.begin(); it != active_.end();) {
    SimTask& task = it->second;
    if (task.launch.node != name) {
      ++it;
      continue;
    }
    std::optional<double> started;
    if (task.state == EngineTaskState::running) {
      release(task);
      started = task.started_at;
    }
    ended_.push_back({it->first, task.engine_id, EngineTaskState::failed, task.launch.node,
                      fmt::format("node {} went down", name), started, now()});
    it = active_.erase(it);
  }
}

void SimulatedEngine::attach(TaskGraph& graph, const PerfModel& perf, SchedulingLoop& loop,
                             SimulationObserver& observer) {
  apply_added_nodes();
  simulator_ = std::make_unique<Simulator>(cluster_, graph, perf, loop, observer, simulation_);
}

double SimulatedEngine::paced_time() const {
  if (std::isinf(time_scale_)) return std::numeric_limits<double>::infinity();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() *
         time_scale_;
}

double SimulatedEngine::next_launch_end() const {
  double next = std::numeric_limits<double>::infinity();
  for (const auto& [key, task] : active_)
    if (task.state == EngineTaskState::running) next = std::min(next, task.ends_at);
  return next;
}

bool SimulatedEngine::run_due_instant(double arrivals_at, const std::function<void()>& arrive) {
  apply_added_nodes();
  const double limit = std::min(paced_time(), limit_.load(std::memory_order_relaxed));
  const double simulated =
      simulator_ ? simulator_->next_instant() : std::numeric_limits<double>::infinity();
  double next = std::min(simulated, arrivals_at);
  {
    std::lock_guard lock(mutex_);
    next = std::min(next, next_launch_end());
  }
  if (std::isinf(next) || next > limit) {  // nothing due: the clock follows the pace
    if (std::isfinite(limit) && limit > now()) {
      now_ = limit;
      if (simulator_) simulator_->advance_clock(limit);
    }
    return false;
  }
  now_ = std::max(now(), next);
  if (simulator_) simulator_->advance_clock(now());
  // The simulator's events and the owner's calls reach the loop and the observer: no
  // lock is held across them.
  if (arrivals_at == next && arrive) arrive();
  if (simulator_ && simulated == next) simulator_->run_instant();
  std::lock_guard lock(mutex_);
  end_due_launches();
  return true;
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
  if (!(launch.expected_seconds >= 0) || !std::isfinite(launch.expected_seconds))
    throw EngineError(fmt::format("sim: task '{}' has no valid expected time", launch.task_key));
  if (active_.count(launch.task_key) != 0)
    throw EngineError(fmt::format("sim: task '{}' is already launched", launch.task_key));
  SimTask task;
  task.launch = launch;
  task.engine_id = std::to_string(next_engine_id_++);
  task.queued = next_engine_id_;
  const std::string id = task.engine_id;
  auto [it, inserted] = active_.emplace(launch.task_key, std::move(task));
  (void)inserted;
  try_start(it->second);
  return id;
}

bool SimulatedEngine::try_start(SimTask& task) {
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
  task.started_at = now();
  task.ends_at = task.started_at + task.launch.expected_seconds;
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

void SimulatedEngine::end_due_launches() {
  // End every running launch that is due, in order of its end, then start what fits,
  // oldest first (a FIFO queue per node, like a cluster manager's).
  std::vector<std::map<std::string, SimTask>::iterator> due;
  for (auto it = active_.begin(); it != active_.end(); ++it)
    if (it->second.state == EngineTaskState::running && it->second.ends_at <= now())
      due.push_back(it);
  std::sort(due.begin(), due.end(),
            [](const auto& a, const auto& b) { return a->second.ends_at < b->second.ends_at; });
  for (auto it : due) {
    const SimTask& task = it->second;
    release(task);
    ended_.push_back({it->first,
                      task.engine_id,
                      EngineTaskState::completed,
                      task.launch.node,
                      {},
                      task.started_at,
                      task.ends_at});
    active_.erase(it);
  }
  std::vector<SimTask*> pending;
  for (auto& [key, task] : active_)
    if (task.state == EngineTaskState::pending) pending.push_back(&task);
  std::sort(pending.begin(), pending.end(),
            [](const SimTask* a, const SimTask* b) { return a->queued < b->queued; });
  for (SimTask* task : pending) try_start(*task);
}

std::vector<EngineTaskStatus> SimulatedEngine::poll() {
  std::lock_guard lock(mutex_);
  std::vector<EngineTaskStatus> out = std::move(ended_);
  ended_.clear();
  for (const auto& [key, task] : active_) {
    out.push_back({key, task.engine_id, task.state, task.launch.node, {}});
    if (task.state == EngineTaskState::running) out.back().started_seconds = task.started_at;
  }
  return out;
}

}  // namespace hetsched
