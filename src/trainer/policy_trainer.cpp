#include "hetsched/trainer/policy_trainer.hpp"

#include <fmt/format.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/learn/learned_policy.hpp"
#include "hetsched/registry/policy_registry.hpp"

namespace hetsched {

Status check_training_options(const TrainingOptions& o) {
  if (o.episodes == 0) return failure("training needs at least one episode");
  if (o.rollouts < 2)
    return failure(fmt::format(
        "training needs at least 2 rollouts per episode (the baseline is their mean), got {}",
        o.rollouts));
  if (!(o.learning_rate > 0 && o.learning_rate < 1))
    return failure(fmt::format("the learning rate must be in (0, 1), got {}", o.learning_rate));
  if (!(o.entropy_weight >= 0 && std::isfinite(o.entropy_weight)))
    return failure("the entropy weight must be a finite number >= 0");
  if (o.validation_scenarios == 0 || o.validate_every == 0)
    return failure("training needs a validation set and a validation interval of at least 1");
  for (std::uint32_t h : o.hidden)
    if (h == 0 || h > 256) return failure("hidden layers must have 1 to 256 units");
  if (o.embedding > 64) return failure("the embedding must have 0 to 64 units");
  if (o.rounds > 8) return failure("message passing takes 0 to 8 rounds");
  if (!(o.network_acting_share >= 0 && o.network_acting_share <= 1))
    return failure("the share of imitation episodes the network acts in must be in [0, 1]");
  const auto names = policy_names();
  if (std::find(names.begin(), names.end(), o.reference_policy) == names.end() ||
      o.reference_policy == "learned")
    return failure(fmt::format("unknown reference policy '{}' (closest: {})", o.reference_policy,
                               fmt::join(closest_names(o.reference_policy, names), ", ")));
  if (o.space != ScenarioSpaceKind::dag_stream) {
    const TiledScenarioSpace& t = o.tiled;
    if (t.min_tiles < 1 || t.min_tiles > t.max_tiles || t.max_tiles > 64)
      return failure(fmt::format("tiles per side must form a range within 1..64, got {}..{}",
                                 t.min_tiles, t.max_tiles));
    if (t.cpu_workers.empty() || t.accelerator_models.empty() ||
        t.min_accelerators > t.max_accelerators)
      return failure("the tiled space needs CPU worker counts, accelerator models and a range");
    for (std::size_t w : t.cpu_workers)
      if (w == 0 || w > 256) return failure("CPU workers must number 1 to 256");
    for (const std::string& model : t.accelerator_models)
      if (find_catalog_part(model) == nullptr)
        return failure(fmt::format("unknown catalog model '{}' (closest: {})", model,
                                   fmt::join(closest_names(model, catalog_model_names()), ", ")));
    if (auto ok = check_duration_noise(t.noise); !ok) return ok;
  }
  if (o.space != ScenarioSpaceKind::tiled) {
    const DagStreamScenarioSpace& d = o.dag_stream;
    if (d.jobs == 0 || d.min_tasks == 0 || d.min_tasks > d.max_tasks)
      return failure("the DAG stream space needs jobs and a task range");
    if (auto ok = check_duration_noise(d.noise); !ok) return ok;
  }
  return {};
}

LearningScenario draw_scenario(const TrainingOptions& options, Rng& rng) {
  const bool tiled = options.space == ScenarioSpaceKind::mixed
                         ? rng.below(2) == 0
                         : options.space == ScenarioSpaceKind::tiled;
  return tiled ? draw_tiled_scenario(options.tiled, rng)
               : draw_dag_stream_scenario(options.dag_stream, rng);
}

namespace {

// Dense layers as libtorch parameters.
class TorchLayers {
 public:
  explicit TorchLayers(const std::vector<DenseLayer>& layers) {
    for (const DenseLayer& l : layers) {
      weights_.push_back(torch::tensor(l.weights)
                             .reshape({std::int64_t{l.outputs}, std::int64_t{l.inputs}})
                             .requires_grad_());
      biases_.push_back(torch::tensor(l.bias).requires_grad_());
    }
  }
  std::size_t size() const { return weights_.size(); }
  void append_parameters(std::vector<torch::Tensor>& all) const {
    all.insert(all.end(), weights_.begin(), weights_.end());
    all.insert(all.end(), biases_.begin(), biases_.end());
  }
  torch::Tensor apply(std::size_t k, const torch::Tensor& x, bool relu) const {
    const torch::Tensor y = torch::addmm(biases_[k], x, weights_[k].t());
    return relu ? torch::relu(y) : y;
  }
  // Layer k's weights and biases, handed to `assign(k, weights, bias)`.
  template <typename Assign>
  void copy_to(Assign assign) const {
    torch::NoGradGuard no_grad;
    for (std::size_t k = 0; k < weights_.size(); ++k) {
      const torch::Tensor w = weights_[k].contiguous();
      const torch::Tensor b = biases_[k].contiguous();
      assign(k, std::span<const float>{w.data_ptr<float>(), std::size_t(w.numel())},
             std::span<const float>{b.data_ptr<float>(), std::size_t(b.numel())});
    }
  }

