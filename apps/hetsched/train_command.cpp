#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/report_writer.hpp"
#include "hetsched/learn/learned_policy.hpp"
#include "hetsched/trainer/policy_trainer.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {
namespace {

struct TrainCliOptions {
  TrainingOptions training;
  std::string space = "tiled";
  std::string out;
  std::string curve;
  bool quiet = false;
};

// Everything that fixes the weights, so that the model file says how to make it again.
nlohmann::ordered_json provenance(const TrainCliOptions& cli, const TrainingResult& result) {
  const TrainingOptions& o = cli.training;
  nlohmann::ordered_json space{{"kind", cli.space}};
  if (o.space != ScenarioSpaceKind::dag_stream) {
    space["tiles"] = {o.tiled.min_tiles, o.tiled.max_tiles};
    space["tile_size"] = o.tiled.tile_size;
    space["cpu_workers"] = o.tiled.cpu_workers;
    space["accelerators"] = o.tiled.accelerator_models;
    space["accelerator_count"] = {o.tiled.min_accelerators, o.tiled.max_accelerators};
    space["noise_sigma"] = o.tiled.noise.sigma;
  }
  if (o.space != ScenarioSpaceKind::tiled) {
    space["jobs"] = o.dag_stream.jobs;
    space["tasks"] = {o.dag_stream.min_tasks, o.dag_stream.max_tasks};
    space["noise_sigma"] = o.dag_stream.noise.sigma;
  }
  return {
      {"command",
       fmt::format(
           "hetsched train --space {} --imitation-episodes {} --episodes {} "
           "--network-acting-share {} --rollouts {} --validate-every {} --validation {} --seed {} "
           "--learning-rate {} --entropy-weight {} --reference {} --min-tiles {} "
           "--max-tiles {} --noise-sigma {} --hidden {} --embedding {} --rounds {} --out <file>",
           cli.space, o.imitation_episodes, o.episodes, o.network_acting_share, o.rollouts,
           o.validate_every, o.validation_scenarios, o.seed, o.learning_rate, o.entropy_weight,
           o.reference_policy, o.tiled.min_tiles, o.tiled.max_tiles, o.tiled.noise.sigma,
           fmt::join(o.hidden, " --hidden "), o.embedding, o.rounds)},
      {"space", space},
      {"imitation_episodes", o.imitation_episodes},
      {"network_acting_share", o.network_acting_share},
      {"episodes", o.episodes},
      {"rollouts", o.rollouts},
      {"seed", o.seed},
      {"learning_rate", o.learning_rate},
      {"entropy_weight", o.entropy_weight},
      {"reference_policy", o.reference_policy},
      {"embedding", o.embedding},
      {"rounds", o.rounds},
      {"initial_validation_ratio", result.initial_validation_ratio},
      {"imitation_validation_ratio", result.imitation_validation_ratio},
      {"best_validation_ratio", result.best_validation_ratio},
      {"best_episode", result.best_episode}};
}

void run_train(TrainCliOptions& cli) {
  cli.training.space = cli.space == "tiled"        ? ScenarioSpaceKind::tiled
                       : cli.space == "dag-stream" ? ScenarioSpaceKind::dag_stream
                                                   : ScenarioSpaceKind::mixed;
  if (auto ok = check_training_options(cli.training); !ok)
    throw InputError(fmt::format("hetsched train: {}", ok.error()));
  std::string curve = "episode,sampled_ratio,validation_ratio\n";
  const TrainingResult result = train_learned_policy(cli.training, [&](const TrainingPoint& p) {
    curve += p.validation_ratio >= 0
                 ? fmt::format("{},{:.6f},{:.6f}\n", p.episode, p.sampled_ratio, p.validation_ratio)
                 : fmt::format("{},{:.6f},\n", p.episode, p.sampled_ratio);
    if (!cli.quiet && p.validation_ratio >= 0)
      std::cerr << fmt::format("episode {:>5}: rollouts {:.3f}, validation {:.3f} × {}\n",
                               p.episode, p.sampled_ratio, p.validation_ratio,
                               cli.training.reference_policy);
  });
  write_text_file(cli.out, policy_network_to_json(result.network, learned_model_inputs(),
                                                  provenance(cli, result).dump()));
  if (!cli.curve.empty()) write_text_file(cli.curve, curve);
  std::cout << fmt::format(
      "trained: validation objective {:.3f} × {} untrained, {:.3f} after {} imitation "
      "episodes, {:.3f} at policy-gradient episode {} of {} (the model kept); written to {}\n",
      result.initial_validation_ratio, cli.training.reference_policy,
      result.imitation_validation_ratio, cli.training.imitation_episodes,
      result.best_validation_ratio, result.best_episode, cli.training.episodes, cli.out);
}

}  // namespace

void add_train_command(CLI::App& app) {
  auto cli = std::make_shared<TrainCliOptions>();
  TrainingOptions& o = cli->training;
  CLI::App* command = app.add_subcommand(
      "train", "train the learned policy in the simulator (policy gradient) and write its model");
  command->add_option("--out", cli->out, "model file to write (JSON)")->required();
  command->add_option("--curve", cli->curve, "training curve to write (CSV)");
  command->add_option("--space", cli->space, "scenarios trained on")
      ->check(CLI::IsMember({"tiled", "dag-stream", "mixed"}))
      ->capture_default_str();
  command->add_option("--episodes", o.episodes, "episodes (one scenario each)")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000000));
  command
      ->add_option("--imitation-episodes", o.imitation_episodes,
                   "episodes of imitating the jobs' plans first")
      ->capture_default_str()
      ->check(CLI::Range(0, 10000000));
  command->add_option("--rollouts", o.rollouts, "runs per episode (their mean is the baseline)")
      ->capture_default_str()
      ->check(CLI::Range(2, 64));
  command->add_option("--seed", o.seed, "seed of scenarios, weights and exploration")
      ->capture_default_str();
  command->add_option("--learning-rate", o.learning_rate, "Adam's step size")
      ->capture_default_str()
      ->check(finite_range(1e-6, 0.5));
  command->add_option("--entropy-weight", o.entropy_weight, "exploration bonus")
      ->capture_default_str()
      ->check(finite_range(0, 1));
  command->add_option("--hidden", o.hidden, "units of each hidden layer (repeatable)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  command
      ->add_option("--network-acting-share", o.network_acting_share,
                   "share of the imitation episodes (the last) in which the network acts (DAgger)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  command->add_option("--embedding", o.embedding, "units of each task's graph embedding (0: none)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  command->add_option("--rounds", o.rounds, "rounds of message passing over each job's DAG")
      ->capture_default_str()
      ->check(CLI::Range(0, 8));
  command
      ->add_option("--reference", o.reference_policy,
                   "rollouts are scored over this policy's objective")
      ->capture_default_str();
  command->add_option("--min-tiles", o.tiled.min_tiles, "tiled: fewest tiles per side")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command->add_option("--max-tiles", o.tiled.max_tiles, "tiled: most tiles per side")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  command
      ->add_option("--noise-sigma", o.tiled.noise.sigma,
                   "log-normal sigma of actual run times around the predictions")
      ->capture_default_str()
      ->check(finite_range(0, 10));
  command->add_option("--validation", o.validation_scenarios, "scenarios of the validation set")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command->add_option("--validate-every", o.validate_every, "episodes between validations")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  command->add_flag("--quiet", cli->quiet, "no progress on stderr");
  command->callback([cli] {
    cli->training.dag_stream.noise.sigma = cli->training.tiled.noise.sigma;
    run_train(*cli);
  });
}

}  // namespace hetsched::cli
