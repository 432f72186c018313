// The learned-policy benchmark (`hetsched bench learned`): the learned policy against the
// registry's best heuristics on the same scenarios and the same actual durations (the
// twin's duration noise), per setting:
//  1. tiled Cholesky, LU and QR of 8 to 32 tiles per side on a node of CPU workers and 2
//     or 4 GPUs, run times with σ = 0.2 noise (the local runtime's and READYS' setting);
//  2. an online stream of DAG jobs arriving on a node (Decima's setting; objective: mean
//     job completion time);
//  3. held out: larger graphs on a cluster unlike the one trained on;
//  4. held out: setting 2's streams, longer and denser, on the default cluster.
// On a cluster of several nodes each static planner among the heuristics runs twice: planning
// transfers contention-free and on shared NICs ("heft (shared NICs)").
// For each it prints the learned policy's mean objective over the best heuristic's (below
// 1 is better), which heuristic that is, and how often the learned policy does worse than
// it on the same run; and the learned policy's decision rate (tasks placed per second of
// its own time).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hetsched {

struct LearnedBenchmarkParams {
  bool quick = false;  // a small subset that runs in under two minutes
  std::uint64_t seed = 1;
  std::string model;        // the learned policy's model file; empty: the shipped one
  std::size_t draws = 3;    // duration draws per scenario
  std::size_t streams = 0;  // stream scenarios of setting 2 (0: 4, and 2 when quick)
  std::vector<std::string> heuristics{"heft", "heft-ils", "greedy-eft", "work-stealing"};
  std::uint64_t ils_iterations = 100;
  std::function<void(std::size_t, std::size_t)> progress;  // (runs done, runs in all)
};

struct LearnedSettingResult {
  std::string name;
  std::size_t runs = 0;
  double learned_mean_seconds = 0;
  // The mean of each run's lower bound on its objective (per job: the critical path with
  // external inputs crossing the network alone and the work spread over every device, actual
  // durations, transfers between tasks free), what no policy can beat.
  double lower_bound_mean_seconds = 0;
  std::string best_heuristic;
  double best_heuristic_mean_seconds = 0;
  double learned_vs_best_heuristic = 0;  // ratio of means
  double worse_fraction = 0;             // runs where learned > the best heuristic
  std::vector<std::pair<std::string, double>> heuristic_means;
};

struct LearnedBenchmarkResult {
  std::vector<LearnedSettingResult> settings;
  double decisions_per_second = 0;
};

LearnedBenchmarkResult run_learned_benchmark(const LearnedBenchmarkParams& params);

struct LearningScenario;
// A lower bound on each job's completion time after its arrival, under the scenario's actual
// durations (its duration noise, known in hindsight), in job order: the longer of the job's
// critical path — each task finishing no earlier than on the device where it would finish
// first if its external input crossed the network alone and its predecessors' outputs moved
// for free — and the least makespan of its work spread fractionally over the devices. Other
// jobs, transfers between tasks and contention only delay a job.
std::vector<double> completion_lower_bounds(const LearningScenario& scenario);

}  // namespace hetsched
