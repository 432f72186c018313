// The learned policy: it never strands a task; imitating the plan reproduces the plan's
// makespan where predictions are exact; its network's fast evaluation is the layers' dot
// products; a bad model file is one clear error; bad model files and impossible training
// settings through the CLI exit with status 2.
#include "hetsched/learn/learned_policy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetsched/cluster/default_cluster.hpp"
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

TEST(LearnedPolicy, FinishesEveryTaskOnStreamsAndFactorizations) {
  Rng rng(4);
  const DagStreamScenarioSpace stream;
  LearnedPolicy shipped(builtin_policy_network());
  EXPECT_NO_THROW(run_scenario(draw_dag_stream_scenario(stream, rng), shipped));
  LearnedPolicy untrained(PolicyNetwork::initial(kDecisionFeatureCount, {}, rng));
  EXPECT_NO_THROW(run_scenario(draw_tiled_scenario({}, rng), untrained));
}

TEST(LearnedPolicy, ImitatingThePlanReproducesItsMakespanWhenPredictionsAreExact) {
  // On a job alone, the teacher places each device's next planned task as soon as it is
  // ready and commits the next ones before they are ready, as soon as their producers are
  // placed, so that their inputs move as soon as they are made: it runs the plan. Without
  // noise or contention the makespan is the shorter of HEFT's and PEFT's planned ones,
  // communication included (placing a task only when it is ready, and only then moving
  // its inputs, made it 15 % and 42 % longer at CCR 0.5 and 2).
  Rng rng(5);
  for (double ccr : {0.0, 1.0}) {
    for (std::size_t devices : {3u, 5u}) {
      const RandomDag dag = generate_random_dag({.tasks = 60, .ccr = ccr, .devices = devices}, rng);
      const Cluster cluster = uniform_cost_cluster(devices);
      const RooflineModel perf(cluster);
      const Workload workload{.jobs = {dag.as_job("random")}};
      const DagInstance instance = dag.instance();
      const double plan = std::min(heft_plan(instance, ScheduleLimits{}).makespan_seconds,
                                   peft_plan(instance, ScheduleLimits{}).makespan_seconds);
      const std::uint32_t hidden[] = {4};
      LearnedPolicy teacher(PolicyNetwork::initial(kDecisionFeatureCount, hidden, rng));
      DecisionTrace trace;
      teacher.imitate_plan(&trace);
      Simulator sim(cluster, workload, perf, teacher, SimulationOptions{.seed = 1});
      const RunReport report = sim.run();
      ASSERT_EQ(report.tasks_completed, instance.task_count());
      EXPECT_NEAR(report.makespan_seconds, plan, 1e-6 * plan) << "CCR " << ccr;
      // Every decision was recorded, each task offered on at most its planned device and
      // LearnedPolicy::kOffered others; tasks were committed before they were ready, and
      // each commitment offered was taken.
      ASSERT_FALSE(trace.decisions.empty());
      constexpr std::size_t kNotReady = 18;
      ASSERT_EQ(decision_feature_names()[kNotReady], "not_ready");
      std::size_t committed = 0;
      for (const DecisionTrace::Decision& d : trace.decisions) {
        EXPECT_LE(d.candidates, LearnedPolicy::kWindow * (LearnedPolicy::kOffered + 1) + 1);
        if (trace.rows[d.first_row * kDecisionFeatureCount + kNotReady] != 1.0f) continue;
        EXPECT_EQ(d.chosen, 0u);
        ++committed;
      }
      EXPECT_GT(committed, 0u);
    }
  }
}

