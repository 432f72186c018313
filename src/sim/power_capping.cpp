#include "power_capping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/core/input_error.hpp"
#include "hetsched/sim/simulator.hpp"

namespace hetsched {

Status check_power_cap(const Cluster& cluster, double power_cap_watts) {
  if (!std::isfinite(power_cap_watts))
    return failure(fmt::format("power cap of {} W is not a finite number", power_cap_watts));
  if (power_cap_watts < 0)
    return failure(fmt::format("power cap of {} W is negative", power_cap_watts));
  if (power_cap_watts == 0) return {};
  double idle = 0;
  for (const Device& d : cluster.devices()) idle += d.spec.idle_watts;
  if (power_cap_watts < idle)
    return failure(fmt::format(
        "power cap of {:.6g} W is below the idle power of the cluster's {} devices, {:.6g} W "
        "(they stay on); raise it by at least {:.6g} W",
        power_cap_watts, cluster.device_count(), idle, idle - power_cap_watts));
  return {};
}

Status check_node_power_cap(const Cluster& cluster, double node_power_cap_watts) {
  if (!std::isfinite(node_power_cap_watts))
    return failure(
        fmt::format("node power cap of {} W is not a finite number", node_power_cap_watts));
  if (node_power_cap_watts < 0)
    return failure(fmt::format("node power cap of {} W is negative", node_power_cap_watts));
  if (node_power_cap_watts == 0) return {};
  for (const Node& node : cluster.nodes()) {
    double idle = 0;
    for (DeviceId d : node.devices) idle += cluster.device(d).spec.idle_watts;
    if (node_power_cap_watts < idle)
      return failure(fmt::format(
          "node power cap of {:.6g} W is below the idle power of node {}'s {} devices, {:.6g} W "
          "(they stay on); raise it by at least {:.6g} W",
          node_power_cap_watts, node.name, node.devices.size(), idle, idle - node_power_cap_watts));
  }
  return {};
}

PowerCapping::PowerCapping(Simulator& simulator, std::uint32_t /*event_base*/) : sim_(simulator) {
  const SimulationOptions& options = sim_.options_;
  if (const Status cap = check_power_cap(sim_.cluster_, options.power_cap_watts); !cap)
    throw InputError(cap.error());
  if (const Status cap = check_node_power_cap(sim_.cluster_, options.node_power_cap_watts); !cap)
    throw InputError(cap.error());
  sim_.report_.power_cap_watts = options.power_cap_watts;
  sim_.report_.node_power_cap_watts = options.node_power_cap_watts;
}

void PowerCapping::devices_added(DeviceId /*first*/) {
  waiting_.resize(sim_.cluster_.device_count(), 0);
}

// The fastest P-state, from the planned one down, that keeps the cluster and the
// device's node within their caps.
SimulationExtension::Start PowerCapping::start_pstate(TaskIndex t, DeviceId d,
                                                      std::uint8_t& pstate) {
  const SimulationOptions& options = sim_.options_;
  const Device& dev = sim_.cluster_.device(d);
  const Task& task = sim_.graph_.task(t);
  const std::size_t slowest = dev.spec.pstates.size() - 1;
  double headroom = std::numeric_limits<double>::infinity();
  if (options.power_cap_watts > 0) headroom = options.power_cap_watts - sim_.cluster_watts_;
  if (options.node_power_cap_watts > 0)
    headroom = std::min(headroom, options.node_power_cap_watts - sim_.node_watts_[dev.node]);
  std::size_t fits = pstate;
  while (fits <= slowest && sim_.perf_.task_watts(task, dev, fits) - dev.spec.idle_watts > headroom)
    ++fits;
  if (fits > slowest) {
    const bool others_running = std::any_of(sim_.devices_.begin(), sim_.devices_.end(),
                                            [](const Simulator::DeviceState& s) { return s.busy; });
    if (!others_running) {
      // Nothing will ever free power for it: say so rather than run over the cap.
      sim_.report_.power_cap_refusals.push_back(fmt::format(
          "{}/{}: needs {:.6g} W above idle on {} even at its slowest P-state, but the "
          "power cap leaves {:.6g} W",
          sim_.graph_.job(sim_.graph_.job_of(t)).name, task.name,
          sim_.perf_.task_watts(task, dev, slowest) - dev.spec.idle_watts, dev.name, headroom));
      return Start::drop;
    }
    if (waiting_[d] == 0) ++sim_.report_.power_cap_waits;
    waiting_[d] = 1;
    return Start::wait;
  }
  if (fits != pstate) ++sim_.report_.power_cap_slowdowns;
  pstate = static_cast<std::uint8_t>(fits);
  return Start::go;
}

void PowerCapping::task_started(TaskIndex /*task*/, DeviceId d) { waiting_[d] = 0; }

// A finish freed power: the devices whose heads wait for it try again, in device order.
void PowerCapping::task_finished(TaskIndex /*task*/, DeviceId /*device*/) {
  for (DeviceId d = 0; d < waiting_.size(); ++d)
    if (waiting_[d] != 0) sim_.try_start(d);
}

}  // namespace hetsched