 private:
  std::vector<torch::Tensor> weights_, biases_;
};

// The graph a batch of traces embeds, as tensors: node features, edges, each node's
// successor and predecessor counts' inverses (for the means), and each row's node (the
// rows of waiting point at one more node, N, whose embedding is zeros).
struct TorchGraph {
  torch::Tensor nodes, from, to, successor_share, predecessor_share, row_node;
};

// The network as libtorch parameters: the encoder's layers, then the scorer's.
class TorchNetwork {
 public:
  explicit TorchNetwork(const PolicyNetwork& network)
      : encoder_(network.encoder().layers()), scorer_(network.layers()) {}
  std::vector<torch::Tensor> parameters() const {
    std::vector<torch::Tensor> all;
    encoder_.append_parameters(all);
    scorer_.append_parameters(all);
    return all;
  }
  // Scores of the rows of x [N × features] whose tasks are in `graph`: [N].
  torch::Tensor forward(torch::Tensor x, const TorchGraph& graph) const {
    if (encoder_.size() > 0) {
      // As GraphEncoder::encode: the node features through the first layer, then per round
      // [own; mean over successors; mean over predecessors] through the next.
      torch::Tensor h = encoder_.apply(0, graph.nodes, true);
      for (std::size_t k = 1; k < encoder_.size(); ++k) {
        const torch::Tensor successors =
            torch::zeros_like(h).index_add(0, graph.from, h.index_select(0, graph.to)) *
            graph.successor_share;
        const torch::Tensor predecessors =
            torch::zeros_like(h).index_add(0, graph.to, h.index_select(0, graph.from)) *
            graph.predecessor_share;
        h = encoder_.apply(k, torch::cat({h, successors, predecessors}, 1), true);
      }
      h = torch::cat({h, torch::zeros({1, h.size(1)})}, 0);
      x = torch::cat({x, h.index_select(0, graph.row_node)}, 1);
    }
    for (std::size_t k = 0; k < scorer_.size(); ++k)
      x = scorer_.apply(k, x, k + 1 < scorer_.size());
    return x.squeeze(1);
  }
  void copy_to(PolicyNetwork& network) const {
    encoder_.copy_to([&](std::size_t k, std::span<const float> w, std::span<const float> b) {
      network.assign_encoder_layer(k, w, b);
    });
    scorer_.copy_to([&](std::size_t k, std::span<const float> w, std::span<const float> b) {
      network.assign_layer(k, w, b);
    });
  }