TEST(LearnedPolicy, WhenTheNetworkActsTheTraceHoldsThePlansChoices) {
  // DAgger's half of imitation: the network's greedy choices are what runs (the objective
  // is the greedy policy's), and each recorded choice is the plan's — the window's task
  // that is next of its planned device and planned first, else waiting when offered; and
  // a task not ready yet is committed to its device only while its job is the only one
  // that has arrived.
  Rng rng(6);
  DagStreamScenarioSpace space;
  space.jobs = 4;
  const LearningScenario scenario = draw_dag_stream_scenario(space, rng);
  const std::uint32_t hidden[] = {8};
  const PolicyNetwork network = PolicyNetwork::initial(
      kDecisionFeatureCount, hidden, rng, GraphEncoder::initial(kNodeFeatureCount, 4, 1, rng));
  LearnedPolicy greedy(network), labelled(network);
  DecisionTrace trace;
  labelled.imitate_plan(&trace, /*network_acts=*/true);
  EXPECT_EQ(run_scenario(scenario, labelled).objective_seconds,
            run_scenario(scenario, greedy).objective_seconds);
  // Feature columns.
  constexpr std::size_t kWait = 0, kPlanStart = 12, kPlanNext = 13, kNotReady = 18,
                        kJobsArrived = 20;
  ASSERT_EQ(decision_feature_names()[kPlanStart], "plan_start_after_now");
  ASSERT_EQ(decision_feature_names()[kPlanNext], "plan_next");
  ASSERT_EQ(decision_feature_names()[kNotReady], "not_ready");
  ASSERT_EQ(decision_feature_names()[kJobsArrived], "log_jobs_arrived");
  std::size_t followed = 0, committed = 0, held = 0;
  for (const DecisionTrace::Decision& d : trace.decisions) {
    const auto row = [&](std::size_t c) {
      return &trace.rows[(d.first_row + c) * kDecisionFeatureCount];
    };
    const float* chosen = row(d.chosen);
    if (row(0)[kNotReady] == 1.0f) {  // commit it now (0), or wait (1)
      ASSERT_EQ(d.candidates, 2u);
      const bool first_job = row(0)[kJobsArrived] == static_cast<float>(std::log1p(1.0));
      EXPECT_EQ(d.chosen, first_job ? 0u : 1u);
      ++(first_job ? committed : held);
      continue;
    }
    bool any_next = false;
    for (std::size_t c = 0; c < d.candidates; ++c) {
      if (row(c)[kPlanNext] == 0) continue;
      any_next = true;
      EXPECT_LE(chosen[kPlanStart], row(c)[kPlanStart]);
    }
    if (any_next) {
      EXPECT_EQ(chosen[kPlanNext], 1.0f);
      ++followed;
    } else if (row(d.candidates - 1)[kWait] == 1.0f) {
      EXPECT_EQ(chosen[kWait], 1.0f);
    }
  }
  EXPECT_GT(followed, 0u);
  EXPECT_GT(committed, 0u);
  EXPECT_GT(held, 0u);
}

TEST(LearnedPolicy, JobCountsStopAtTheStreamLengthItTrainsOn) {
  // A stream longer than the training streams: the network sees at most
  // kJobCountFeatureLimit jobs arrived (a count beyond it is extrapolation it was never
  // taught), and does see that many.
  Rng rng(7);
  DagStreamScenarioSpace space;
  space.jobs = 2 * kJobCountFeatureLimit;
  space.min_tasks = 4;
  space.max_tasks = 8;
  space.mean_interarrival_seconds = 0.1;
  const std::uint32_t hidden[] = {4};
  LearnedPolicy policy(PolicyNetwork::initial(kDecisionFeatureCount, hidden, rng));
  DecisionTrace trace;
  policy.imitate_plan(&trace, /*network_acts=*/true);
  run_scenario(draw_dag_stream_scenario(space, rng), policy);
  constexpr std::size_t kActiveJobs = 19, kJobsArrived = 20;
  ASSERT_EQ(decision_feature_names()[kActiveJobs], "log_active_jobs");
  ASSERT_EQ(decision_feature_names()[kJobsArrived], "log_jobs_arrived");
  const auto limit = static_cast<float>(std::log1p(double(kJobCountFeatureLimit)));
  float most = 0;
  for (std::size_t row = 0; row < trace.rows.size() / kDecisionFeatureCount; ++row) {
    const float* x = &trace.rows[row * kDecisionFeatureCount];
    EXPECT_LE(x[kActiveJobs], limit);
    EXPECT_LE(x[kJobsArrived], limit);
    most = std::max(most, x[kJobsArrived]);
  }
  EXPECT_EQ(most, limit);
}

