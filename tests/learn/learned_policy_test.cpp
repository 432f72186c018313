// The learned policy and its trainer: a few seconds of training improve the policy on its
// validation set; the same seed gives the same weights; a saved model makes the same
// decisions; a bad model file is one clear error; the policy never strands a task.
#include "hetsched/learn/learned_policy.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "hetsched/core/input_error.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/training/policy_trainer.hpp"
#include "support/cli_runner.hpp"

namespace hetsched {
namespace {

TrainingOptions tiny_training(std::uint64_t seed) {
  TrainingOptions o;
  o.seed = seed;
  o.episodes = 30;
  o.imitation_episodes = 0;  // policy gradient alone must improve it
  o.rollouts = 4;
  o.validation_scenarios = 4;
  o.validate_every = 5;
  o.tiled.min_tiles = 3;
  o.tiled.max_tiles = 5;
  return o;
}

const TrainingResult& trained() {
  static const TrainingResult result = train_learned_policy(tiny_training(3));
  return result;
}

std::vector<std::string_view> names() {
  const auto span = decision_feature_names();
  return {span.begin(), span.end()};
}

TEST(LearnedPolicyTraining, ImprovesTheValidationObjective) {
  const TrainingResult& r = trained();
  EXPECT_LT(r.best_validation_ratio, r.initial_validation_ratio);
  EXPECT_GT(r.best_episode, 0u);
  ASSERT_EQ(r.curve.size(), 30u);
  for (const TrainingPoint& p : r.curve) EXPECT_TRUE(std::isfinite(p.sampled_ratio));
}

TEST(LearnedPolicyTraining, ImitatingEarliestFinishImprovesAnUntrainedNetwork) {
  TrainingOptions o = tiny_training(5);
  o.imitation_episodes = 20;
  o.episodes = 1;
  const TrainingResult r = train_learned_policy(o);
  EXPECT_LT(r.imitation_validation_ratio, r.initial_validation_ratio);
  EXPECT_LE(r.best_validation_ratio, r.imitation_validation_ratio);
}

TEST(LearnedPolicyTraining, SameSeedSameWeights) {
  const TrainingResult again = train_learned_policy(tiny_training(3));
  const auto& a = trained().network.layers();
  const auto& b = again.network.layers();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].weights, b[k].weights);
    EXPECT_EQ(a[k].bias, b[k].bias);
  }
  EXPECT_EQ(again.best_validation_ratio, trained().best_validation_ratio);
}

TEST(LearnedPolicyTraining, SavedModelMakesTheSameDecisions) {
  const std::string text = policy_network_to_json(trained().network, names(), "");
  auto loaded = parse_policy_network(text, "saved.json", names());
  ASSERT_TRUE(loaded) << loaded.error();
  Rng rng(9);
  TiledScenarioSpace space;
  space.min_tiles = 6;
  space.max_tiles = 6;
  for (int i = 0; i < 3; ++i) {
    const LearningScenario scenario = draw_tiled_scenario(space, rng);
    LearnedPolicy original(trained().network), copy(*loaded);
    DecisionTrace first, second;
    original.explore(nullptr, &first);
    copy.explore(nullptr, &second);
    EXPECT_EQ(run_scenario(scenario, original).objective_seconds,
              run_scenario(scenario, copy).objective_seconds);
    ASSERT_FALSE(first.decisions.empty());
    ASSERT_EQ(first.decisions.size(), second.decisions.size());
    for (std::size_t d = 0; d < first.decisions.size(); ++d)
      EXPECT_EQ(first.decisions[d].chosen, second.decisions[d].chosen);
  }
}

TEST(LearnedPolicy, FinishesEveryTaskOnStreamsAndFactorizations) {
  Rng rng(4);
  const DagStreamScenarioSpace stream;
  LearnedPolicy shipped(builtin_policy_network());
  EXPECT_NO_THROW(run_scenario(draw_dag_stream_scenario(stream, rng), shipped));
  LearnedPolicy untrained(PolicyNetwork::initial(kDecisionFeatureCount, {}, rng));
  EXPECT_NO_THROW(run_scenario(draw_tiled_scenario({}, rng), untrained));
}

TEST(LearnedPolicyModelFile, BadFilesAreOneClearError) {
  const std::string good = policy_network_to_json(trained().network, names(), "");
  struct Case {
    std::string text, expected;
  };
  std::string other_features = good;
  other_features.replace(other_features.find("\"wait\""), 6, "\"sleep\"");
  std::string huge_weight = good;
  huge_weight.replace(huge_weight.find("\"weights\": ["), 12, "\"weights\": [1e400,");
  std::string short_weights = good;  // the first weight dropped
  const std::size_t first = short_weights.find("\"weights\": [") + 12;
  short_weights.erase(first, short_weights.find(',', first) + 1 - first);
  const std::vector<Case> cases{
      {"", "not a JSON model file"},
      {good.substr(0, good.size() / 2), "not a JSON model file"},
      {"[1, 2]", "the top level: expected an object"},
      {R"({"format": "onnx", "version": 1})", "expected \"hetsched-learned-policy\""},
      {other_features, "trained on the features [sleep"},
      {huge_weight, "number overflow"},
      {short_weights, "layers[0].weights: expected a list of 272 numbers"},
  };
  for (const Case& c : cases) {
    const auto parsed = parse_policy_network(c.text, "model.json", names());
    ASSERT_FALSE(parsed) << c.text.substr(0, 40);
    EXPECT_NE(parsed.error().find("model.json: "), std::string::npos) << parsed.error();
    EXPECT_NE(parsed.error().find(c.expected), std::string::npos) << parsed.error();
    EXPECT_EQ(parsed.error().find('\n'), std::string::npos) << parsed.error();
  }
  const auto missing = read_policy_network("/nonexistent/model.json", names());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("cannot open"), std::string::npos);
  PolicyOptions options;
  options.learned_model = "/nonexistent/model.json";
  EXPECT_THROW(make_policy("learned", options), InputError);
}

TEST(LearnedPolicyTraining, RefusesSettingsItCannotTrainOn) {
  TrainingOptions o = tiny_training(1);
  o.rollouts = 1;
  EXPECT_FALSE(check_training_options(o));
  o = tiny_training(1);
  o.tiled.accelerator_models = {"A1000"};
  const auto status = check_training_options(o);
  ASSERT_FALSE(status);
  EXPECT_NE(status.error().find("A100-80GB"), std::string::npos) << status.error();
  o = tiny_training(1);
  o.reference_policy = "learned";
  EXPECT_FALSE(check_training_options(o));
  o.reference_policy = "heft";
  o.tiled.min_tiles = 9;
  o.tiled.max_tiles = 3;
  EXPECT_FALSE(check_training_options(o));
  EXPECT_THROW(train_learned_policy(o), InputError);
}

TEST(LearnedPolicyCli, CorruptModelAndImpossibleTrainingExitWithStatusTwo) {
  const auto path = std::filesystem::temp_directory_path() / "hetsched_corrupt_model.json";
  {
    std::ofstream out(path);
    out << R"({"format": "hetsched-learned-policy", "version": 1, "features": [)";
  }
  auto r = testing::run_cli("bench learned --quick --quiet --model " + path.string());
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(testing::line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(path.string()), std::string::npos) << r.err;
  std::filesystem::remove(path);
  r = testing::run_cli("train --out /tmp/hetsched_never.json --max-tiles 2 --min-tiles 5");
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_EQ(testing::line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("tiles"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hetsched
