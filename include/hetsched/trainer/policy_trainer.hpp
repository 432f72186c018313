// train_learned_policy: trains the learned policy's network in the twin — first by
// imitation of the plan each job gets at its arrival (a warm start: the network learns to
// place each device's next planned task, in the plan's order, and to wait for the rest;
// see LearnedPolicy::imitate_plan; in the later imitation episodes the network acts and
// the teacher labels, as DAgger), then by policy gradient — REINFORCE with a per-episode
// baseline, as Decima trains its scheduler. Each
// episode draws a scenario, runs the policy on it `rollouts` times (the same actual
// durations each time: only the policy's sampled choices differ), scores each rollout by
// its mean job completion time over a reference heuristic's on the same scenario, and
// moves the network towards the choices of the rollouts that beat their episode's mean
// (advantage = how much better than the mean, over the spread), with an entropy bonus
// that keeps it exploring. The gradient step is libtorch's (autograd and Adam, on one
// thread); the rollouts evaluate the network with the policy's own code, so what is
// trained is exactly what runs.
//
// Every `validate_every` episodes the policy is run greedily (taking its best choice, as
// in use) on a fixed validation set of scenarios, and the network that did best there is
// the one returned. Same options and seed, same weights, byte for byte.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hetsched/core/expected.hpp"
#include "hetsched/learn/learned_policy.hpp"
#include "hetsched/learn/policy_network.hpp"
#include "hetsched/training/learning_scenario.hpp"

namespace hetsched {

// What episodes are drawn from: tiled factorizations, DAG streams, or either at random.
enum class ScenarioSpaceKind : std::uint8_t { tiled, dag_stream, mixed };

struct TrainingOptions {
  ScenarioSpaceKind space = ScenarioSpaceKind::tiled;
  TiledScenarioSpace tiled;
  DagStreamScenarioSpace dag_stream;
  std::size_t episodes = 200;
  // The first episodes teach the network to follow the plan (its choices' log-likelihood,
  // one run each) before policy gradient improves on it.
  std::size_t imitation_episodes = 50;
  // The share of them, the last ones, in which the network acts and the teacher only says
  // what it would have done (DAgger: the network then learns the way back to the plan from
  // the states its own mistakes lead to, which a teacher that acts never shows it).
  double network_acting_share = 0.5;
  std::size_t rollouts = 4;  // per episode
  std::uint64_t seed = 1;
  double learning_rate = 3e-3;
  std::vector<std::uint32_t> hidden{16, 16};
  // The graph encoder: units of each task's embedding (0: none) and rounds of message
  // passing.
  std::uint32_t embedding = 8;
  std::size_t rounds = 2;
  double entropy_weight = 0.01;
  // Rollouts are scored by their objective over this registry policy's on the same scenario.
  std::string reference_policy = "greedy-eft";
  std::size_t validation_scenarios = 8;
  std::size_t validate_every = 10;
};

// Fails with why the options cannot be trained on (no episodes, fewer than two rollouts,
// a learning rate that is not a positive number, an unknown reference policy or catalog
// model, an empty or inverted range).
Status check_training_options(const TrainingOptions& options);

struct TrainingPoint {
  std::size_t episode = 0;       // episodes done
  double sampled_ratio = 0;      // the episode's rollouts: mean objective over the reference's
  double validation_ratio = -1;  // greedy on the validation set (-1: not measured here)
};

struct TrainingResult {
  PolicyNetwork network;
  std::vector<TrainingPoint> curve;
  double initial_validation_ratio = 0;
  double imitation_validation_ratio = 0;  // after the imitation episodes
  double best_validation_ratio = 0;
  std::size_t best_episode = 0;
};

// Called after every episode with its point.
using TrainingProgress = std::function<void(const TrainingPoint&)>;

// Trains from fresh weights (drawn from the seed). Throws InputError for options
// check_training_options refuses.
TrainingResult train_learned_policy(const TrainingOptions& options,
                                    const TrainingProgress& progress = {});

// The scores the trainer's libtorch copy of `network` gives the candidates of `trace` (its
// rows, with the embeddings of their tasks' nodes), in the rows' order: what the gradient
// steps differentiate, which must be what the policy computes.
std::vector<float> trace_scores(const PolicyNetwork& network, const DecisionTrace& trace);

// The scenario of the options' space drawn with `rng`.
LearningScenario draw_scenario(const TrainingOptions& options, Rng& rng);

}  // namespace hetsched
