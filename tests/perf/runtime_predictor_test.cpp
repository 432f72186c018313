// The learned run-time predictor: the tree walk on a hand-written XGBoost model (a known
// answer, missing values included) and against the library on fitted rows; fits that are
// reproducible byte for byte; held-out error far below the roofline's on the measurements
// shipped in data/measurements/; intervals that hold most held-out runs; the performance
// model that answers from it only where it has data; and files that are refused, one line
// each, when they are missing, corrupt, truncated or of another layout.
#include "hetsched/perf/runtime_predictor.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/perf/learned_runtime_model.hpp"
#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {
namespace {

const std::string kShippedMeasurements =
    std::string(HETSCHED_DATA_DIR) + "/measurements/epyc-pocl-calibration.json";

class PredictorScratchFile {
 public:
  explicit PredictorScratchFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() / (std::to_string(::getpid()) + "_" + name))
                  .string()) {}
  ~PredictorScratchFile() { std::filesystem::remove(path_); }
  const std::string& path() const { return path_; }
  void write(const std::string& text) const { std::ofstream(path_) << text; }

 private:
  std::string path_;
};

RuntimePredictorOptions small_predictor_options() {
  RuntimePredictorOptions options;
  options.mean.rounds = 80;
  options.spread.rounds = 40;
  return options;
}

TEST(RegressionForest, WalksAHandWrittenXGBoostTreeLeftBelowTheThresholdAndMissingByDefault) {
  // One split on feature 1 at 0.5 (missing values go left), leaves -1 and 2; base score 0.5.
  const std::string model = R"({"learner": {
      "learner_model_param": {"base_score": "5E-1"},
      "gradient_booster": {"model": {"trees": [{
        "left_children": [1, -1, -1], "right_children": [2, -1, -1],
        "split_indices": [1, 0, 0], "split_conditions": [0.5, -1.0, 2.0],
        "default_left": [1, 0, 0]}]}}}})";
  const auto forest = RegressionForest::from_xgboost_json(model, 2);
  ASSERT_TRUE(forest) << forest.error();
  EXPECT_EQ(forest->tree_count(), 1u);
  const float below[] = {9.0f, 0.25f}, at[] = {9.0f, 0.5f}, missing[] = {9.0f, NAN};
  EXPECT_DOUBLE_EQ(forest->predict(below), -0.5);
  EXPECT_DOUBLE_EQ(forest->predict(at), 2.5);  // not below: right
  EXPECT_DOUBLE_EQ(forest->predict(missing), -0.5);
  // The same forest through its own JSON.
  const auto again = RegressionForest::from_json(forest->to_json(), "test");
  ASSERT_TRUE(again) << again.error();
  EXPECT_DOUBLE_EQ(again->predict(at), 2.5);
}

TEST(RegressionForest, RefusesTreesAWalkCouldLeave) {
  nlohmann::json tree = {{"left", {1, -1, -1}},
                         {"right", {2, -1, -1}},
                         {"feature", {0, 0, 0}},
                         {"threshold", {0.5, 1.0, 2.0}},
                         {"default_left", {0, 0, 0}}};
  nlohmann::json forest = {{"base_score", 0.0}, {"feature_count", 1}, {"trees", {tree}}};
  ASSERT_TRUE(RegressionForest::from_json(forest, "f"));
  forest["trees"][0]["right"][0] = 7;  // past the tree's end
  EXPECT_NE(RegressionForest::from_json(forest, "f").error().find("children"), std::string::npos);
  forest["trees"][0]["right"][0] = 0;  // back to the root: a cycle
  EXPECT_FALSE(RegressionForest::from_json(forest, "f"));
  forest["trees"][0]["right"][0] = 2;
  forest["trees"][0]["feature"][0] = 3;  // no such feature
  EXPECT_NE(RegressionForest::from_json(forest, "f").error().find("feature index"),
            std::string::npos);
  forest["trees"][0]["feature"][0] = 0;
  forest["trees"][0]["threshold"] = {0.5, 1.0};  // a list one short
  EXPECT_FALSE(RegressionForest::from_json(forest, "f"));
}

