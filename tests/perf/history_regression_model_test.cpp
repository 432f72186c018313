// The learned performance model: the a·nᵇ + c fit, history lookups, online updates,
// and its file — round trip, corrupt and stale files rejected with advice.
#include "hetsched/perf/history_regression_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {
namespace {

TEST(PowerLawFitTest, RecoversAnExactLaw) {
  std::vector<std::pair<double, double>> points;
  for (double n : {1e3, 4e3, 1.6e4, 6.4e4, 2.56e5})
    points.emplace_back(n, 2e-9 * std::pow(n, 1.5) + 1e-5);
  const auto fit = fit_power_law(points);
  ASSERT_TRUE(fit);
  for (double n : {2e3, 3e4, 1e5}) {
    const double truth = 2e-9 * std::pow(n, 1.5) + 1e-5;
    EXPECT_NEAR(fit->evaluate(n) / truth, 1.0, 0.05) << n;
  }
  EXPECT_NEAR(fit->b, 1.5, 0.1);
}

TEST(PowerLawFitTest, NeedsTwoSizes) { EXPECT_FALSE(fit_power_law({{100.0, 1.0}})); }

class HistoryRegressionModelTest : public ::testing::Test {
 protected:
  Cluster cluster = default_cluster();
  RooflineModel roofline{cluster};
  std::string path = (std::filesystem::temp_directory_path() /
                      ("hetsched_model_" + std::to_string(::getpid()) + ".json"))
                         .string();
  void TearDown() override { std::remove(path.c_str()); }
  Task task(const std::string& name, double bytes) {
    Task t;
    t.name = name;
    t.kernel = KernelClass::dense_matmul;
    t.precision = Precision::fp64;
    t.flops = 1e9;
    t.bytes = bytes;
    return t;
  }
};

TEST_F(HistoryRegressionModelTest, HistoryThenRegressionThenFallback) {
  HistoryRegressionModel model(cluster, roofline);
  const Device& device = cluster.device(0);
  model.record(task("gemm_0_0_0", 1000), device, 1.0);
  model.record(task("gemm_1_0_0", 1000), device, 3.0);  // same size: mean 2
  model.record(task("gemm_0_1_0", 8000), device, 16.0);
  EXPECT_DOUBLE_EQ(model.task_seconds(task("gemm_5", 1000), device), 2.0);
  // unseen size: the fitted law through (1000, 2) and (8000, 16) is linear
  EXPECT_NEAR(model.task_seconds(task("gemm_5", 4000), device), 8.0, 1e-6);
  // gemm_nt is another kernel: no measurement, so the roofline answers
  EXPECT_DOUBLE_EQ(model.task_seconds(task("gemm_nt_1", 4000), device),
                   roofline.task_seconds(task("gemm_nt_1", 4000), device));
  EXPECT_EQ(HistoryRegressionModel::kernel_key(task("gemm_nt_2_1_0", 1)), "gemm_nt");
  EXPECT_EQ(HistoryRegressionModel::kernel_key(task("layer7", 1)), "dense_matmul");
}

TEST_F(HistoryRegressionModelTest, FileRoundTrips) {
  HistoryRegressionModel model(cluster, roofline);
  model.record("potrf", "cpu-core:X", 8192, 1e-4);
  model.record("potrf", "cpu-core:X", 32768, 9e-4);
  model.record("potrf", "cpu-core:X", 131072, 7e-3);
  model.save(path, "cpu-core:X;");
  HistoryRegressionModel loaded(cluster, roofline);
  loaded.load(path, "cpu-core:X;");
  EXPECT_EQ(loaded.sample_count(), 3u);
  EXPECT_EQ(loaded.history_seconds("potrf", "cpu-core:X", 32768), 9e-4);
  EXPECT_DOUBLE_EQ(*loaded.regression_seconds("potrf", "cpu-core:X", 65536),
                   *model.regression_seconds("potrf", "cpu-core:X", 65536));
}

std::string load_error(const std::string& path, HistoryRegressionModel& model,
                       const std::string& fingerprint) {
  try {
    model.load(path, fingerprint);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_F(HistoryRegressionModelTest, CorruptFileIsRejectedWithAdvice) {
  HistoryRegressionModel model(cluster, roofline);
  std::ofstream(path) << "{\"format\": \"hetsched-perf-model\", \"version\": 1, \"mach";
  const std::string message = load_error(path, model, "x;");
  EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
  EXPECT_NE(message.find("hetsched calibrate"), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;

  std::ofstream(path) << R"({"format": "hetsched-perf-model", "version": 1, "machine": "x;",
    "models": [{"kernel": "gemm", "device": "d", "history": [{"bytes": 1, "count": 1,
    "mean_seconds": -3, "m2": 0}]}]})";
  EXPECT_NE(load_error(path, model, "x;").find("corrupt"), std::string::npos);
}

TEST_F(HistoryRegressionModelTest, StaleFileIsRejectedWithAdvice) {
  HistoryRegressionModel model(cluster, roofline);
  model.record("gemm", "cpu-core:A", 100, 1);
  model.save(path, "cpu-core:A;");
  std::string message = load_error(path, model, "cpu-core:B;");
  EXPECT_NE(message.find("stale"), std::string::npos) << message;
  EXPECT_NE(message.find("recalibrate"), std::string::npos) << message;
  std::ofstream(path)
      << R"({"format": "hetsched-perf-model", "version": 0, "machine": "x;", "models": []})";
  message = load_error(path, model, "x;");
  EXPECT_NE(message.find("stale"), std::string::npos) << message;
  EXPECT_NE(message.find("version"), std::string::npos) << message;
}

}  // namespace
}  // namespace hetsched