 private:
  TorchLayers encoder_, scorer_;
};

// One rollout's decisions and how much better than its episode's mean it did.
struct Rollout {
  DecisionTrace trace;
  double ratio = 0;
};

// The graphs of the rollouts' traces, one after the other, as tensors.
TorchGraph torch_graph(const std::vector<Rollout>& rollouts) {
  std::vector<float> nodes;
  std::vector<std::int64_t> from, to, row_node;
  for (const Rollout& r : rollouts) {
    const auto base = static_cast<std::int64_t>(nodes.size() / kNodeFeatureCount);
    nodes.insert(nodes.end(), r.trace.node_features.begin(), r.trace.node_features.end());
    for (const DagEdge& e : r.trace.edges) {
      from.push_back(base + e.from);
      to.push_back(base + e.to);
    }
  }
  const auto N = static_cast<std::int64_t>(nodes.size() / kNodeFeatureCount);
  std::int64_t base = 0;
  for (const Rollout& r : rollouts) {
    for (std::uint32_t node : r.trace.row_node)
      row_node.push_back(node == DecisionTrace::kNoNode ? N : base + node);
    base += static_cast<std::int64_t>(r.trace.node_features.size() / kNodeFeatureCount);
  }
  std::vector<float> successors(static_cast<std::size_t>(N)), predecessors(successors.size());
  for (std::size_t e = 0; e < from.size(); ++e) {
    successors[static_cast<std::size_t>(from[e])] += 1;
    predecessors[static_cast<std::size_t>(to[e])] += 1;
  }
  for (float& c : successors) c = c > 0 ? 1 / c : 0;
  for (float& c : predecessors) c = c > 0 ? 1 / c : 0;
  const auto tensor = [](auto& v, auto type) {
    return torch::from_blob(v.data(), {static_cast<std::int64_t>(v.size())}, type).clone();
  };
  TorchGraph g;
  g.nodes = tensor(nodes, torch::kFloat).reshape({N, std::int64_t{kNodeFeatureCount}});
  g.from = tensor(from, torch::kLong);
  g.to = tensor(to, torch::kLong);
  g.successor_share = tensor(successors, torch::kFloat).unsqueeze(1);
  g.predecessor_share = tensor(predecessors, torch::kFloat).unsqueeze(1);
  g.row_node = tensor(row_node, torch::kLong);
  return g;
}

// The policy-gradient loss over an episode's rollouts.
torch::Tensor episode_loss(const TorchNetwork& net, const std::vector<Rollout>& rollouts,
                           const std::vector<double>& advantage, double entropy_weight) {
  constexpr auto F = static_cast<std::int64_t>(kDecisionFeatureCount);
  std::vector<float> rows;
  std::vector<std::int64_t> segment, chosen;
  std::vector<float> decision_advantage;
  for (std::size_t k = 0; k < rollouts.size(); ++k) {
    const DecisionTrace& trace = rollouts[k].trace;
    const auto row_base = static_cast<std::int64_t>(rows.size() / F);
    rows.insert(rows.end(), trace.rows.begin(), trace.rows.end());
    for (const DecisionTrace::Decision& d : trace.decisions) {
      const auto index = static_cast<std::int64_t>(chosen.size());
      segment.insert(segment.end(), d.candidates, index);
      chosen.push_back(row_base + d.first_row + d.chosen);
      decision_advantage.push_back(static_cast<float>(advantage[k]));
    }
  }
  const auto n = static_cast<std::int64_t>(segment.size());
  const auto m = static_cast<std::int64_t>(chosen.size());
  // Copies, not views: autograd keeps some of them until backward(), after these vectors go.
  const torch::Tensor x = torch::from_blob(rows.data(), {n, F}, torch::kFloat).clone();
  const torch::Tensor seg = torch::from_blob(segment.data(), {n}, torch::kLong).clone();
  const torch::Tensor pick = torch::from_blob(chosen.data(), {m}, torch::kLong).clone();
  const torch::Tensor adv = torch::from_blob(decision_advantage.data(), {m}, torch::kFloat).clone();

  const torch::Tensor logits = net.forward(x, torch_graph(rollouts));
  // Softmax within each decision's candidates; each is shifted by its largest score first.
  std::vector<float> top(static_cast<std::size_t>(m), -std::numeric_limits<float>::infinity());
  {
    const torch::Tensor plain = logits.detach().contiguous();
    const float* value = plain.data_ptr<float>();
    for (std::int64_t r = 0; r < n; ++r)
      top[static_cast<std::size_t>(segment[r])] =
          std::max(top[static_cast<std::size_t>(segment[r])], value[r]);
  }
  const torch::Tensor shift = torch::from_blob(top.data(), {m}, torch::kFloat).clone();
  const torch::Tensor z = logits - shift.index_select(0, seg);
  const torch::Tensor log_sum = torch::log(torch::zeros({m}).index_add(0, seg, torch::exp(z)));
  const torch::Tensor log_p = z - log_sum.index_select(0, seg);
  const torch::Tensor chosen_log_p = log_p.index_select(0, pick);
  const torch::Tensor entropy = -torch::zeros({m}).index_add(0, seg, torch::exp(log_p) * log_p);
  return -(adv * chosen_log_p).mean() - entropy_weight * entropy.mean();
}

}  // namespace

std::vector<float> trace_scores(const PolicyNetwork& network, const DecisionTrace& trace) {
  torch::NoGradGuard no_grad;
  std::vector<Rollout> one(1);
  one.front().trace = trace;
  const auto n = static_cast<std::int64_t>(trace.rows.size() / kDecisionFeatureCount);
  std::vector<float> rows = trace.rows;
  const torch::Tensor x =
      torch::from_blob(rows.data(), {n, std::int64_t{kDecisionFeatureCount}}, torch::kFloat);
  const torch::Tensor scores = TorchNetwork(network).forward(x, torch_graph(one)).contiguous();
  return {scores.data_ptr<float>(), scores.data_ptr<float>() + n};
}

TrainingResult train_learned_policy(const TrainingOptions& options,
                                    const TrainingProgress& progress) {
  if (auto ok = check_training_options(options); !ok) throw InputError(ok.error());
  torch::set_num_threads(1);
  Rng rng(options.seed);
  Rng init_rng = rng.split();
  Rng validation_rng = rng.split();
  Rng explore_rng = rng.split();
  GraphEncoder encoder =
      GraphEncoder::initial(kNodeFeatureCount, options.embedding, options.rounds, init_rng);
  PolicyNetwork network =
      PolicyNetwork::initial(kDecisionFeatureCount, options.hidden, init_rng, std::move(encoder));
  TorchNetwork torch_net(network);
  torch::optim::Adam optimizer(torch_net.parameters(),
                               torch::optim::AdamOptions(options.learning_rate));
  const PolicyOptions policy_options{.seed = options.seed};

  // The validation set and the reference's objective on each scenario.
  std::vector<LearningScenario> validation;
  std::vector<double> validation_reference;
  for (std::size_t v = 0; v < options.validation_scenarios; ++v) {
    validation.push_back(draw_scenario(options, validation_rng));
    auto reference = make_policy(options.reference_policy, policy_options);
    validation_reference.push_back(run_scenario(validation.back(), *reference).objective_seconds);
  }
  auto validate = [&] {
    double sum = 0;
    for (std::size_t v = 0; v < validation.size(); ++v) {
      LearnedPolicy greedy(network);
      sum += run_scenario(validation[v], greedy).objective_seconds / validation_reference[v];
    }
    return sum / double(validation.size());
  };

  TrainingResult result{.network = network};
  result.initial_validation_ratio = validate();
  result.best_validation_ratio = result.initial_validation_ratio;
  std::vector<Rollout> rollouts(options.rollouts);
  std::vector<Rollout> teacher(1);
  for (std::size_t episode = 1; episode <= options.imitation_episodes; ++episode) {
    const LearningScenario scenario = draw_scenario(options, rng);
    teacher.front().trace.clear();
    LearnedPolicy policy(network);
    // The later episodes let the network act and learn the teacher's choices where its
    // own mistakes lead (DAgger).
    policy.imitate_plan(
        &teacher.front().trace,
        double(episode) > double(options.imitation_episodes) * (1 - options.network_acting_share));
    run_scenario(scenario, policy);
    optimizer.zero_grad();
    episode_loss(torch_net, teacher, {1.0}, 0).backward();
    optimizer.step();
    torch_net.copy_to(network);
  }
  if (options.imitation_episodes > 0) {
    result.imitation_validation_ratio = validate();
    if (result.imitation_validation_ratio < result.best_validation_ratio) {
      result.best_validation_ratio = result.imitation_validation_ratio;
      result.network = network;
    }
  }
  for (std::size_t episode = 1; episode <= options.episodes; ++episode) {
    const LearningScenario scenario = draw_scenario(options, rng);
    auto reference = make_policy(options.reference_policy, policy_options);
    const double reference_objective = run_scenario(scenario, *reference).objective_seconds;
    double mean = 0;
    for (Rollout& r : rollouts) {
      r.trace.clear();
      LearnedPolicy policy(network);
      policy.explore(&explore_rng, &r.trace);
      r.ratio = run_scenario(scenario, policy).objective_seconds / reference_objective;
      mean += r.ratio;
    }
    mean /= double(rollouts.size());
    double spread = 0;
    for (const Rollout& r : rollouts) spread += (r.ratio - mean) * (r.ratio - mean);
    spread = std::sqrt(spread / double(rollouts.size()));
    std::vector<double> advantage;
    for (const Rollout& r : rollouts)
      advantage.push_back((mean - r.ratio) / std::max(spread, 0.01));

    optimizer.zero_grad();
    const torch::Tensor loss = episode_loss(torch_net, rollouts, advantage, options.entropy_weight);
    loss.backward();
    torch::nn::utils::clip_grad_norm_(torch_net.parameters(), 1.0);
    optimizer.step();
    torch_net.copy_to(network);

    TrainingPoint point{.episode = episode, .sampled_ratio = mean};
    if (episode % options.validate_every == 0 || episode == options.episodes) {
      point.validation_ratio = validate();
      if (point.validation_ratio < result.best_validation_ratio) {
        result.best_validation_ratio = point.validation_ratio;
        result.best_episode = episode;
        result.network = network;
      }
    }
    result.curve.push_back(point);
    if (progress) progress(point);
  }
  return result;
}

}  // namespace hetsched
