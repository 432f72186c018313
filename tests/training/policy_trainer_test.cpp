// The trainer (hetsched-train's library, libtorch): a few seconds of training improve the
// policy on its validation set, by policy gradient and by imitation; the same seed gives
// the same weights; a saved model makes the same decisions; settings it cannot train on are
// refused with a reason.
#include "hetsched/trainer/policy_trainer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "hetsched/core/input_error.hpp"
#include "hetsched/learn/learned_policy.hpp"

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

TEST(LearnedPolicyTraining, ImprovesTheValidationObjective) {
  const TrainingResult& r = trained();
  EXPECT_LT(r.best_validation_ratio, r.initial_validation_ratio);
  EXPECT_GT(r.best_episode, 0u);
  ASSERT_EQ(r.curve.size(), 30u);
  for (const TrainingPoint& p : r.curve) EXPECT_TRUE(std::isfinite(p.sampled_ratio));
}

TEST(LearnedPolicyTraining, ImitatingThePlanImprovesAnUntrainedNetwork) {
  TrainingOptions o = tiny_training(5);
  o.imitation_episodes = 20;
  o.episodes = 1;
  const TrainingResult r = train_learned_policy(o);
  EXPECT_LT(r.imitation_validation_ratio, r.initial_validation_ratio);
  EXPECT_LE(r.best_validation_ratio, r.imitation_validation_ratio);
}

TEST(LearnedPolicyTraining, SameSeedSameWeights) {
  const TrainingResult again = train_learned_policy(tiny_training(3));
  const auto same = [](const std::vector<DenseLayer>& a, const std::vector<DenseLayer>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      EXPECT_EQ(a[k].weights, b[k].weights);
      EXPECT_EQ(a[k].bias, b[k].bias);
    }
  };
  same(trained().network.layers(), again.network.layers());
  ASSERT_GT(again.network.encoder().rounds(), 0u);
  same(trained().network.encoder().layers(), again.network.encoder().layers());
  EXPECT_EQ(again.best_validation_ratio, trained().best_validation_ratio);
}

TEST(LearnedPolicyTraining, SavedModelMakesTheSameDecisions) {
  const std::string text = policy_network_to_json(trained().network, learned_model_inputs(), "");
  auto loaded = parse_policy_network(text, "saved.json", learned_model_inputs());
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

// The scores libtorch differentiates are the ones the policy decides by: on a stream of
// jobs (several graphs embedded one after the other), every greedy choice the policy made
// is the best under the trainer's scores — the best pair, or waiting when its softmax
// weight outweighs every pair's together (equal up to float rounding).
TEST(LearnedPolicyTraining, TheTrainerScoresWhatThePolicyComputes) {
  const PolicyNetwork& network = trained().network;
  ASSERT_GT(network.encoder().rounds(), 0u);
  DagStreamScenarioSpace space;
  space.jobs = 5;
  Rng rng(11);
  const LearningScenario scenario = draw_dag_stream_scenario(space, rng);
  LearnedPolicy policy(network);
  DecisionTrace trace;
  policy.explore(nullptr, &trace);
  run_scenario(scenario, policy);
  ASSERT_FALSE(trace.edges.empty());
  ASSERT_EQ(trace.row_node.size() * kDecisionFeatureCount, trace.rows.size());
  const std::vector<float> scores = trace_scores(network, trace);
  ASSERT_EQ(scores.size(), trace.row_node.size());
  std::size_t waits = 0;
  for (const DecisionTrace::Decision& d : trace.decisions) {
    const float* score = &scores[d.first_row];
    const bool may_wait = trace.row_node[d.first_row + d.candidates - 1] == DecisionTrace::kNoNode;
    const std::size_t pairs = d.candidates - (may_wait ? 1 : 0);
    const float top = *std::max_element(score, score + pairs);
    double place = 0;
    for (std::size_t c = 0; c < pairs; ++c) place += std::exp(double(score[c] - top));
    const double wait = may_wait ? std::exp(double(score[pairs] - top)) : 0;
    if (d.chosen == pairs) {
      ++waits;
      EXPECT_GE(wait, place * (1 - 1e-4));
    } else {
      EXPECT_NEAR(score[d.chosen], top, 1e-4);
      EXPECT_LE(wait, place * (1 + 1e-4));
    }
  }
  EXPECT_GT(waits, 0u);
}

// The mixed space draws tiled factorizations (one job) and DAG streams (several), each
// from its own space, and each space alone only its own kind.
TEST(LearnedPolicyTraining, MixedSpaceDrawsBothKinds) {
  const auto kinds = [](ScenarioSpaceKind space) {
    TrainingOptions o = tiny_training(1);
    o.space = space;
    Rng rng(5);
    std::size_t single = 0, streams = 0;
    for (int i = 0; i < 40; ++i)
      ++(draw_scenario(o, rng).workload.jobs.size() == 1 ? single : streams);
    return std::pair{single, streams};
  };
  const auto [mixed_single, mixed_streams] = kinds(ScenarioSpaceKind::mixed);
  EXPECT_GT(mixed_single, 10u);
  EXPECT_GT(mixed_streams, 10u);
  EXPECT_EQ(kinds(ScenarioSpaceKind::tiled), (std::pair<std::size_t, std::size_t>{40, 0}));
  EXPECT_EQ(kinds(ScenarioSpaceKind::dag_stream), (std::pair<std::size_t, std::size_t>{0, 40}));
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
  // The encoder and DAgger's share.
  o = tiny_training(1);
  o.embedding = 65;
  EXPECT_NE(error_text(check_training_options(o)).find("embedding"), std::string::npos);
  o = tiny_training(1);
  o.rounds = 9;
  EXPECT_NE(error_text(check_training_options(o)).find("rounds"), std::string::npos);
  o = tiny_training(1);
  o.network_acting_share = 1.5;
  EXPECT_NE(error_text(check_training_options(o)).find("[0, 1]"), std::string::npos);
  o.network_acting_share = 1;  // the network acts throughout: allowed
  o.embedding = 0;             // no encoder: allowed
  EXPECT_TRUE(check_training_options(o));
}

}  // namespace
}  // namespace hetsched
