// The work-stealing and migration rule shared by the local runtime and the
// simulator's "work-stealing" policy. An idle device (the thief) takes a task
// that waits for another device (the owner) when it would finish the task
// sooner there, transfers included:
//
//   gain = owner_finish - thief_finish,   steal when gain > 0
//   owner_finish = owner's backlog ahead of the task (and the task) × owner's lag
//   thief_finish = now + input transfer to the thief + task time on thief × thief's lag
//
// "Lag" is measured over predicted time on each device (1 when it runs as the
// model predicts): a device that falls behind its predictions sees its waiting
// tasks migrate to others. Work stealing as in Cilk and StarPU's lws scheduler;
// the gain test against transfer cost follows StarPU's dmda reasoning.
#pragma once

namespace hetsched {

struct StealEstimate {
  double owner_finish_seconds = 0;
  double thief_finish_seconds = 0;
  double gain_seconds() const { return owner_finish_seconds - thief_finish_seconds; }
  bool worth_stealing() const { return gain_seconds() > 0; }
};

inline StealEstimate estimate_steal(double now_seconds, double owner_backlog_seconds,
                                    double owner_lag, double thief_task_seconds,
                                    double thief_transfer_seconds, double thief_lag) {
  return StealEstimate{now_seconds + owner_backlog_seconds * owner_lag,
                       now_seconds + thief_transfer_seconds + thief_task_seconds * thief_lag};
}

}  // namespace hetsched
