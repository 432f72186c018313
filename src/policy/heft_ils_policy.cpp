// heft-ils: list scheduling followed by an iterated local search, our stronger
// static planner. In the spirit of the local-search refinements of list schedules
// (e.g. Wu, Shu, Gu 2001; the ILS framework of Lourenço, Martin, Stützle 2003):
//
// 1. Start: HEFT, PEFT and lookahead HEFT each plan the DAG; the shortest schedule
//    is the incumbent (so the result is never longer than HEFT's).
// 2. A solution is a device per task plus a task order; its schedule comes from
//    re-timing: tasks in that order, each at its earliest start on its device with
//    idle-slot insertion. Re-timing a schedule in its own start order never makes a
//    task later, so the incumbent's schedule is reproduced or improved.
// 3. Moves aim at the critical path of the current schedule (the chain of tasks,
//    each waiting on the previous one's data or device, that ends at the makespan):
//    move a critical task to the device where it would best serve its successors
//    (estimated against the current schedule), to the device of the predecessor it
//    waits for (to save the transfer) or to a random device, or swap its device
//    with a random task on another device. A move is kept when the makespan does
//    not grow (sideways moves cross plateaus); the task order then becomes the new
//    schedule's start order.
// 4. After a run of evaluations without a new best, perturb: restart from the best
//    solution with a few random tasks moved to random devices.
// The search stops after options.iteration_budget schedule evaluations or
// options.time_budget_seconds of wall time, whichever comes first, and returns the
// best schedule seen. Each evaluation costs O(e + v·log v).
#include <algorithm>
#include <chrono>

#include "hetsched/core/rng.hpp"
#include "hetsched/policy/dag_planners.hpp"
#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {
namespace {

constexpr std::uint64_t kStallLimit = 60;

// The chain of tasks, from the last to finish backwards, each of which waited for
// the next one in the chain (its data or its device). waited_for[t]: the device of
// the predecessor whose data t waited for, or kNoDevice.
std::vector<std::uint32_t> critical_path(const DagInstance& instance,
                                         const StaticSchedule& schedule,
                                         std::vector<DeviceId>& waited_for) {
  const std::size_t n = instance.task_count();
  std::vector<std::uint32_t> by_device(n);
  for (std::uint32_t t = 0; t < n; ++t) by_device[t] = t;
  std::sort(by_device.begin(), by_device.end(), [&](std::uint32_t a, std::uint32_t b) {
    const PlannedTask &pa = schedule.tasks[a], &pb = schedule.tasks[b];
    return pa.device != pb.device ? pa.device < pb.device : pa.start_seconds < pb.start_seconds;
  });
  std::vector<std::uint32_t> before_on_device(n, static_cast<std::uint32_t>(n));
  for (std::size_t i = 1; i < n; ++i)
    if (schedule.tasks[by_device[i]].device == schedule.tasks[by_device[i - 1]].device)
      before_on_device[by_device[i]] = by_device[i - 1];

  std::uint32_t t = 0;
  for (std::uint32_t u = 1; u < n; ++u)
    if (schedule.tasks[u].finish_seconds > schedule.tasks[t].finish_seconds) t = u;
  std::vector<std::uint32_t> path;
  waited_for.assign(n, kNoDevice);
  while (true) {
    path.push_back(t);
    const PlannedTask& p = schedule.tasks[t];
    const double slack = 1e-9 * std::max(1.0, p.start_seconds);
    std::uint32_t next = static_cast<std::uint32_t>(n);
    double latest = -1;
    for (const DagNeighbor& q : instance.predecessors(t)) {
      const PlannedTask& producer = schedule.tasks[q.task];
      const double arrival =
          producer.finish_seconds + instance.comm_seconds(q.edge, producer.device, p.device);
      if (arrival > latest) latest = arrival, next = q.task;
    }
    if (next < n && latest + slack >= p.start_seconds) {
      waited_for[t] = schedule.tasks[next].device;
    } else {
      next = before_on_device[t];
      if (next >= n || schedule.tasks[next].finish_seconds + slack < p.start_seconds) break;
    }
    t = next;
  }
  return path;
}

class LocalSearch {
 public:
  LocalSearch(const DagInstance& instance, const ScheduleLimits& limits,
              const PolicyOptions& options)
      : instance_(instance),
        limits_(limits),
        rng_(options.seed),
        iteration_budget_(options.iteration_budget ? options.iteration_budget
                                                   : kDefaultLocalSearchIterations),
        time_budget_(options.time_budget_seconds),
        started_(std::chrono::steady_clock::now()) {}

