// Calibration: runs each kernel of the library at several sizes on each local
// device class (one CPU worker stands for all cores of its model; each OpenCL
// device on its own) and feeds the measurements to a HistoryRegressionModel, as
// StarPU's calibration runs do. Sizes are split into a training set and held-out
// sizes in between: the regression is fitted on the training sizes, and its
// relative error on the held-out sizes (median and 95th percentile) is reported
// before those measurements join the history too. Every measurement is also kept, for
// fitting a RuntimePredictor.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "hetsched/perf/history_regression_model.hpp"
#include "hetsched/perf/runtime_measurement.hpp"
#include "hetsched/runtime/local_machine.hpp"
#include "hetsched/runtime/runtime_dag.hpp"

namespace hetsched {

struct CalibrationOptions {
  unsigned repetitions = 3;
  bool quick = false;             // small sizes only (tests, smoke runs)
  std::vector<KernelId> kernels;  // empty: every kernel but `empty`
  std::function<void(const std::string&)> progress;
};

struct CalibrationFit {
  std::string kernel;
  std::string device_model;
  std::size_t samples = 0;
  std::size_t held_out_sizes = 0;
  double median_relative_error = 0;  // of the regression on held-out sizes
  double p95_relative_error = 0;
  std::string failure;  // non-empty when the kernel could not run on the device
};

struct CalibrationReport {
  std::vector<CalibrationFit> fits;
  // Every timed repetition, described for the learned run-time predictor (held-out sizes
  // marked), in the order measured.
  std::vector<RuntimeMeasurement> measurements;
  double median_relative_error = 0;  // over every held-out prediction
  double p95_relative_error = 0;
};

// A one-task DAG running `kernel` at size `n` on freshly initialised, valid inputs.
std::unique_ptr<RuntimeDag> single_kernel_dag(KernelId kernel, std::uint32_t n, std::uint64_t seed);

CalibrationReport calibrate(LocalDevices& devices, HistoryRegressionModel& model,
                            const CalibrationOptions& options);

}  // namespace hetsched
