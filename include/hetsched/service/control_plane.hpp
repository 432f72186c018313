// ControlPlane: the core of `hetsched serve`. It owns nothing it cannot recover: every
// accepted job and every change of a job's state is written to the StateStore before
// anyone is told about it, and on start it reloads the store and reconciles with the
// ClusterEngine (what finished meanwhile, what still runs, what the engine lost).
//
// How a job flows: submit() parses the workload text (the YAML/JSON workload file
// format) against the current cluster model, reserves ids from the store's "jobs"
// sequence, stores the submission (its text once: ServiceSubmission) and only then returns
// the ids; a job's own record (a header and pages of tasks) is written once something
// happens to it. The one scheduling
// thread hands each DAG job to the SchedulingLoop — the one the simulator and the
// local runtime drive — with the policy it was submitted with; the control plane is
// the loop's backend. The loop's cluster is every node the engine has named (a node
// that is draining, down or no longer listed is a device_down; one that comes back,
// a device_up), so a static planner places the whole job on arrival and an online
// policy is offered tasks as their inputs complete, exactly as in the twin. Each
// device runs its placed tasks in planned order: the head is launched on the engine
// once its inputs are done and the device is idle. Engine reports go back to the loop
// (finished; failed: the task is offered again, at most max_task_retries times, then
// the job fails). On the twin (SimulatedEngine) the Simulator itself is the body: each
// placement goes to it, it reports starts and finishes (SimulationObserver), the
// control plane's clock is the twin's, and the loop decides after each of the twin's
// instants — so the service's schedule is the one `hetsched simulate` computes. A task the policy
// cannot place now shows why on its job (unschedulable: no device that can run it is up, the policy
// waits for one); one no device can ever run fails its job (unresolvable). Stream jobs (`kind:
// stream`, gangs of devices of one type) are one task each, offered while they wait to a stream
// policy from the stream registry (queue policies in their order, the head waiting for its gang;
// round policies by their LP allocation) and placed on free devices of one model on one node,
// stored as planned, then launched as one engine launch of `gang` devices. A cancel is stored
// (cancels/<id>) before it is acknowledged and carried out at the next step or, after a crash, at
// recovery. HTTP threads only call submit/cancel and read copies under the mutex.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "hetsched/backend/backend.hpp"
#include "hetsched/backend/planned_queue.hpp"
#include "hetsched/cluster/cluster.hpp"
#include "hetsched/io/workload_file.hpp"
#include "hetsched/policy/scheduling_policy.hpp"
#include "hetsched/service/cluster_engine.hpp"
#include "hetsched/service/leadership.hpp"
#include "hetsched/service/service_job.hpp"
#include "hetsched/service/service_metrics.hpp"
#include "hetsched/service/service_submission.hpp"
#include "hetsched/service/state_store.hpp"
#include "hetsched/sim/simulation_observer.hpp"
#include "hetsched/stream/stream_scheduler.hpp"
#include "hetsched/workload/task_graph.hpp"