  StaticSchedule run(StaticSchedule initial) {
    best_ = std::move(initial);
    if (instance_.task_count() < 2 || instance_.device_count() < 2) return std::move(best_);
    best_devices_ = devices_of(best_);
    adopt(best_devices_, best_);
    std::uint64_t since_best = 0;
    while (evaluations_ < iteration_budget_ && !out_of_time()) {
      std::vector<DeviceId> candidate = devices_;
      if (!propose(candidate)) {
        ++since_best;
      } else {
        StaticSchedule schedule = evaluate(candidate);
        if (schedule.makespan_seconds <= current_makespan_) adopt(candidate, schedule);
        if (schedule.makespan_seconds < best_.makespan_seconds) {
          best_ = std::move(schedule);
          best_devices_ = candidate;
          since_best = 0;
        } else {
          ++since_best;
        }
      }
      if (since_best >= kStallLimit) {
        perturb();
        since_best = 0;
      }
    }
    return std::move(best_);
  }

 private:
  static std::vector<DeviceId> devices_of(const StaticSchedule& schedule) {
    std::vector<DeviceId> devices(schedule.tasks.size());
    for (std::size_t t = 0; t < devices.size(); ++t) devices[t] = schedule.tasks[t].device;
    return devices;
  }

  bool out_of_time() const {
    if (time_budget_ <= 0) return false;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() >
           time_budget_;
  }

  StaticSchedule evaluate(const std::vector<DeviceId>& devices) {
    ++evaluations_;
    return schedule_in_order(instance_, order_, devices, limits_);
  }

  void adopt(const std::vector<DeviceId>& devices, const StaticSchedule& schedule) {
    devices_ = devices;
    current_ = schedule;
    timeline_ = DeviceTimeline(instance_.device_count(), limits_.device_free_seconds);
    for (const PlannedTask& p : schedule.tasks)
      timeline_.insert(p.device, p.start_seconds, p.finish_seconds);
    current_makespan_ = schedule.makespan_seconds;
    order_ = start_order(instance_, schedule);
    critical_ = critical_path(instance_, schedule, waited_for_);
  }

  bool can_run(std::uint32_t t, DeviceId d) const {
    return instance_.compute_seconds(t, d) != kCannotRun;
  }

  DeviceId random_device_for(std::uint32_t t, DeviceId other_than) {
    for (int attempt = 0; attempt < 8; ++attempt) {
      const auto d = static_cast<DeviceId>(rng_.below(instance_.device_count()));
      if (d != other_than && can_run(t, d)) return d;
    }
    return kNoDevice;
  }

  // The device where t, alone moved, would best serve its successors: its earliest
  // finish there with insertion among the other tasks as they are, plus the
  // transfer to each successor where it now runs (the latest arrival counts).
  DeviceId best_device_for(std::uint32_t t, const std::vector<DeviceId>& devices) {
    DeviceId best = kNoDevice;
    double best_arrival = kCannotRun;
    for (DeviceId d = 0; d < instance_.device_count(); ++d) {
      if (d == devices[t] || !can_run(t, d)) continue;
      double ready = 0;
      for (const DagNeighbor& q : instance_.predecessors(t)) {
        const PlannedTask& producer = current_.tasks[q.task];
        ready = std::max(
            ready, producer.finish_seconds + instance_.comm_seconds(q.edge, producer.device, d));
      }
      const double run = instance_.compute_seconds(t, d);
      const double finish = timeline_.earliest_start(d, ready, run) + run;
      double arrival = finish;
      for (const DagNeighbor& s : instance_.successors(t))
        arrival = std::max(
            arrival, finish + instance_.comm_seconds(s.edge, d, current_.tasks[s.task].device));
      if (arrival < best_arrival) best_arrival = arrival, best = d;
    }
    return best;
  }

