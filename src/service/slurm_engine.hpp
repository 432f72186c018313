// SlurmEngine: a real Slurm cluster carries out the brain's placements. It drives
// Slurm's own command-line tools with JSON output, each run as an argument vector
// (no shell) with a deadline: `sinfo --json` for the inventory (nodes, their state,
// GRES → devices), `sbatch --parsable --nodelist=<node> --gres=gpu:<type>:<n>` to
// launch a task where the policy put it, `squeue --json` (every job, ended ones
// included while MinJobAge keeps them) to follow it, `scancel` to cancel, and
// `scontrol update` to drain, down or resume a node.
//
// A node's CPUs (sinfo's `cpus`, slurm.conf's CPUs=/CPUTot) are CPU devices too: one
// device per CPU, of the model "<cpu_model> core" whose datasheet is the catalog
// CPU's figures divided by its cores. A task placed on one is submitted with
// `--cpus-per-task=<n>` and no GRES.
//
// A task runs its command (EngineLaunch::command) under /bin/sh, or, when it has
// none, a stand-in `sleep` of the perf model's predicted seconds times
// sleep_seconds_per_predicted_second — the placement and the timeline are Slurm's,
// the work is simulated. Jobs carry the engine's tag as their Slurm comment, and a
// new engine adopts the tagged jobs already in Slurm (a restarted service finds what
// its predecessor launched).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/service/cluster_engine.hpp"

namespace hetsched {

struct SlurmEngineOptions {
  // slurm.conf for the tools (exported as SLURM_CONF); empty: Slurm's default.
  std::string slurm_conf;
  std::string partition;             // empty: the default partition
  std::string job_tag = "hetsched";  // the Slurm comment that marks this service's jobs
  std::string output_directory;      // job stdout/stderr go to <dir>/<jobid>.out; empty: /dev/null
  double sleep_seconds_per_predicted_second = 1.0;
  double minimum_sleep_seconds = 0.0;
  std::chrono::milliseconds command_timeout{15000};
  // squeue runs at most this often; a poll() in between reports nothing new. The
  // first poll() always asks Slurm (a restarted service reconciles on it).
  std::chrono::milliseconds poll_interval{250};
  // The catalog CPU whose per-core figures stand for one Slurm CPU (Slurm does not
  // report the processor model); empty: the nodes' CPUs are left out of the inventory.
  std::string cpu_model = "Xeon-8480+";
};

// One core of a catalog CPU as a device: rates, memory, bandwidth, power and price
// divided by its cores; nullopt when the name is not a catalog CPU.
std::optional<DeviceSpec> cpu_core_spec(std::string_view catalog_cpu);
// "Xeon-8480+ core": the model name the Slurm inventory gives such a core.
std::string cpu_core_model_name(std::string_view catalog_cpu);

// A Slurm GRES type word ("h100", "a100", "v4") as a catalog model name when one
// matches ("H100-SXM", "A100-80GB", "TPU-v4"); otherwise the word itself.
std::string catalog_model_for_gres(DeviceKind kind, std::string_view gres_type);

// Parses one GRES string of sinfo ("gpu:h100:4,tpu:v4:4(S:0)") into device groups.
std::vector<EngineDeviceGroup> parse_slurm_gres(std::string_view gres);

class SlurmEngine final : public ClusterEngine {
 public:
  explicit SlurmEngine(SlurmEngineOptions options);

  std::string_view name() const override { return "slurm"; }
  std::vector<EngineNode> nodes() override;
  std::string launch(const EngineLaunch& launch) override;
  void cancel(std::string_view task_key) override;
  std::vector<EngineTaskStatus> poll() override;
  std::optional<DeviceSpec> device_spec(DeviceKind kind, std::string_view model) const override;

  // Operator actions (and tests): scontrol update NodeName=<node> State=...
  void drain_node(std::string_view node, std::string_view reason);
  void down_node(std::string_view node, std::string_view reason);
  void resume_node(std::string_view node);

  // The sbatch argument vector launch() runs (for documentation and tests).
  std::vector<std::string> sbatch_arguments(const EngineLaunch& launch) const;
  const SlurmEngineOptions& options() const { return options_; }

 private:
  struct TrackedJob {
    std::string task_key;
    std::string job_id;
  };
  std::string run_tool(std::vector<std::string> argv);
  void adopt_existing_jobs();
  std::optional<std::string> gres_word_for(const EngineLaunch& launch) const;

  SlurmEngineOptions options_;
  bool adopted_ = false;
  bool polled_ = false;
  std::chrono::steady_clock::time_point last_poll_{};
  // Launched (or adopted) and not yet reported as ended.
  std::map<std::string, TrackedJob, std::less<>> jobs_by_key_;
  // node → (catalog model → Slurm GRES type word), learnt from the inventory
  std::map<std::string, std::map<std::string, std::string>, std::less<>> gres_words_;
};

}  // namespace hetsched
