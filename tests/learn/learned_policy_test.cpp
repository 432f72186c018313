// The learned policy: it never strands a task; imitating the plan reproduces the plan's
// makespan where predictions are exact; its network's fast evaluation is the layers' dot
// products; a bad model file is one clear error; bad model files and impossible training
// settings through the CLI exit with status 2.
#include "hetsched/learn/learned_policy.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/sim/simulator.hpp"
#include "hetsched/training/learning_scenario.hpp"
#include "random_dag.hpp"
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

TEST(LearnedPolicy, ImitatingThePlanReproducesItsMakespanWhenPredictionsAreExact) {
  // Placing each device's next planned task as soon as it is ready, and waiting otherwise,
  // runs the plan: without noise, contention or communication the makespan is the shorter
  // of HEFT's and PEFT's planned ones. (With communication it is longer: an online policy
  // places a task when it is ready, and only then do its inputs start to move, where a
  // static plan placed at the job's arrival moves each input as soon as it is made.)
  Rng rng(5);
  for (std::size_t devices : {3u, 5u}) {
    const RandomDag dag = generate_random_dag({.tasks = 60, .ccr = 0, .devices = devices}, rng);
    const Cluster cluster = uniform_cost_cluster(devices);
    const RooflineModel perf(cluster);
    const Workload workload{.jobs = {dag.as_job("random")}};
    const DagInstance instance = dag.instance();
    const double plan = std::min(heft_plan(instance, {}).makespan_seconds,
                                 peft_plan(instance, {}).makespan_seconds);
    const std::uint32_t hidden[] = {4};
    LearnedPolicy teacher(PolicyNetwork::initial(kDecisionFeatureCount, hidden, rng));
    DecisionTrace trace;
    teacher.imitate_plan(&trace);
    Simulator sim(cluster, workload, perf, teacher, SimulationOptions{.seed = 1});
    const RunReport report = sim.run();
    ASSERT_EQ(report.tasks_completed, instance.task_count());
    EXPECT_NEAR(report.makespan_seconds, plan, 1e-6 * plan);
    // Every decision was recorded, each task offered on at most its planned device and
    // LearnedPolicy::kOffered others, and waiting taken at least once.
    ASSERT_FALSE(trace.decisions.empty());
    std::size_t waits = 0;
    for (const DecisionTrace::Decision& d : trace.decisions) {
      EXPECT_LE(d.candidates, LearnedPolicy::kWindow * (LearnedPolicy::kOffered + 1) + 1);
      const float* chosen = &trace.rows[(d.first_row + d.chosen) * kDecisionFeatureCount];
      waits += chosen[0] == 1.0f;  // the wait feature
    }
    EXPECT_GT(waits, 0u);
  }
}

TEST(PolicyNetwork, ScoreIsTheLayersDotProducts) {
  // Widths that take every path of the evaluation: blocks of 16 outputs, of 4, and single
  // ones; replaced weights are used at once.
  Rng rng(8);
  const std::vector<std::uint32_t> hidden{21, 7};
  PolicyNetwork network = PolicyNetwork::initial(kDecisionFeatureCount, hidden, rng);
  const auto reference = [&](std::span<const float> x) {
    std::vector<double> in(x.begin(), x.end());
    for (std::size_t k = 0; k < network.layers().size(); ++k) {
      const DenseLayer& l = network.layers()[k];
      std::vector<double> out(l.outputs);
      for (std::uint32_t o = 0; o < l.outputs; ++o) {
        double sum = l.bias[o];
        for (std::uint32_t i = 0; i < l.inputs; ++i)
          sum += double(l.weights[o * l.inputs + i]) * in[i];
        out[o] = k + 1 < network.layers().size() ? std::max(sum, 0.0) : sum;
      }
      in = std::move(out);
    }
    return in[0];
  };
  for (int round = 0; round < 2; ++round) {
    for (int trial = 0; trial < 50; ++trial) {
      std::vector<float> x(kDecisionFeatureCount);
      for (float& v : x) v = static_cast<float>(rng.uniform(-3, 3));
      EXPECT_NEAR(network.score(x), reference(x), 1e-4);
    }
    for (std::size_t k = 0; k < network.layers().size(); ++k) {
      std::vector<float> w = network.layers()[k].weights, b = network.layers()[k].bias;
      for (float& v : w) v = static_cast<float>(rng.uniform(-1, 1));
      for (float& v : b) v = static_cast<float>(rng.uniform(-1, 1));
      network.assign_layer(k, w, b);
    }
  }
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
      {short_weights, "layers[0].weights: expected a list of " +
                          std::to_string(kDecisionFeatureCount * 16) + " numbers"},
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