  // Changes `devices` by one move on the critical path; false when none was found.
  bool propose(std::vector<DeviceId>& devices) {
    const std::uint32_t t = critical_[rng_.below(critical_.size())];
    const double kind = rng_.uniform();
    if (kind < 0.3) {
      const DeviceId d = best_device_for(t, devices);
      if (d == kNoDevice) return false;
      devices[t] = d;
      return true;
    }
    if (kind < 0.55 && waited_for_[t] != kNoDevice && waited_for_[t] != devices[t] &&
        can_run(t, waited_for_[t])) {
      devices[t] = waited_for_[t];
      return true;
    }
    if (kind < 0.8) {
      const DeviceId d = random_device_for(t, devices[t]);
      if (d == kNoDevice) return false;
      devices[t] = d;
      return true;
    }
    const auto u = static_cast<std::uint32_t>(rng_.below(instance_.task_count()));
    if (devices[u] == devices[t] || !can_run(t, devices[u]) || !can_run(u, devices[t]))
      return false;
    std::swap(devices[t], devices[u]);
    return true;
  }

  void perturb() {
    std::vector<DeviceId> devices = best_devices_;
    const std::uint64_t moves = 1 + rng_.below(3);
    for (std::uint64_t i = 0; i < moves; ++i) {
      const auto t = static_cast<std::uint32_t>(rng_.below(instance_.task_count()));
      const DeviceId d = random_device_for(t, devices[t]);
      if (d != kNoDevice) devices[t] = d;
    }
    order_ = start_order(instance_, best_);
    const StaticSchedule schedule = evaluate(devices);
    adopt(devices, schedule);
    if (schedule.makespan_seconds < best_.makespan_seconds) {
      best_ = schedule;
      best_devices_ = devices;
    }
  }

  const DagInstance& instance_;
  ScheduleLimits limits_;
  Rng rng_;
  std::uint64_t iteration_budget_;
  double time_budget_;
  std::chrono::steady_clock::time_point started_;
  std::uint64_t evaluations_ = 0;

  StaticSchedule best_;
  std::vector<DeviceId> best_devices_;
  std::vector<DeviceId> devices_;
  StaticSchedule current_;
  DeviceTimeline timeline_{0};  // the current schedule's, for move estimates
  double current_makespan_ = 0;
  std::vector<std::uint32_t> order_;
  std::vector<std::uint32_t> critical_;
  std::vector<DeviceId> waited_for_;
};

bool fully_placed(const StaticSchedule& schedule) {
  return std::none_of(schedule.tasks.begin(), schedule.tasks.end(),
                      [](const PlannedTask& p) { return p.device == kNoDevice; });
}

}  // namespace

StaticSchedule heft_ils_plan(const DagInstance& instance, const ScheduleLimits& limits,
                             const PolicyOptions& options) {
  StaticSchedule best = heft_plan(instance, limits);
  if (!fully_placed(best)) return best;  // some task can run nowhere: nothing to improve
  for (auto* planner : {peft_plan, lookahead_heft_plan}) {
    StaticSchedule other = planner(instance, limits);
    if (other.makespan_seconds < best.makespan_seconds) best = std::move(other);
  }
  return LocalSearch(instance, limits, options).run(std::move(best));
}

std::unique_ptr<SchedulingPolicy> make_heft_ils_policy(const PolicyOptions& options) {
  return make_static_planner_policy(
      "heft-ils",
      [options](const DagInstance& instance, const ScheduleLimits& limits) {
        return heft_ils_plan(instance, limits, options);
      },
      options.plan_network);
}

}  // namespace hetsched
