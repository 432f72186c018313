// The options of a run-time predictor's fit, shared by `fit-predictor` and `bench predictor`.
#pragma once

#include <CLI/CLI.hpp>

#include "hetsched/perf/runtime_predictor.hpp"
#include "option_checks.hpp"

namespace hetsched::cli {

inline void add_predictor_fit_options(CLI::App* command, RuntimePredictorOptions& fit) {
  command->add_option("--seed", fit.seed, "seed of the folds and the trees")->capture_default_str();
  command->add_option("--rounds", fit.mean.rounds, "boosting rounds (trees)")
      ->capture_default_str()
      ->check(finite_range(1, 5000));
  command->add_option("--depth", fit.mean.max_depth, "depth of each tree")
      ->capture_default_str()
      ->check(finite_range(1, 12));
  command
      ->add_option("--min-child-weight", fit.mean.min_child_weight, "fewest measurements per leaf")
      ->capture_default_str()
      ->check(finite_range(0, 1000));
}

}  // namespace hetsched::cli