TEST(LearnedPolicy, APlanFarBehindLooksNoFurtherBehindThanTheLimit) {
  // Stragglers (one task in ten runs ten times longer) hold up the tasks planned after
  // them, which fall far behind their plans: the network sees at most kPlanLagFeatureLimit
  // mean task run times of it, and does see that much.
  Rng rng(8);
  DagStreamScenarioSpace space;
  space.jobs = 18;
  space.mean_interarrival_seconds = 0.5;
  space.cluster = default_cluster();
  space.noise = {.sigma = 0.2, .straggler_probability = 0.1, .straggler_slowdown = 10};
  LearnedPolicy policy(builtin_policy_network());
  DecisionTrace trace;
  policy.explore(nullptr, &trace);
  run_scenario(draw_dag_stream_scenario(space, rng), policy);
  constexpr std::size_t kPlanStart = 12;
  ASSERT_EQ(decision_feature_names()[kPlanStart], "plan_start_after_now");
  const auto limit = static_cast<float>(-kPlanLagFeatureLimit);
  float least = 0;
  for (std::size_t row = 0; row < trace.rows.size() / kDecisionFeatureCount; ++row)
    least = std::min(least, trace.rows[row * kDecisionFeatureCount + kPlanStart]);
  EXPECT_EQ(least, limit);
}

TEST(PolicyNetwork, ScoreIsTheLayersDotProducts) {
  // Widths that take every path of the evaluation: blocks of 16 outputs, of 4, and single
  // ones; replaced weights are used at once; a task's embedding enters through the first
  // layer's sums as the last inputs of that layer.
  Rng rng(8);
  const std::vector<std::uint32_t> hidden{21, 7};
  constexpr std::uint32_t kEmbedding = 5;
  PolicyNetwork network =
      PolicyNetwork::initial(kDecisionFeatureCount, hidden, rng,
                             GraphEncoder::initial(kNodeFeatureCount, kEmbedding, 1, rng));
  ASSERT_EQ(network.input_count(), kDecisionFeatureCount);
  const auto reference = [&](std::span<const float> x, std::span<const float> embedding) {
    std::vector<double> in(x.begin(), x.end());
    in.insert(in.end(), embedding.begin(), embedding.end());
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
      std::vector<float> x(kDecisionFeatureCount), embedding(kEmbedding);
      for (float& v : x) v = static_cast<float>(rng.uniform(-3, 3));
      for (float& v : embedding) v = static_cast<float>(rng.uniform(0, 2));
      std::vector<float> sums(network.first_width());
      network.embedding_sums(embedding, sums);
      EXPECT_NEAR(network.score(x, sums), reference(x, embedding), 1e-4);
      EXPECT_NEAR(network.score(x), reference(x, std::vector<float>(kEmbedding)), 1e-4);
    }
    for (std::size_t k = 0; k < network.layers().size(); ++k) {
      std::vector<float> w = network.layers()[k].weights, b = network.layers()[k].bias;
      for (float& v : w) v = static_cast<float>(rng.uniform(-1, 1));
      for (float& v : b) v = static_cast<float>(rng.uniform(-1, 1));
      network.assign_layer(k, w, b);
    }
  }
}

TEST(GraphEncoder, EmbedsEachTaskFromItsOwnItsSuccessorsAndItsPredecessorsMeans) {
  // One node feature, width 1, weights chosen so that each round gives
  // own + 2·(mean of successors) + 4·(mean of predecessors) + 0.5, through a ReLU.
  // On the diamond a → {b, c} → d with features 1, 2, 3, 4:
  //   a: 1 + 2·(2+3)/2 + 0.5 = 6.5;  b: 2 + 2·4 + 4·1 + 0.5 = 14.5;
  //   c: 3 + 8 + 4 + 0.5 = 15.5;     d: 4 + 4·(2+3)/2 + 0.5 = 14.5.
  const GraphEncoder encoder({DenseLayer{1, 1, {1}, {0}}, DenseLayer{3, 1, {1, 2, 4}, {0.5}}});
  const std::vector<float> features{1, 2, 3, 4};
  const std::vector<DagEdge> edges{{0, 1, 0}, {0, 2, 0}, {1, 3, 0}, {2, 3, 0}};
  std::vector<float> embeddings;
  encoder.encode(features, edges, embeddings);
  EXPECT_EQ(embeddings, (std::vector<float>{6.5f, 14.5f, 15.5f, 14.5f}));
  // A negative sum is cut to zero.
  const GraphEncoder negative({DenseLayer{1, 1, {-1}, {0}}});
  negative.encode(features, edges, embeddings);
  EXPECT_EQ(embeddings, (std::vector<float>{0, 0, 0, 0}));
}

