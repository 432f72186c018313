// RuntimeMeasurement: one measured execution of a task on a device, with what a learned
// run-time predictor reads of the task and the device (their classes, work, bytes, the
// device's peaks and the roofline's prediction), so that a model can be fitted from a
// file of them without the machine they were measured on. `hetsched calibrate
// --measurements` writes such files; `hetsched fit-predictor` and `hetsched bench
// predictor` read them (docs/learned-scheduling.md has the format).
#pragma once

#include <string>
#include <vector>

#include "hetsched/perf/perf_model.hpp"

namespace hetsched {

struct RuntimeMeasurement {
  std::string kernel;        // HistoryRegressionModel::kernel_key of the task
  std::string device_model;  // DeviceSpec::model
  KernelClass kernel_class = KernelClass::elementwise;
  Precision precision = Precision::fp32;
  DeviceKind device_kind = DeviceKind::cpu;
  double flops = 0;
  double bytes = 0;
  double matrix_flops = 0;  // the device's peaks at the task's precision
  double vector_flops = 0;
  double memory_bandwidth = 0;
  double roofline_seconds = 0;  // the roofline model's prediction
  double seconds = 0;           // measured (0 for a row to predict)
  bool held_out = false;        // measured at a size calibration keeps out of its fit
};

// The measurement of `task` on `device` taking `seconds`, described for learning.
RuntimeMeasurement describe_execution(const Task& task, const Device& device,
                                      const PerfModel& roofline, double seconds);

// Writes the measurements as JSON (format "hetsched-measurements", version 1, with the
// machine's fingerprint). Throws InputError when the file cannot be written.
void write_measurements(const std::string& path, const std::string& machine,
                        const std::vector<RuntimeMeasurement>& measurements);

// Reads a file write_measurements wrote. A missing, corrupt or other-format file, or a
// row with a missing, unknown or negative field, is an InputError naming the file and the
// row.
std::vector<RuntimeMeasurement> read_measurements(const std::string& path);

}  // namespace hetsched
