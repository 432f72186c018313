#include "simulation_kernel.hpp"

#include <algorithm>

#include "hetsched/sim/simulator.hpp"

namespace hetsched {

double SimulationKernel::now() const { return sim_->now_; }
const Cluster& SimulationKernel::cluster() const { return sim_->cluster_; }
const TaskGraph& SimulationKernel::graph() const { return sim_->graph_; }
const PerfModel& SimulationKernel::perf() const { return sim_->perf_; }
const SimulationOptions& SimulationKernel::options() const { return sim_->options_; }
SchedulingLoop& SimulationKernel::loop() const { return sim_->loop_; }
RunReport& SimulationKernel::report() const { return sim_->report_; }

void SimulationKernel::schedule(double time, std::uint32_t kind, std::uint32_t subject) const {
  sim_->events_.schedule(time, kind, subject);
}

std::size_t SimulationKernel::pending_events() const { return sim_->events_.size(); }

bool SimulationKernel::busy(DeviceId device) const { return sim_->devices_[device].busy; }

bool SimulationKernel::any_busy() const {
  return std::any_of(sim_->devices_.begin(), sim_->devices_.end(),
                     [](const Simulator::DeviceState& state) { return state.busy; });
}

double SimulationKernel::watts(DeviceId device) const { return sim_->devices_[device].watts; }
double SimulationKernel::node_watts(NodeId node) const { return sim_->node_watts_[node]; }
double SimulationKernel::cluster_watts() const { return sim_->cluster_watts_; }

std::uint8_t SimulationKernel::running_pstate(DeviceId device) const {
  return sim_->devices_[device].running_pstate;
}

double SimulationKernel::expected_finish(DeviceId device) const {
  return sim_->devices_[device].expected_finish;
}

bool SimulationKernel::has_queued_work(DeviceId device) const {
  sim_->pop_stale_heads(device);
  return !sim_->devices_[device].queue.empty();
}

void SimulationKernel::set_busy(DeviceId device, bool busy) const {
  sim_->devices_[device].busy = busy;
}

void SimulationKernel::charge(DeviceId device, double seconds, double watts) const {
  sim_->charge_busy(device, seconds, watts);
}

void SimulationKernel::set_idle(DeviceId device) const { sim_->set_device_idle(device); }

void SimulationKernel::change_running_pstate(DeviceId device, std::uint8_t pstate) const {
  sim_->change_running_pstate(device, pstate);
}

void SimulationKernel::try_start(DeviceId device) const { sim_->try_start(device); }

double SimulationKernel::actual_seconds(TaskIndex task, DeviceId device,
                                        std::uint8_t pstate) const {
  return sim_->actual_seconds(task, device, pstate);
}

double SimulationKernel::watts(TaskIndex task, DeviceId device, std::uint8_t pstate) const {
  return sim_->watts(task, device, pstate);
}

void SimulationKernel::forget_inputs(TaskIndex task) const {
  sim_->runs_[task].inputs_ready_at = 0;
}

void SimulationKernel::finish_copy(TaskIndex task, DeviceId device, double start,
                                   double joules) const {
  Simulator::DeviceState& state = sim_->devices_[device];
  state.running_start = start;
  state.running_joules = joules;
  state.busy = true;
  sim_->finish(task);
}

}  // namespace hetsched