TEST(LearnedPolicyModelFile, BadFilesAreOneClearError) {
  Rng rng(2);
  const std::vector<std::uint32_t> hidden{16, 16};
  const PolicyNetwork network = PolicyNetwork::initial(
      kDecisionFeatureCount, hidden, rng, GraphEncoder::initial(kNodeFeatureCount, 8, 2, rng));
  const std::string good = policy_network_to_json(network, learned_model_inputs(), "");
  {  // what is written is read back
    const auto back = parse_policy_network(good, "model.json", learned_model_inputs());
    ASSERT_TRUE(back) << back.error();
    EXPECT_EQ(back->encoder().rounds(), 2u);
    EXPECT_EQ(back->encoder().width(), 8u);
    EXPECT_EQ(back->layers().front().inputs, kDecisionFeatureCount + 8);
  }
  struct Case {
    std::string text, expected;
  };
  std::string other_features = good;
  other_features.replace(other_features.find("\"wait\""), 6, "\"sleep\"");
  std::string other_nodes = good;
  other_nodes.replace(other_nodes.find("\"log_mean_run\""), 14, "\"log_mean_sum\"");
  // A round whose outputs are not its inputs over 3 (each round's input is a task's
  // embedding and its neighbours' two means).
  nlohmann::json wider = nlohmann::json::parse(good);
  wider["encoder"][1]["outputs"] = 9;
  wider["encoder"][1]["weights"] = std::vector<float>(24 * 9, 0.1f);
  wider["encoder"][1]["bias"] = std::vector<float>(9, 0.0f);
  const std::string wider_round = wider.dump();
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
      {other_nodes, "trained on the node_features [log_mean_sum"},
      {wider_round, "encoder[1].outputs: expected 8"},
      {R"({"format": "hetsched-learned-policy", "version": 1})", "version: expected 2"},
      {huge_weight, "number overflow"},
      {short_weights, "encoder[0].weights: expected a list of " +
                          std::to_string(kNodeFeatureCount * 8) + " numbers"},
  };
  for (const Case& c : cases) {
    const auto parsed = parse_policy_network(c.text, "model.json", learned_model_inputs());
    ASSERT_FALSE(parsed) << c.text.substr(0, 40);
    EXPECT_NE(parsed.error().find("model.json: "), std::string::npos) << parsed.error();
    EXPECT_NE(parsed.error().find(c.expected), std::string::npos) << parsed.error();
    EXPECT_EQ(parsed.error().find('\n'), std::string::npos) << parsed.error();
  }
  const auto missing = read_policy_network("/nonexistent/model.json", learned_model_inputs());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().find("cannot open"), std::string::npos);
  PolicyOptions options;
  options.learned_model = "/nonexistent/model.json";
  EXPECT_THROW(make_policy("learned", options), InputError);
}

TEST(LearnedPolicyCli, FinishesEveryTaskWhileDevicesFail) {
  // Devices that fail refuse what is placed on them and hold tasks back from then on: the
  // policy offers those tasks again, and never waits on devices that are all idle or down
  // (which would wait forever).
  const auto r = testing::run_cli("simulate --policy learned --mtbf-hours 0.05 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto report = nlohmann::json::parse(r.out)["reports"][0];
  EXPECT_GT(report["faults"]["crashes"].get<int>(), 0);
  EXPECT_EQ(report["tasks_completed"], report["tasks_total"]);
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
