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

PowerCapping::PowerCapping(SimulationKernel kernel, std::uint32_t /*event_base*/)
    : kernel_(kernel) {
  const SimulationOptions& options = kernel_.options();
  if (const Status cap = check_power_cap(kernel_.cluster(), options.power_cap_watts); !cap)
    throw InputError(cap.error());
  if (const Status cap = check_node_power_cap(kernel_.cluster(), options.node_power_cap_watts);
      !cap)
    throw InputError(cap.error());
  kernel_.report().power_cap_watts = options.power_cap_watts;
  kernel_.report().node_power_cap_watts = options.node_power_cap_watts;
}

void PowerCapping::devices_added(DeviceId /*first*/) {
  waiting_.resize(kernel_.cluster().device_count(), 0);
}

// The fastest P-state, from the planned one down, that keeps the cluster and the
// device's node within their caps.
SimulationExtension::Start PowerCapping::start_pstate(TaskIndex t, DeviceId d,
                                                      std::uint8_t& pstate) {
  const SimulationOptions& options = kernel_.options();
  const Device& dev = kernel_.cluster().device(d);
  const Task& task = kernel_.graph().task(t);
  const std::size_t slowest = dev.spec.pstates.size() - 1;
  double headroom = std::numeric_limits<double>::infinity();
  if (options.power_cap_watts > 0) headroom = options.power_cap_watts - kernel_.cluster_watts();
  if (options.node_power_cap_watts > 0)
    headroom = std::min(headroom, options.node_power_cap_watts - kernel_.node_watts(dev.node));
  std::size_t fits = pstate;
  while (fits <= slowest &&
         kernel_.perf().task_watts(task, dev, fits) - dev.spec.idle_watts > headroom)
    ++fits;
  if (fits > slowest) {
    if (!kernel_.any_busy()) {
      // Nothing will ever free power for it: say so rather than run over the cap.
      kernel_.report().power_cap_refusals.push_back(fmt::format(
          "{}/{}: needs {:.6g} W above idle on {} even at its slowest P-state, but the "
          "power cap leaves {:.6g} W",
          kernel_.graph().job(kernel_.graph().job_of(t)).name, task.name,
          kernel_.perf().task_watts(task, dev, slowest) - dev.spec.idle_watts, dev.name, headroom));
      return Start::drop;
    }
    if (waiting_[d] == 0) ++kernel_.report().power_cap_waits;
    waiting_[d] = 1;
    return Start::wait;
  }
  if (fits != pstate) ++kernel_.report().power_cap_slowdowns;
  pstate = static_cast<std::uint8_t>(fits);
  return Start::go;
}

void PowerCapping::task_started(TaskIndex /*task*/, DeviceId d) { waiting_[d] = 0; }

// A finish freed power: the devices whose heads wait for it try again, in device order.
void PowerCapping::task_finished(TaskIndex /*task*/, DeviceId /*device*/) {
  for (DeviceId d = 0; d < waiting_.size(); ++d)
    if (waiting_[d] != 0) kernel_.try_start(d);
}

}  // namespace hetsched
