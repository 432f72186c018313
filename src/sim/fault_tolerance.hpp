// FaultTolerance: the simulator's extension for failures, their detection and recovery
// (checkpoints, retries, replicas, cloning, failure prediction); its account of the
// model is at the top of fault_tolerance.cpp. It sees the Simulator through its
// SimulationKernel: it holds devices for replicas, charges the time its copies used, tells
// the loop of devices going down and tasks to place again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "hetsched/sim/simulation_extension.hpp"
#include "simulation_kernel.hpp"

namespace hetsched {

struct FaultRuntime;
enum class CopyEnd : std::uint8_t;  // how a copy of a task ends

class FaultTolerance final : public SimulationExtension {
 public:
  FaultTolerance(SimulationKernel kernel, std::uint32_t event_base);
  ~FaultTolerance() override;

  void run_starting() override;
  void event(const Event& event) override;
  bool holds_device(DeviceId device) override;
  double task_starting(TaskIndex task, DeviceId device, double seconds) override;
  bool finish_is_current(TaskIndex task) override;
  void task_finishing(TaskIndex task) override;
  void loop_decided() override;
  bool run_settled() const override;
  void complete_report(RunReport& report) override;

 private:
  // One of this extension's events (FaultEvent in the .cpp) at `time`.
  void schedule(double time, std::uint32_t kind, std::uint32_t subject);

  // The events, one method each.
  void inject_failure(std::uint32_t index);  // a crash, partition, straggler or transient
  void detect_failure(DeviceId device);      // the heartbeats stopped long enough
  void repair(DeviceId device);
  void finish_replica(std::uint32_t index);  // a replica or clone finishes first
  void sample_telemetry();                   // every live device reports to the predictor
  void check_clone(TaskIndex task);          // a straggler may get a clone

  // What they share.
  double watts_of(TaskIndex task, DeviceId device) const;
  void respawn(TaskIndex task);
  void fail_job(JobIndex job, const std::string& reason);
  void recover(TaskIndex task, double lost_at);
  TaskIndex stop_attempt(DeviceId device, CopyEnd end);
  void stop_replica(DeviceId device, CopyEnd end);
  void crash(DeviceId device, double back);
  double drain(DeviceId device);

  SimulationKernel kernel_;
  std::uint32_t event_base_;
  std::unique_ptr<FaultRuntime> runtime_;  // created by run_starting()
};

}  // namespace hetsched