namespace hetsched {

class SimulatedEngine;
class SchedulingLoop;
class RooflineModel;

// The datasheet of a device model the engine names, or nullopt when unknown (the
// device is then left out of the cluster model).
using DeviceSpecResolver = std::function<std::optional<DeviceSpec>(DeviceKind, std::string_view)>;

struct ControlPlaneOptions {
  std::string default_policy = "heft";
  // For stream jobs (`kind: stream`) submitted without `?policy=`: a stream policy.
  std::string default_stream_policy = "fifo";
  // Queue-mode stream policies backfill by EASY (as `hetsched simulate --backfill`).
  bool stream_easy_backfilling = false;
  // Which node and device a stream job gets (as `hetsched simulate --device-placement`).
  DevicePlacement stream_device_placement = DevicePlacement::most_free_type;
  // Round-mode stream policies: the round's length and the checkpoint/restart time a
  // job pays when a round moves it (as `hetsched simulate --round-seconds ...`).
  double stream_round_seconds = 360;
  double stream_migration_seconds = 30;
  PolicyOptions policy_options;
  // Model seconds per real second on a real cluster (1). The twin (SimulatedEngine)
  // brings its own clock, which the control plane reads instead.
  double time_scale = 1.0;
  std::uint32_t max_task_retries = 3;
  std::chrono::milliseconds tick{2};  // the scheduling thread's poll interval
  // How often engine.nodes() is asked (a real engine runs sinfo or a REST call).
  std::chrono::milliseconds node_refresh{200};
  // Tight bounds for submitted text (a service faces untrusted input).
  WorkloadFileLimits workload_limits{.max_job_replicas = 1000,
                                     .max_jobs = 1000,
                                     .max_tasks = 100'000,
                                     .max_edges = 1'000'000,
                                     .max_cost_entries = 1'000'000};
  // Empty: the device catalog, then the SimulatedEngine's own specs when it is one.
  DeviceSpecResolver device_spec_of;
};

enum class CancelOutcome { cancelling, already_ended, not_found };

struct ServiceJobSummary {
  std::uint64_t id = 0;
  std::string name;
  std::string policy;
  ServiceJobState state = ServiceJobState::queued;
  std::size_t tasks = 0;
  std::size_t completed_tasks = 0;
};

class ControlPlane final : private Backend, private SimulationObserver {
 public:
  // The store, engine and leadership must outlive the control plane. Throws
  // InputError when the default policy is unknown.
  ControlPlane(StateStore& store, ClusterEngine& engine, Leadership& leadership,
               ControlPlaneOptions options);
  ~ControlPlane() override;
  ControlPlane(const ControlPlane&) = delete;
  ControlPlane& operator=(const ControlPlane&) = delete;

  // Reloads the store, reconciles with the engine, then runs the scheduling thread.
  void start();
  // Stops the scheduling thread (tasks on the engine keep running); idempotent.
  void stop();
  // recover() + step() without a thread, for callers that drive it themselves.
  void recover();
  void step();

  // Thread-safe. Parses, validates and durably stores the jobs of the workload text
  // (one id per job), then queues them for planning. A text with `kind: stream` holds
  // stream jobs (gangs; see io/stream_submission.hpp), planned by a stream policy
  // (default options.default_stream_policy). Throws InputError (bad text, unknown
  // policy, a gang no node can hold: the position names the field) and StateStoreError.
  std::vector<std::uint64_t> submit(std::string_view workload_text, std::string_view policy = {});
  // Thread-safe. The request is stored (key "cancels/<id>") before `cancelling` is
  // returned, so a restart carries it out; throws StateStoreError when it cannot be.
  CancelOutcome cancel(std::uint64_t id);
  std::optional<ServiceJob> job(std::uint64_t id) const;
  std::vector<ServiceJobSummary> jobs() const;
  std::vector<EngineNode> nodes() const;
  // Adds the nodes of a cluster-file text to the SimulatedEngine and stores them so a
  // restart registers them again. Throws InputError (bad text, duplicate name, or an
  // engine that reads its nodes from a cluster manager: field "engine").
  std::vector<std::string> register_nodes(std::string_view cluster_text);
  ServiceMetrics metrics() const;
  // Thread-safe. `listener` (empty: none) is called after every change readers can see: a
  // job submitted, placed, started or ended (cancelled ones included), the nodes. It runs on
  // the thread that made the change (an HTTP thread or the scheduling thread) without the
  // control plane's lock held; it must be quick and must not call the control plane. The
  // dashboard's event streams wake from it (ServiceHttpServer: ServiceEventHub::notify).
  void set_change_listener(std::function<void()> listener);
  // Whether the latest scheduling step failed, and why (cheap: for /healthz).
  struct StepHealth {
    bool failing = false;
    std::uint64_t failures_total = 0;
    std::string error;
  };
  StepHealth step_health() const;
  const Leadership& leadership() const { return leadership_; }
  std::string_view engine_name() const { return engine_.name(); }
  std::string_view default_policy() const { return options_.default_policy; }

 private:
  struct LiveJob;
  using TaskRef = std::pair<std::uint64_t, std::uint32_t>;  // job id, task of its record

  // Backend: the loop placed a task; it joins its device's planned queue (on the twin:
  // the simulator's).
  std::string_view name() const override { return "service"; }
  void launch(const Assignment& assignment) override;
  // SimulationObserver: the twin started or finished a DAG task (the loop knows already).
  void task_started(TaskIndex task, DeviceId device, double now) override;
  void task_finished(TaskIndex task, DeviceId device, double now, double joules) override;
  // The twin's instants, each followed by the loop's decision, as far as its pace allows.
  void run_twin();

