#include "fault_cli_options.hpp"

#include <fmt/format.h>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/fault_file.hpp"

namespace hetsched::cli {

void FaultCliOptions::add_to(CLI::App& command) {
  command.add_option("--failures", failures_file,
                     "YAML fault file: failure model, explicit failures, retry and checkpoint "
                     "rules (docs/fault-tolerance-and-scaling.md)");
  command.add_option("--mtbf-scale", mtbf_scale,
                     "simulate seeded device failures, with the catalog MTBFs times this");
  command.add_option("--mtbf-hours", mtbf_hours,
                     "simulate seeded device failures with this MTBF for every device");
  command.add_option("--checkpoint", checkpoint, "checkpointing of long tasks: none, daly, fixed")
      ->check(CLI::IsMember({"none", "daly", "fixed"}));
  command.add_option("--checkpoint-interval", checkpoint_interval_seconds,
                     "seconds of work between checkpoints (implies --checkpoint fixed)");
  command.add_option("--clone-threshold", clone_threshold,
                     "clone a task still running after this many times its predicted time "
                     "(straggler mitigation; needs failures, e.g. stragglers in --failures)");
}

FaultOptions FaultCliOptions::build(const Cluster& cluster) const {
  FaultOptions o;
  if (!failures_file.empty()) o = load_fault_file(failures_file, cluster);
  if (mtbf_scale) {
    if (!(*mtbf_scale > 0))
      throw InputError(
          fmt::format("--mtbf-scale: MTBF scale must be more than 0, got {}", *mtbf_scale));
    o.enabled = o.use_model = true;
    o.model.mtbf_scale = *mtbf_scale;
  }
  if (mtbf_hours) {
    if (!(*mtbf_hours > 0))
      throw InputError(
          fmt::format("--mtbf-hours: MTBF must be more than 0 hours, got {}", *mtbf_hours));
    o.enabled = o.use_model = true;
    o.model.mtbf_hours_override = *mtbf_hours;
  }
  if (checkpoint_interval_seconds) {
    if (!(*checkpoint_interval_seconds > 0))
      throw InputError(fmt::format("--checkpoint-interval: must be more than 0 seconds, got {}",
                                   *checkpoint_interval_seconds));
    o.checkpoint.mode = CheckpointMode::fixed;
    o.checkpoint.fixed_interval_seconds = *checkpoint_interval_seconds;
  }
  if (checkpoint == "none") o.checkpoint.mode = CheckpointMode::none;
  if (checkpoint == "daly") o.checkpoint.mode = CheckpointMode::daly;
  if (checkpoint == "fixed") {
    if (!checkpoint_interval_seconds && failures_file.empty())
      throw InputError("--checkpoint fixed needs --checkpoint-interval SECONDS");
    o.checkpoint.mode = CheckpointMode::fixed;
  }
  if (clone_threshold) {
    if (!o.enabled)
      throw InputError(
          "--clone-threshold needs the fault model (stragglers come from it): add --failures "
          "FILE, --mtbf-scale or --mtbf-hours");
    o.clone.enabled = true;
    o.clone.threshold = *clone_threshold;
  }
  if (o.enabled) o.validate(cluster);
  return o;
}

std::string fault_summary(const RunReport& r) {
  if (!r.faults) return "";
  const FaultReport& f = *r.faults;
  std::string out = fmt::format(
      "{}: {} failures ({} crashes, {} transients, {} stragglers, {} partitions), {} retries, "
      "goodput {:.4f}, {} jobs ended without completing, {} tasks lost\n",
      r.policy, f.failures_injected, f.crashes, f.transients, f.stragglers, f.partitions, f.retries,
      f.goodput(), f.jobs_failed, f.lost_tasks);
  if (f.cloning)
    out += fmt::format(
        "  clones: {} started, {} won; losing copies cost {:.1f} device-s and {:.0f} J\n",
        f.clones_started, f.clones_won, f.replica_device_seconds, f.replica_joules);
  if (f.alarms > 0 || f.crashes > 0)
    out += fmt::format(
        "  predictor: {} alarms ({} true), precision {:.3f}, recall {:.3f}, mean lead {:.0f} s, "
        "in-flight work saved {:.0f} s\n",
        f.alarms, f.true_alarms, f.precision(), f.recall(), f.mean_lead_seconds(),
        f.work_saved_seconds);
  // Every job: what failures cost it (the report's invariant: nothing is lost silently).
  out += fmt::format("  {:<28} {:>8} {:>8} {:>11} {:>10} {:>12}  {}\n", "job", "attempts",
                     "failures", "checkpoints", "migrations", "recovery (s)", "outcome");
  for (std::size_t j = 0; j < f.jobs.size() && j < r.jobs.size(); ++j) {
    const FaultJobRecord& job = f.jobs[j];
    out += fmt::format("  {:<28} {:>8} {:>8} {:>11} {:>10} {:>12.1f}  {}\n", r.jobs[j].name,
                       job.attempts, job.failures, job.checkpoints, job.migrations,
                       job.recovery_seconds,
                       job.failure_reason.empty() ? "completed" : job.failure_reason);
  }
  return out;
}

}  // namespace hetsched::cli