TEST(RegressionForest, FitsAStepAndAgainGivesTheSameTrees) {
  std::vector<float> rows, targets;
  for (int i = 0; i < 200; ++i) {
    const float x = float(i) / 200.0f;
    rows.push_back(x);
    rows.push_back(float(i % 7));  // a feature that does not matter
    targets.push_back(x < 0.3f ? 1.0f : 3.0f);
  }
  ForestOptions options;
  options.rounds = 100;
  // (fit also checks every fitted row's walk against XGBoost's own prediction.)
  const RegressionForest forest = RegressionForest::fit(rows, 2, targets, options);
  const float low[] = {0.1f, 3.0f}, high[] = {0.8f, 3.0f};
  EXPECT_NEAR(forest.predict(low), 1.0, 0.05);
  EXPECT_NEAR(forest.predict(high), 3.0, 0.05);
  EXPECT_EQ(RegressionForest::fit(rows, 2, targets, options).to_json().dump(),
            forest.to_json().dump());
  EXPECT_THROW(RegressionForest::fit(rows, 3, targets, options), std::invalid_argument);
}

TEST(RuntimePredictor, PredictsHeldOutSizesFarBetterThanTheRooflineWithIntervalsThatHold) {
  const std::vector<RuntimeMeasurement> all = read_measurements(kShippedMeasurements);
  std::vector<RuntimeMeasurement> train, test;
  for (const RuntimeMeasurement& m : all) (m.held_out ? test : train).push_back(m);
  ASSERT_GT(test.size(), 100u);
  const RuntimePredictor predictor = RuntimePredictor::fit(train, small_predictor_options());
  const PredictionErrors learned = predictor.errors_on(test);
  std::vector<double> roofline;
  for (const RuntimeMeasurement& m : test)
    roofline.push_back(std::abs(m.roofline_seconds - m.seconds) / m.seconds);
  std::sort(roofline.begin(), roofline.end());
  const double roofline_median = roofline[roofline.size() / 2];
  EXPECT_EQ(learned.count, test.size());
  EXPECT_LT(learned.median, roofline_median / 3) << learned.median << " vs " << roofline_median;
  EXPECT_GT(learned.interval_coverage, 0.8);
  EXPECT_GT(predictor.cross_validation().count, 0u);
  EXPECT_GT(predictor.unseen_pair_cross_validation().count, 0u);
  EXPECT_TRUE(predictor.knows(test.front().kernel, test.front().device_model));
  EXPECT_FALSE(predictor.knows("no-such-kernel", test.front().device_model));
}

TEST(RuntimePredictor, SameMeasurementsAndSeedSameFileAndALoadedPredictorAnswersTheSame) {
  const std::vector<RuntimeMeasurement> all = read_measurements(kShippedMeasurements);
  const RuntimePredictor first = RuntimePredictor::fit(all, small_predictor_options());
  const RuntimePredictor second = RuntimePredictor::fit(all, small_predictor_options());
  PredictorScratchFile a("predictor_a.json"), b("predictor_b.json");
  first.save(a.path());
  second.save(b.path());
  EXPECT_EQ(read_text_file(a.path()), read_text_file(b.path()));
  const RuntimePredictor loaded = RuntimePredictor::load(a.path());
  for (std::size_t i = 0; i < all.size(); i += 17) {
    const RuntimePrediction p = first.predict(all[i]), q = loaded.predict(all[i]);
    EXPECT_DOUBLE_EQ(p.seconds, q.seconds) << i;
    EXPECT_DOUBLE_EQ(p.log_sigma, q.log_sigma) << i;
    EXPECT_LT(p.low_seconds, p.seconds);
    EXPECT_GT(p.high_seconds, p.seconds);
  }
  EXPECT_DOUBLE_EQ(loaded.cross_validation().median, first.cross_validation().median);
}