  void scheduling_loop();
  void refresh_cluster(bool force);
  // A stored job that had not ended, made live again from its record and its submission's
  // job (null when the text no longer gives it: the job is failed, and stored so).
  std::unique_ptr<LiveJob> make_live_job(ServiceJob record, Job* job, std::string_view unreadable);
  // A stored job that had not ended joins the scheduling thread as it was (its devices held,
  // its launches known) and the readable view.
  void resume(std::unique_ptr<LiveJob> live);
  // Hands a DAG job to the loop: its tasks not completed, those the engine runs adopted.
  void admit(LiveJob& job);
  void take_submissions();
  // Admits the jobs whose arrival (submission + arrival_seconds) is at or before now: a
  // DAG job joins the loop, a stream job is offered to its stream policy.
  void admit_arrived(double now);
  void handle_cancels();
  void handle_engine_reports(const std::vector<EngineTaskStatus>& reports,
                             bool first_after_recovery);
  void task_failed(LiveJob& job, std::uint32_t task, const std::string& reason);
  // Copies changed jobs into the readable view and recomputes the metrics, under one lock.
  void publish(std::vector<ServiceJob> changed);
  // The loop decides for the tasks that became ready; the time it took is measured.
  void decide();
  // Shows on each job why its waiting tasks are not placed; fails a job no device can run.
  void explain_waiting();
  // The live job and task of the record behind a graph task (null when it has ended).
  std::pair<LiveJob*, std::uint32_t> task_of(TaskIndex task);
  std::vector<std::uint64_t> submit_stream(const std::string& text, std::string_view policy);
  bool plan_stream_jobs();  // true when it placed a gang
  struct StreamCore;
  StreamCore& stream_core(const std::string& policy);
  // An arrived stream job joins its policy's core (a gang the engine runs is adopted).
  void join_stream_core(LiveJob& job, double now);
  // The core's decision for one policy, carried out: gangs (queue mode) or a round's
  // leases (round mode) placed on named devices.
  std::size_t decide_stream_core(const std::string& policy, StreamCore& core, double now,
                                 std::set<DeviceId>& taken);
  // A device a gang may take now: up, held by no task or gang, none placed on it in this
  // decision (`taken`), no DAG task queued there.
  bool free_for_gang(DeviceId device, const std::set<DeviceId>& taken) const;
  void place_gang(LiveJob& job, const StreamScheduler& scheduler, const StreamPlacement& placement,
                  double seconds, const std::string& detail, std::set<DeviceId>& taken);
  // A stream job's gang or lease ended without finishing it (failed, or its node lost):
  // its core gives it back the work the run had (round mode: undoes the round).
  void stream_run_lost(LiveJob& job);
  void launch_planned_gangs();
  // The devices a task holds: its gang, or its one device (unknown names left out).
  std::vector<DeviceId> devices_of(const ServiceTask& task) const;
  void occupy(std::uint64_t id, std::uint32_t task);
  void release(std::uint64_t id, std::uint32_t task);
  void apply_stored_cancels();
  void dispatch();
  void finish_job(LiveJob& job, ServiceJobState state, std::string reason);
  // Every change of a task goes with an event in its history, recorded here: the task's
  // page and its job's header are stored at the next flush.
  void record(LiveJob& job, std::uint32_t task, std::string event, std::string detail = {});
  void mark_dirty(std::uint64_t id);
  void flush();
  double model_now() const;       // the scheduling thread's clock
  double submission_now() const;  // the model clock as an HTTP thread sees it
  void count_decisions(std::uint64_t placed, double seconds);
  SchedulingPolicy& policy_named(const std::string& name);
  void publish_job(const LiveJob& job);  // copies into the readable view, under the mutex
  void tell_change();                    // calls the change listener (never under mutex_)
  // A submission of `jobs` jobs with their ids reserved (consecutive), not yet stored.
  ServiceSubmission new_submission(std::uint32_t jobs, const std::string& policy, bool stream,
                                   const std::string& text);
  // Stores the submission (one record), then hands its jobs to the scheduling loop.
  std::vector<std::uint64_t> acknowledge(const ServiceSubmission& submission,
                                         std::vector<std::unique_ptr<LiveJob>> jobs);
  // The job has ended and its end is stored: its submission's record goes with its last job.
  void forget_ended(const ServiceJob& record);

