// The stream simulator (see stream_simulator.hpp): an event queue of arrivals,
// completions and round boundaries in model time. At each event it asks the one
// job-stream core (StreamScheduler) what starts or what runs this round, carries it
// out, and records per job what it needs for the report (JCT, waits, device-seconds,
// cost, finish-time fairness, utilisation per type).
#include "hetsched/stream/stream_simulator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "hetsched/core/quantile.hpp"
#include "hetsched/sim/event_queue.hpp"

namespace hetsched {
namespace {

enum EventKind : std::uint32_t { arrival_event = 0, finish_event = 1, round_event = 2 };

class StreamRun {
 public:
  StreamRun(const StreamWorkload& workload, const StreamResources& resources, StreamPolicy& policy,
            const StreamSimOptions& options)
      : workload_(workload),
        scheduler_(resources, policy, options, workload.colocation),
        options_(options) {}

  StreamReport run(const std::string& policy_name);

 private:
  const std::vector<StreamDeviceType>& types() const { return scheduler_.resources().types; }
  void arrive(std::size_t j);
  void start(const StreamStart& start);
  void run_round();
  // Records a run of `seconds` on `type` at `device_share` of each of its devices.
  void account(std::size_t j, std::size_t type, double seconds, double device_share);
  void first_placement(std::size_t j, const StreamPlacement& placement);
  // Keeps a run for the timeline, when asked to (StreamSimOptions::record_segments).
  void record(std::size_t j, const StreamPlacement& placement, double start, double end,
              bool moved);
  void finish(std::size_t j, double time);
  // The scheduler numbers jobs in the order they arrive; the report, in workload order.
  const StreamJobStatus& status(std::size_t j) const { return scheduler_.job(slot_[j]); }
  double isolated_rate(std::size_t j, std::size_t jobs_present) const;
  bool measured(std::size_t j) const {
    return j >= options_.measure_first && j < options_.measure_last;
  }