TEST(LearnedRuntimeModel, AnswersFromMeasurementsWhereItHasThemAndFromTheRooflineElsewhere) {
  // Measurements of a machine where dense_matmul on GPUs takes three times the roofline.
  const Cluster cluster = default_cluster();
  const RooflineModel roofline(cluster);
  const Device* gpu = nullptr;
  for (const Device& d : cluster.devices())
    if (d.spec.kind == DeviceKind::gpu && d.spec.pstates.size() > 1) gpu = &d;
  ASSERT_NE(gpu, nullptr);
  std::vector<RuntimeMeasurement> measurements;
  for (int size = 1; size <= 40; ++size) {
    Task task;
    task.name = "gemm_" + std::to_string(size);
    task.kernel = KernelClass::dense_matmul;
    task.flops = 1e12 * size;
    task.bytes = 1e8 * size;
    const double seconds = 3 * roofline.task_seconds(task, *gpu);
    measurements.push_back(describe_execution(task, *gpu, roofline, seconds));
  }
  const RuntimePredictor predictor = RuntimePredictor::fit(measurements, small_predictor_options());
  const LearnedRuntimeModel model(roofline, predictor);
  Task task;
  task.name = "gemm_x";
  task.kernel = KernelClass::dense_matmul;
  task.flops = 2.5e13;
  task.bytes = 2.5e9;
  EXPECT_NEAR(model.task_seconds(task, *gpu) / roofline.task_seconds(task, *gpu), 3.0, 0.15);
  ASSERT_TRUE(model.learned_prediction(task, *gpu).has_value());
  // A P-state stretches the learned seconds as it stretches the roofline's.
  const std::size_t slow = gpu->spec.pstates.size() - 1;
  EXPECT_NEAR(model.task_seconds(task, *gpu, slow) / model.task_seconds(task, *gpu),
              roofline.task_seconds(task, *gpu, slow) / roofline.task_seconds(task, *gpu), 1e-9);
  // Another kernel, never measured: the roofline, exactly.
  Task other = task;
  other.name = "stencil_1";
  other.kernel = KernelClass::elementwise;
  EXPECT_FALSE(model.learned_prediction(other, *gpu).has_value());
  EXPECT_DOUBLE_EQ(model.task_seconds(other, *gpu), roofline.task_seconds(other, *gpu));
}

TEST(RuntimePredictor, BadFilesAreOneLineErrorsNamingTheFile) {
  const std::vector<RuntimeMeasurement> all = read_measurements(kShippedMeasurements);
  PredictorScratchFile good("predictor_good.json"), bad("predictor_bad.json");
  RuntimePredictor::fit(all, small_predictor_options()).save(good.path());
  const std::string text = read_text_file(good.path());
  auto refused = [&](const std::string& content, const std::string& expected) {
    bad.write(content);
    try {
      RuntimePredictor::load(bad.path());
      ADD_FAILURE() << "accepted: " << expected;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(bad.path()), std::string::npos) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  };
  refused(text.substr(0, text.size() / 2), "not a JSON predictor file");  // truncated
  refused("{}", "format");
  nlohmann::json json = nlohmann::json::parse(text);
  json["version"] = 99;
  refused(json.dump(), "version");
  json = nlohmann::json::parse(text);
  json["features"][0] = "kernel_name";
  refused(json.dump(), "fitted on the features");
  json = nlohmann::json::parse(text);
  json["mean"]["trees"][0]["left"][0] = 100000;
  refused(json.dump(), "mean");
  json = nlohmann::json::parse(text);
  json["regressions"][0]["a"] = "x";
  refused(json.dump(), "regressions[0].a");
  EXPECT_THROW(RuntimePredictor::load(good.path() + ".missing"), InputError);
}

TEST(RuntimeMeasurementFile, RoundTripsAndRefusesUnknownNamesWithTheClosestOne) {
  const std::vector<RuntimeMeasurement> all = read_measurements(kShippedMeasurements);
  PredictorScratchFile copy("measurements.json");
  write_measurements(copy.path(), "test machine", all);
  const std::vector<RuntimeMeasurement> again = read_measurements(copy.path());
  ASSERT_EQ(again.size(), all.size());
  EXPECT_EQ(again[5].kernel, all[5].kernel);
  EXPECT_DOUBLE_EQ(again[5].seconds, all[5].seconds);
  EXPECT_EQ(again[5].held_out, all[5].held_out);
  nlohmann::json json = nlohmann::json::parse(read_text_file(copy.path()));
  json["measurements"][3]["kernel_class"] = "dense_matmal";
  copy.write(json.dump());
  try {
    read_measurements(copy.path());
    ADD_FAILURE() << "accepted an unknown kernel class";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("measurements[3].kernel_class"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("dense_matmul"), std::string::npos) << e.what();
  }
  json["measurements"][3]["kernel_class"] = "dense_matmul";
  json["measurements"][4]["seconds"] = -1;
  copy.write(json.dump());
  EXPECT_THROW(read_measurements(copy.path()), InputError);
  EXPECT_THROW(RuntimePredictor::fit({all.begin(), all.begin() + 3}, small_predictor_options()),
               InputError);
}

}  // namespace
}  // namespace hetsched
