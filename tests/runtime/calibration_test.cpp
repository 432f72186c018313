// Calibration on the local CPU (and PoCL when present) at small sizes: every
// kernel gets measurements, the regression is fitted, errors are reported, and
// the saved model loads back on the same machine.
#include "hetsched/runtime/calibration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {
namespace {

TEST(CalibrationTest, QuickCalibrationFitsEveryKernelAndRoundTrips) {
  LocalDevices devices(LocalDevicesOptions{1, true, false});
  RooflineModel roofline(devices.cluster());
  HistoryRegressionModel model(devices.cluster(), roofline);
  CalibrationOptions options;
  options.quick = true;
  options.repetitions = 1;
  options.kernels = {KernelId::gemm, KernelId::reduction};
  const CalibrationReport report = calibrate(devices, model, options);
  const std::size_t device_models = 1 + devices.opencl_devices().size();
  ASSERT_EQ(report.fits.size(), 2 * device_models);
  for (const CalibrationFit& fit : report.fits) {
    EXPECT_TRUE(fit.failure.empty())
        << fit.kernel << " on " << fit.device_model << ": " << fit.failure;
    EXPECT_EQ(fit.samples, 5u) << fit.kernel;  // 3 training + 2 held-out sizes, 1 repetition
    EXPECT_EQ(fit.held_out_sizes, 2u);
    EXPECT_GE(fit.median_relative_error, 0.0);
    EXPECT_LE(fit.median_relative_error, fit.p95_relative_error);
  }
  // Every timed run is kept for the learned predictor, described as the models see it.
  ASSERT_EQ(report.measurements.size(), 5 * report.fits.size());
  EXPECT_EQ(std::count_if(report.measurements.begin(), report.measurements.end(),
                          [](const RuntimeMeasurement& m) { return m.held_out; }),
            static_cast<std::ptrdiff_t>(2 * report.fits.size()));
  for (const RuntimeMeasurement& m : report.measurements) {
    EXPECT_TRUE(m.kernel == "gemm" || m.kernel == "reduction") << m.kernel;
    EXPECT_GT(m.seconds, 0.0);
    EXPECT_GT(m.roofline_seconds, 0.0);
    EXPECT_GT(m.bytes, 0.0);
  }
  // Every calibrated size is now in the history; an unseen size gets a positive prediction.
  const auto dag = single_kernel_dag(KernelId::gemm, 40, 1);
  const Task& unseen = dag->workload().jobs[0].tasks[0];
  EXPECT_GT(model.task_seconds(unseen, devices.cluster().device(0)), 0.0);
  EXPECT_TRUE(
      model.regression_seconds("gemm", devices.cluster().device(0).spec.model, unseen.bytes));

  const std::string path = (std::filesystem::temp_directory_path() /
                            ("hetsched_calibration_" + std::to_string(::getpid()) + ".json"))
                               .string();
  model.save(path, devices.fingerprint());
  HistoryRegressionModel loaded(devices.cluster(), roofline);
  loaded.load(path, devices.fingerprint());
  std::remove(path.c_str());
  EXPECT_EQ(loaded.sample_count(), model.sample_count());
  EXPECT_DOUBLE_EQ(loaded.task_seconds(unseen, devices.cluster().device(0)),
                   model.task_seconds(unseen, devices.cluster().device(0)));
}

}  // namespace
}  // namespace hetsched
