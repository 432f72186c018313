// How measured workflow runtimes become tasks the performance model can place on
// any device. A workflow trace gives, per task, wall seconds on the machine that
// ran it and how busy the CPU was. The importers turn that into CPU-busy
// core-seconds, multiply by the per-core peak of the recording machine (its clock
// × fp64 flops per cycle) and by the roofline model's CPU efficiency for the task's
// kernel class: the result is the work that the roofline model predicts takes
// exactly the measured core-seconds on one core of the recording machine. On any
// other device the model then scales it by that device's peak and efficiency.
// docs/workflow-import.md states the mapping and its limits.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "hetsched/workload/task.hpp"

namespace hetsched {

struct WorkflowImportOptions {
  // Kernel class of tasks whose category is not in kernel_by_category. Workflow
  // tools are compiled CPU programs dominated by control flow and parsing.
  KernelClass default_kernel = KernelClass::branchy;
  std::map<std::string, KernelClass, std::less<>> kernel_by_category;
  Precision precision = Precision::fp64;
  // fp64 flops per cycle per core of the recording machine: 16 for x86 cores with
  // two 256-bit FMA units (Haswell and later, Zen 2 and later).
  double flops_per_cycle = 16;
  // Per-core peak used when the trace names no machine or clock (Pegasus DAX):
  // one core of an AMD EPYC 9654, 3.69 TFLOP/s fp64 over 96 cores = 38.4 GFLOP/s.
  double reference_core_flops = 38.4e9;
  // Workflow tools are CPU binaries; true keeps them off GPUs and TPUs. False lets
  // the performance model price them anywhere (weak on accelerators for branchy code).
  bool cpu_only = false;
};

// The kernel class for a task category (program name) under the options.
KernelClass workflow_kernel_class(const WorkflowImportOptions& options, std::string_view category);

// Model flops for `core_seconds` of CPU-busy time on a core whose peak is
// `core_peak_flops`, for a task of the given kernel class (see the header comment).
double workflow_task_flops(double core_seconds, double core_peak_flops, KernelClass kernel);

}  // namespace hetsched