  const StreamWorkload& workload_;
  StreamScheduler scheduler_;
  const StreamSimOptions& options_;
  std::vector<StreamJobOutcome> outcomes_;
  std::vector<std::size_t> slot_;          // workload index -> scheduler index
  std::vector<std::size_t> workload_job_;  // scheduler index -> workload index
  std::vector<double> isolated_rate_;      // steps/s on its equal share at arrival
  std::vector<double> busy_seconds_;       // device-seconds per type
  EventQueue events_;
  double now_ = 0;
  bool round_pending_ = false;
  std::size_t measured_total_ = 0, measured_done_ = 0;
  std::vector<StreamRunSegment> segments_;
};

double StreamRun::isolated_rate(std::size_t j, std::size_t jobs_present) const {
  const StreamJobStatus& job = status(j);
  double usable = 0, weighted_rate = 0, total = 0;
  for (std::size_t k = 0; k < types().size(); ++k) {
    total += types()[k].count;
    if (job.rate[k] > 0) {
      usable += types()[k].count;
      weighted_rate += types()[k].count * job.rate[k];
    }
  }
  if (usable <= 0) return 0;
  const double gang = job.job.gang_size;
  const double fraction =
      std::min(1.0, total / (static_cast<double>(std::max<std::size_t>(1, jobs_present)) * gang));
  return fraction * weighted_rate / usable;
}

void StreamRun::account(std::size_t j, std::size_t type, double seconds, double device_share) {
  const double gang = workload_.jobs[j].gang_size * device_share;
  busy_seconds_[type] += seconds * gang;
  outcomes_[j].device_seconds += seconds * gang;
  outcomes_[j].cost_usd += seconds / 3600.0 * gang * types()[type].price_per_hour;
}

void StreamRun::first_placement(std::size_t j, const StreamPlacement& placement) {
  StreamJobOutcome& outcome = outcomes_[j];
  if (outcome.first_start_seconds < 0) {
    outcome.first_start_seconds = now_;
    for (const auto& slot : placement.nodes) outcome.placement_nodes.push_back(slot.first);
    outcome.shared_device = placement.shared_device;
    outcome.cpu_core_set = placement.cores;
    outcome.device_share = status(j).share[placement.type];
  }
  outcome.spread_over_nodes = outcome.spread_over_nodes || placement.nodes.size() > 1;
}

void StreamRun::finish(std::size_t j, double time) {
  outcomes_[j].finish_seconds = time;
  const auto& deadline = workload_.jobs[j].deadline_seconds;
  outcomes_[j].slo_violated = deadline && time > *deadline + 1e-9;
  if (measured(j)) ++measured_done_;
  if (options_.progress) options_.progress(measured_done_, measured_total_);
}

void StreamRun::record(std::size_t j, const StreamPlacement& placement, double start, double end,
                       bool moved) {
  if (!options_.record_segments) return;
  for (const auto& [node, devices] : placement.nodes)
    segments_.push_back(StreamRunSegment{j, static_cast<std::size_t>(node), devices,
                                         placement.shared_device, start, end, moved});
}

void StreamRun::start(const StreamStart& start) {
  const std::size_t j = workload_job_[start.job];
  first_placement(j, start.placement);
  record(j, start.placement, now_, start.finish_seconds, false);
  events_.schedule(start.finish_seconds, finish_event, static_cast<std::uint32_t>(j));
}

void StreamRun::arrive(std::size_t j) {
  slot_[j] = scheduler_.submit(workload_.jobs[j], now_);
  workload_job_.push_back(j);
  const StreamJobStatus& job = status(j);
  if (job.state == StreamJobState::rejected) {
    outcomes_[j].rejected = true;
    outcomes_[j].rejection_reason = job.rejection_reason;
    if (measured(j)) --measured_total_;
    return;
  }
  isolated_rate_[j] = isolated_rate(j, scheduler_.jobs_present());
  if (scheduler_.mode() == StreamPolicyMode::round && !round_pending_) {
    events_.schedule(scheduler_.round_boundary_from(now_), round_event, 0);
    round_pending_ = true;
  }
}

void StreamRun::run_round() {
  for (const StreamSegment& segment : scheduler_.run_round(now_)) {
    const std::size_t j = workload_job_[segment.job];
    first_placement(j, segment.placement);
    record(j, segment.placement, segment.start_seconds, segment.end_seconds, segment.moved);
    if (segment.moved) ++outcomes_[j].migrations;
    account(j, segment.placement.type, segment.seconds, segment.device_share);
    if (segment.finishes) finish(j, segment.end_seconds);
  }
}

StreamReport StreamRun::run(const std::string& policy_name) {
  const auto wall_start = std::chrono::steady_clock::now();
  const std::size_t job_count = workload_.jobs.size();
  outcomes_.resize(job_count);
  slot_.assign(job_count, 0);
  isolated_rate_.assign(job_count, 0.0);
  busy_seconds_.assign(types().size(), 0.0);
  for (std::size_t j = 0; j < job_count; ++j) {
    outcomes_[j].name = workload_.jobs[j].name;
    outcomes_[j].arrival_seconds = workload_.jobs[j].arrival_seconds;
    events_.schedule(workload_.jobs[j].arrival_seconds, arrival_event,
                     static_cast<std::uint32_t>(j));
  }
  // Measured jobs are known only after submission; count them as they come.
  for (std::size_t j = 0; j < job_count; ++j) measured_total_ += measured(j) ? 1 : 0;
  double first_arrival = job_count ? workload_.jobs.front().arrival_seconds : 0.0;
  double end_time = first_arrival;
  while (!events_.empty()) {
    if (measured_total_ > 0 && measured_done_ == measured_total_) break;
    const Event event = events_.pop();
    now_ = event.time;
    first_arrival = std::min(first_arrival, now_);
    end_time = std::max(end_time, now_);
    const std::size_t j = event.subject;
    if (event.kind == arrival_event || event.kind == finish_event) {
      if (event.kind == arrival_event) {
        arrive(j);
      } else {
        const StreamJobStatus& job = status(j);
        const auto type = static_cast<std::size_t>(job.type);
        account(j, type, now_ - job.run_start, job.share[type]);
        scheduler_.finish(slot_[j], now_);
        finish(j, now_);
      }
      // Queue mode decides once an instant's arrivals and completions are all in, as
      // the service does on the twin.
      const bool instant_done =
          events_.empty() || events_.top().time != now_ || events_.top().kind == round_event;
      if (scheduler_.mode() == StreamPolicyMode::queue && instant_done)
        for (const StreamStart& started : scheduler_.schedule(now_)) start(started);
    } else {
      round_pending_ = false;
      run_round();
      end_time = std::max(end_time, now_ + options_.round_seconds);
      if (scheduler_.round_pending()) {
        events_.schedule(now_ + options_.round_seconds, round_event, 0);
        round_pending_ = true;
      }
    }
  }
  for (const auto& outcome : outcomes_) end_time = std::max(end_time, outcome.finish_seconds);
  for (std::size_t slot = 0; slot < workload_job_.size(); ++slot)
    outcomes_[workload_job_[slot]].reserved_start_seconds =
        scheduler_.job(slot).reserved_start_seconds;

  StreamReport report;
  report.policy = policy_name;
  report.segments = std::move(segments_);
  for (const auto& type : types()) report.type_names.push_back(type.model);
  std::vector<double> jct, inverse_slowdown, rho;
  double wait_sum = 0, last_finish = 0, first_measured_arrival = 1e300;
  for (std::size_t j = 0; j < job_count; ++j) {
    const StreamJobOutcome& outcome = outcomes_[j];
    report.cost_usd += outcome.cost_usd;
    if (outcome.rejected) {
      ++report.rejected;
      continue;
    }
    if (!measured(j)) continue;
    ++report.measured_jobs;
    first_measured_arrival = std::min(first_measured_arrival, outcome.arrival_seconds);
    if (workload_.jobs[j].deadline_seconds && (outcome.finish_seconds < 0 || outcome.slo_violated))
      ++report.slo_violations;
    if (outcome.finish_seconds < 0) continue;
    ++report.finished_measured;
    const double completion = outcome.finish_seconds - outcome.arrival_seconds;
    jct.push_back(completion);
    wait_sum += outcome.first_start_seconds - outcome.arrival_seconds;
    last_finish = std::max(last_finish, outcome.finish_seconds);
    const double alone = workload_.jobs[j].total_steps / status(j).best_rate;
    inverse_slowdown.push_back(alone / std::max(completion, 1e-12));
    if (isolated_rate_[j] > 0)
      rho.push_back(completion / (workload_.jobs[j].total_steps / isolated_rate_[j]));
  }
  auto jain = [](const std::vector<double>& values) {
    double sum = 0, sum_squares = 0;
    for (double x : values) {
      sum += x;
      sum_squares += x * x;
    }
    return sum_squares > 0 ? sum * sum / (values.size() * sum_squares) : 0.0;
  };
  if (!rho.empty()) {
    std::vector<double> inverse_rho;
    for (double r : rho) {
      report.ftf_rho_average += r / rho.size();
      report.ftf_rho_max = std::max(report.ftf_rho_max, r);
      report.ftf_unfair_fraction += r > 1.0 ? 1.0 / rho.size() : 0.0;
      inverse_rho.push_back(1.0 / std::max(r, 1e-12));
    }
    report.jain_fairness_ftf = jain(inverse_rho);
  }
  if (!jct.empty()) {
    report.average_jct_seconds = std::accumulate(jct.begin(), jct.end(), 0.0) / jct.size();
    report.average_wait_seconds = wait_sum / jct.size();
    report.p50_jct_seconds = nearest_rank_quantile(jct, 0.50);
    report.p95_jct_seconds = nearest_rank_quantile(jct, 0.95);
    report.p99_jct_seconds = nearest_rank_quantile(jct, 0.99);
    report.makespan_seconds = last_finish - first_measured_arrival;
    report.jain_fairness = jain(inverse_slowdown);
  }
  const double span = std::max(end_time - first_arrival, 1e-12);
  for (std::size_t k = 0; k < types().size(); ++k)
    report.utilisation.push_back(types()[k].count > 0 ? busy_seconds_[k] / (types()[k].count * span)
                                                      : 0.0);
  report.rounds = scheduler_.rounds();
  report.colocated_rounds = scheduler_.colocated_rounds();
  report.allocations = scheduler_.allocations();
  report.fallbacks = scheduler_.fallbacks();
  report.first_fallback_note = scheduler_.first_fallback_note();
  report.jobs = std::move(outcomes_);
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return report;
}

}  // namespace

StreamReport simulate_stream(const StreamWorkload& workload, const StreamResources& resources,
                             StreamPolicy& policy, const StreamSimOptions& options,
                             std::string policy_name) {
  StreamRun run(workload, resources, policy, options);
  return run.run(policy_name);
}

StreamReport simulate_stream(const StreamWorkload& workload, StreamPolicy& policy,
                             const StreamSimOptions& options, std::string policy_name) {
  return simulate_stream(workload, stream_resources(workload.cluster), policy, options,
                         std::move(policy_name));
}

StreamReport simulate_stream(const StreamWorkload& workload, const std::string& policy_name,
                             const StreamSimOptions& options) {
  const std::unique_ptr<StreamPolicy> policy = make_stream_policy(policy_name);
  return simulate_stream(workload, *policy, options, policy_name);
}

}  // namespace hetsched
