// The learned policy: it never strands a task; a bad model file is one clear error; bad
// model files and impossible training settings through the CLI exit with status 2.
#include "hetsched/learn/learned_policy.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hetsched/core/input_error.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/training/learning_scenario.hpp"
#include "support/cli_runner.hpp"

namespace hetsched {
namespace {

std::vector<std::string_view> names() {
  const auto span = decision_feature_names();
  return {span.begin(), span.end()};
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
  Rng rng(2);
  const std::vector<std::uint32_t> hidden{16, 16};
  const PolicyNetwork network = PolicyNetwork::initial(kDecisionFeatureCount, hidden, rng);
  const std::string good = policy_network_to_json(network, names(), "");
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