  StateStore& store_;
  ClusterEngine& engine_;
  // The engine when it is the twin: it runs DAG tasks on the Simulator, gives the
  // clock and takes nodes registered through the API. Null for a real cluster.
  SimulatedEngine* const twin_;
  Leadership& leadership_;
  ControlPlaneOptions options_;
  std::chrono::steady_clock::time_point started_;

  // Scheduling-thread state.
  std::map<std::uint64_t, std::unique_ptr<LiveJob>> live_;
  std::size_t live_stream_jobs_ = 0;  // of live_: no gang work at all while 0
  // DAG jobs submitted and not yet arrived, by (arrival on the model clock, id).
  std::set<std::pair<double, std::uint64_t>> deferred_;
  // The loop's world: every node the engine has named (devices only ever added), the
  // graph of every admitted job, and per device the tasks placed and not yet launched.
  Cluster cluster_;
  std::map<std::string, NodeId> node_ids_;
  std::map<std::string, DeviceId> device_ids_;
  std::vector<bool> node_up_;
  std::unique_ptr<RooflineModel> perf_;
  TaskGraph graph_;
  std::map<std::string, std::unique_ptr<SchedulingPolicy>> policies_;
  std::unique_ptr<SchedulingLoop> loop_;
  std::vector<std::uint64_t> job_ids_;  // per graph job
  std::vector<PlannedQueue> device_queues_;
  std::set<DeviceId> queued_devices_;           // devices whose queue is not empty
  std::uint64_t placed_now_ = 0;                // placements during the current decision
  std::vector<std::optional<TaskRef>> holder_;  // per device: the task or gang on it
  std::map<std::string, TaskRef> launched_;     // by launch key
  std::map<std::string, std::unique_ptr<StreamCore>> stream_cores_;  // by stream policy
  std::set<std::uint64_t> stored_cancels_;  // "cancels/<id>" keys to erase once ended
  // Bumped whenever a gang could newly fit (devices freed, jobs arrived or failed, the
  // cluster or the DAG plans changed): waiting gangs are offered to their policy only then.
  std::uint64_t stream_epoch_ = 1;
  std::uint64_t stream_planned_epoch_ = 0;
  std::uint64_t explained_epoch_ = 0;  // explain_waiting ran at this stream_epoch_
  std::chrono::steady_clock::time_point last_node_refresh_{};
  std::uint64_t twin_node_generation_ = 0;
  bool nodes_changed_ = true;
  std::set<std::uint64_t> dirty_;                                  // jobs whose header changed
  std::set<std::pair<std::uint64_t, std::uint32_t>> dirty_pages_;  // (job, page) of tasks
  std::map<std::uint64_t, std::uint32_t> live_in_submission_;      // by first id: jobs not ended
  std::vector<std::uint64_t> recovered_;  // DAG jobs reloaded: they join the loop at the next step
  std::vector<EngineNode> engine_nodes_;

  // Shared with the HTTP threads, under mutex_.
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<LiveJob>> submitted_;
  std::deque<std::uint64_t> cancel_requests_;
  std::map<std::uint64_t, ServiceJob> view_;      // every job, as last published
  std::shared_ptr<const Cluster> parse_cluster_;  // for parsing submissions
  std::vector<EngineNode> nodes_view_;
  ServiceMetrics metrics_;
  std::vector<double> latency_samples_;
  double deciding_seconds_ = 0;
  std::uint64_t decisions_ = 0, failures_ = 0, replans_ = 0, submitted_total_ = 0;
  std::uint64_t planning_calls_ = 0;
  double energy_joules_ = 0;
  std::uint64_t step_failures_ = 0;
  bool step_failing_ = false;
  std::string step_error_;
  bool stopping_ = false;
  std::shared_ptr<const std::function<void()>> change_listener_;
  std::thread thread_;
};

}  // namespace hetsched
