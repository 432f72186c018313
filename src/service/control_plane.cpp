#include "hetsched/service/control_plane.hpp"

#include <fmt/format.h>
#include <spdlog/logger.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "hetsched/backend/scheduling_loop.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/quantile.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/stream_submission.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/service/service_log.hpp"
#include "hetsched/stream/stream_scheduler.hpp"
#include "simulated_engine.hpp"

namespace hetsched {
namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The record of a submission's j-th job before anything has happened to it (no tasks yet).
ServiceJob new_job_record(const ServiceSubmission& submission, std::uint32_t j, std::string name) {
  ServiceJob record;
  record.id = submission.first_id + j;
  record.name = std::move(name);
  record.policy = submission.policy;
  record.submitted_at_unix_seconds = submission.submitted_at_unix_seconds;
  record.submission = submission.first_id;
  record.source_job = j;
  return record;
}

std::string launch_key(std::uint64_t job, std::uint32_t task, std::uint32_t attempt) {
  return fmt::format("job-{}/task-{}/attempt-{}", job, task, attempt);
}

// The devices of an engine node: each device group is `count` devices with the
// resolved datasheet (a group whose model is unknown is left out).
std::vector<DeviceSpec> devices_of_node(const EngineNode& node, const DeviceSpecResolver& resolve) {
  std::vector<DeviceSpec> devices;
  for (const EngineDeviceGroup& group : node.devices) {
    const std::optional<DeviceSpec> spec = resolve(group.kind, group.model);
    if (!spec) continue;
    devices.insert(devices.end(), group.count, *spec);
  }
  return devices;
}

constexpr std::size_t kLatencyWindow = 4096;  // latest planning calls in the summary
constexpr std::string_view kNodePrefix = "nodes/";
constexpr std::string_view kCancelPrefix = "cancels/";

std::string cancel_key(std::uint64_t id) { return fmt::format("{}{:012}", kCancelPrefix, id); }

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Whether the gang or lease a stream job runs now ends the job: a round-mode job's lease
// does so only when no steps are left once its round ends.
bool run_ends_job(const ServiceJob& job) {
  return !job.stream_steps_left || *job.stream_steps_left <= 0;
}

// Every job the store holds a record of, from its header and its pages of tasks (a task
// on a page never written is blank). Unreadable records are reported and left out.
std::map<std::uint64_t, ServiceJob> read_stored_jobs(StateStore& store) {
  std::map<std::uint64_t, ServiceJob> jobs;
  const auto unreadable = [](const StoredRecord& stored, const std::exception& e) {
    service_log().warn("unreadable record {}: {}", stored.key, e.what());
  };
  for (const StoredRecord& stored : store.list(kServiceJobPrefix)) {
    try {
      ServiceJob record = service_job_from_json(nlohmann::json::parse(stored.value));
      jobs.emplace(record.id, std::move(record));
    } catch (const std::exception& e) {
      unreadable(stored, e);
    }
  }
  for (const StoredRecord& stored : store.list(kServiceJobTasksPrefix)) {
    // "job-tasks/<id>/<page>"
    const std::string_view key = std::string_view(stored.key).substr(kServiceJobTasksPrefix.size());
    const std::size_t slash = std::min(key.find('/'), key.size());
    std::uint64_t id = 0;
    std::uint32_t page = 0;
    const bool named =
        std::from_chars(key.data(), key.data() + slash, id).ec == std::errc() &&
        slash < key.size() &&
        std::from_chars(key.data() + slash + 1, key.data() + key.size(), page).ec == std::errc();
    try {
      const auto job = jobs.find(id);
      if (!named || job == jobs.end()) throw std::runtime_error("no job of this page is stored");
      read_task_page(job->second, page, nlohmann::json::parse(stored.value));
    } catch (const std::exception& e) {
      unreadable(stored, e);
    }
  }
  return jobs;
}

}  // namespace

struct ControlPlane::LiveJob {
  ServiceJob record;
  Job job;  // as parsed; moved into the loop's graph when admitted
  bool admitted = false;
  JobIndex index = 0;                      // in the graph, once admitted
  std::vector<std::int64_t> graph_task;    // per task of the record: its graph task, or -1
  std::vector<std::uint32_t> record_task;  // per task of its graph job: its task in the record
  std::vector<double> joules;              // predicted, on the planned device
  double arrived_seconds = 0;              // submitted at, on the model clock
  // A stream job: whether it arrived and was given to its policy's core, and its index
  // there (none: a restart found it on the lease that ends it).
  bool joined_stream_core = false;
  std::optional<std::size_t> stream_slot;

  TaskIndex global(std::uint32_t t) const { return static_cast<TaskIndex>(graph_task[t]); }
  bool in_loop(std::uint32_t t) const { return admitted && graph_task[t] >= 0; }
};

// The job-stream core of one stream policy (see plan_stream_jobs).
struct ControlPlane::StreamCore {
  std::unique_ptr<StreamPolicy> policy;
  std::unique_ptr<StreamScheduler> scheduler;
  std::vector<std::uint64_t> job_ids;  // by the core's index
  std::size_t cluster_devices = 0;     // the cluster's size when the core last saw it
  double next_round = kNever;          // round mode: when the next round is due
};

ControlPlane::ControlPlane(StateStore& store, ClusterEngine& engine, Leadership& leadership,
                           ControlPlaneOptions options)
    : store_(store),
      engine_(engine),
      twin_(dynamic_cast<SimulatedEngine*>(&engine)),
      leadership_(leadership),
      options_(std::move(options)) {
  started_ = std::chrono::steady_clock::now();
  perf_ = std::make_unique<RooflineModel>(cluster_);
  loop_ = std::make_unique<SchedulingLoop>(cluster_, graph_, *perf_,
                                           policy_named(options_.default_policy),
                                           static_cast<Backend&>(*this));
  if (twin_ != nullptr) {
    cluster_.network() = twin_->cluster().network();
    twin_->attach(graph_, *perf_, *loop_, static_cast<SimulationObserver&>(*this));
  }
  make_stream_policy(options_.default_stream_policy);  // an unknown name is refused here
  if (!options_.device_spec_of) {
    const ClusterEngine* source = &engine_;
    options_.device_spec_of = [source](DeviceKind kind,
                                       std::string_view model) -> std::optional<DeviceSpec> {
      if (auto spec = source->device_spec(kind, model)) return spec;
      const DeviceSpec* part = find_catalog_part(model);
      if (part != nullptr && part->kind == kind) return *part;
      return std::nullopt;
    };
  }
}

ControlPlane::~ControlPlane() { stop(); }

double ControlPlane::submission_now() const {
  return twin_ != nullptr ? twin_->observed_now() : model_now();
}

double ControlPlane::model_now() const {
  if (twin_ != nullptr) return twin_->now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count() *
         options_.time_scale;
}

// ---------------------------------------------------------------- HTTP-thread side

std::vector<std::uint64_t> ControlPlane::submit(std::string_view workload_text,
                                                std::string_view policy_name) {
  if (is_stream_submission(workload_text))
    return submit_stream(std::string(workload_text), policy_name);
  const std::string policy(policy_name.empty() ? options_.default_policy : policy_name);
  const std::vector<std::string> names = policy_names();
  if (std::find(names.begin(), names.end(), policy) == names.end())
    throw InputError(SourcePosition{"policy"}, unknown_name_message("policy", policy, names));
  std::shared_ptr<const Cluster> cluster;
  {
    std::lock_guard lock(mutex_);
    cluster = parse_cluster_;
  }
  if (!cluster) throw StateStoreError("the control plane has not started");
  const std::string text(workload_text);
  Workload workload = parse_workload(text, "body", *cluster, options_.workload_limits);
  if (workload.jobs.empty()) throw InputError(SourcePosition{"body"}, "the workload has no jobs");

  const auto count = static_cast<std::uint32_t>(workload.jobs.size());
  const ServiceSubmission submission = new_submission(count, policy, false, text);
  std::vector<std::unique_ptr<LiveJob>> jobs;
  for (std::uint32_t j = 0; j < count; ++j) {
    auto live = std::make_unique<LiveJob>();
    live->record = new_job_record(submission, j, workload.jobs[j].name);
    for (const Task& task : workload.jobs[j].tasks)
      live->record.tasks.push_back({.name = task.name});
    live->job = std::move(workload.jobs[j]);
    live->joules.assign(live->job.tasks.size(), 0);
    live->arrived_seconds = submission_now();
    jobs.push_back(std::move(live));
  }
  return acknowledge(submission, std::move(jobs));
}

CancelOutcome ControlPlane::cancel(std::uint64_t id) {
  {
    std::lock_guard lock(mutex_);
    const auto it = view_.find(id);
    if (it == view_.end()) return CancelOutcome::not_found;
    if (is_terminal(it->second.state)) return CancelOutcome::already_ended;
  }
  // Durable before it is acknowledged: a restart finds the request and carries it out.
  store_.put(std::vector<StoredRecord>{{cancel_key(id), "cancel"}});
  {
    std::lock_guard lock(mutex_);
    cancel_requests_.push_back(id);
  }
  wake_.notify_one();
  return CancelOutcome::cancelling;
}

std::optional<ServiceJob> ControlPlane::job(std::uint64_t id) const {
  std::lock_guard lock(mutex_);
  const auto it = view_.find(id);
  if (it == view_.end()) return std::nullopt;
  return it->second;
}

std::vector<ServiceJobSummary> ControlPlane::jobs() const {
  std::lock_guard lock(mutex_);
  std::vector<ServiceJobSummary> out;
  out.reserve(view_.size());
  for (const auto& [id, job] : view_) {
    ServiceJobSummary s{id, job.name, job.policy, job.state, job.tasks.size(), 0};
    for (const ServiceTask& t : job.tasks)
      s.completed_tasks += t.state == ServiceTaskState::completed;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<EngineNode> ControlPlane::nodes() const {
  std::lock_guard lock(mutex_);
  return nodes_view_;
}

std::vector<std::string> ControlPlane::register_nodes(std::string_view cluster_text) {
  if (twin_ == nullptr)
    throw InputError(SourcePosition{"engine"},
                     fmt::format("engine '{}' reads its nodes from the cluster manager; nodes "
                                 "cannot be registered through the API",
                                 engine_.name()));
  const Cluster added = parse_cluster(
      cluster_text, "body",
      ClusterFileLimits{.max_nodes = 1000, .max_devices_per_node = 1024, .max_devices = 100'000});
  if (added.node_count() == 0) throw InputError(SourcePosition{"body"}, "no nodes given");
  twin_->add_nodes(added);  // throws on a taken name
  std::vector<StoredRecord> records;
  std::vector<std::string> names;
  for (const Node& node : added.nodes()) {
    names.push_back(node.name);
    records.push_back({std::string(kNodePrefix) + node.name, std::string(cluster_text)});
  }
  // One record per node holding the whole text; on restart the text is added once.
  store_.put(records);
  {
    std::lock_guard lock(mutex_);
    nodes_changed_ = true;
  }
  wake_.notify_one();
  return names;
}

ControlPlane::StepHealth ControlPlane::step_health() const {
  std::lock_guard lock(mutex_);
  return {step_failing_, step_failures_, step_error_};
}

ServiceMetrics ControlPlane::metrics() const {
  std::lock_guard lock(mutex_);
  ServiceMetrics m = metrics_;
  for (const auto& [id, job] : view_) ++m.jobs_by_state[static_cast<std::size_t>(job.state)];
  // Quantiles over the latest planning calls; count and sum over all of them.
  std::vector<double> window(latency_samples_.end() - static_cast<std::ptrdiff_t>(std::min(
                                                          latency_samples_.size(), kLatencyWindow)),
                             latency_samples_.end());
  m.scheduling_latency.count = planning_calls_;
  m.scheduling_latency.sum_seconds = deciding_seconds_;
  for (double s : window)
    m.scheduling_latency.max_seconds = std::max(m.scheduling_latency.max_seconds, s);
  m.scheduling_latency.p50_seconds = nearest_rank_quantile(window, 0.5);
  m.scheduling_latency.p90_seconds = nearest_rank_quantile(window, 0.9);
  m.scheduling_latency.p99_seconds = nearest_rank_quantile(window, 0.99);
  m.step_failures_total = step_failures_;
  m.step_failing = step_failing_;
  m.step_error = step_error_;
  m.uptime_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  m.leader = leadership_.is_leader();
  return m;
}

// ---------------------------------------------------------------- scheduling thread

void ControlPlane::start() {
  recover();
  thread_ = std::thread([this] { scheduling_loop(); });
}

void ControlPlane::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ControlPlane::scheduling_loop() {
  // After a failed step the next waits a backoff that doubles (tick, 2 tick, ... 5 s), so a
  // store that refuses is not hammered; a stop still ends the wait at once.
  constexpr std::chrono::milliseconds kLongestBackoff{5000};
  std::chrono::milliseconds backoff{0};
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (backoff.count() > 0)
        wake_.wait_for(lock, backoff, [this] { return stopping_; });
      else
        wake_.wait_for(lock, options_.tick, [this] {
          return stopping_ || !submitted_.empty() || !cancel_requests_.empty();
        });
      if (stopping_) return;
    }
    try {
      step();
      if (backoff.count() > 0) {
        service_log().info("scheduling steps succeed again");
        std::lock_guard lock(mutex_);
        step_failing_ = false;
        step_error_.clear();
      }
      backoff = std::chrono::milliseconds{0};
    } catch (const std::exception& e) {
      // A store or engine that fails now may answer later; nothing is acknowledged that
      // was not stored, so the loop carries on. The first failure of a run of them is
      // logged; all are counted (/metrics) and the latest is shown (/healthz).
      const std::chrono::milliseconds tick = options_.tick;
      backoff = std::min(kLongestBackoff, backoff.count() == 0
                                              ? std::max(tick, std::chrono::milliseconds{1})
                                              : 2 * backoff);
      std::lock_guard lock(mutex_);
      if (!step_failing_ || step_error_ != e.what())
        service_log().warn("scheduling step failed (retried with backoff): {}", e.what());
      ++step_failures_;
      step_failing_ = true;
      step_error_ = e.what();
    }
  }
}

void ControlPlane::recover() {
  // Nodes registered through the API before the restart.
  if (twin_ != nullptr) {
    std::set<std::string> texts;
    for (const StoredRecord& r : store_.list(kNodePrefix)) texts.insert(r.value);
    for (const std::string& text : texts) {
      try {
        twin_->add_nodes(parse_cluster(text, "stored nodes"));
      } catch (const InputError& e) {
        service_log().warn("stored nodes not re-registered: {}", e.what());
      }
    }
  }
  refresh_cluster(true);
  std::shared_ptr<const Cluster> parse_cluster;
  {
    std::lock_guard lock(mutex_);
    parse_cluster = parse_cluster_;
  }
  // The jobs' records: those ended are only shown; the others wait for their submission.
  std::map<std::uint64_t, ServiceJob> unended = read_stored_jobs(store_);
  for (auto it = unended.begin(); it != unended.end();) {
    if (!is_terminal(it->second.state)) {
      ++it;
      continue;
    }
    std::lock_guard lock(mutex_);
    view_[it->first] = std::move(it->second);
    it = unended.erase(it);
  }
  // Each submission's text is read once, however many jobs it gives; a job with no record
  // of its own has not been touched since it was accepted, and waits as it did then.
  for (const StoredRecord& stored : store_.list(kServiceSubmissionPrefix)) {
    ServiceSubmission submission;
    try {
      submission = service_submission_from_stored(stored.value);
    } catch (const std::exception& e) {
      service_log().warn("unreadable record {}: {}", stored.key, e.what());
      continue;
    }
    std::vector<Job> dag_jobs;
    std::vector<StreamJob> stream_jobs;
    std::string unreadable;
    try {
      if (submission.stream)
        stream_jobs = parse_stream_submission(submission.text, options_.workload_limits.max_jobs);
      else
        dag_jobs =
            parse_workload(submission.text, fmt::format("submission {}", submission.first_id),
                           *parse_cluster, options_.workload_limits)
                .jobs;
      if (std::max(dag_jobs.size(), stream_jobs.size()) != submission.jobs)
        throw InputError("the stored text no longer gives its jobs");
    } catch (const InputError& e) {
      unreadable = e.what();  // the cluster changed under it (a node it names is gone)
    }
    bool any_unended = false;
    for (std::uint32_t j = 0; j < submission.jobs; ++j) {
      const std::uint64_t id = submission.first_id + j;
      ServiceJob record;
      if (const auto stored_record = unended.find(id); stored_record != unended.end()) {
        record = std::move(stored_record->second);
        unended.erase(stored_record);
        // Pages are stored as their tasks change: a task on a page never written has not
        // changed since it was accepted, and its name is the submission's.
        if (!dag_jobs.empty() && dag_jobs[j].tasks.size() == record.tasks.size())
          for (std::size_t t = 0; t < record.tasks.size(); ++t)
            if (record.tasks[t].name.empty()) record.tasks[t].name = dag_jobs[j].tasks[t].name;
      } else {
        bool ended = false;
        {
          std::lock_guard lock(mutex_);
          ended = view_.count(id) != 0;
        }
        if (ended) continue;
        record = new_job_record(submission, j, fmt::format("job {}", id));
        if (unreadable.empty() && submission.stream) {
          record.name = stream_jobs[j].name;
          record.tasks.push_back({.name = stream_jobs[j].name});
          record.stream = stream_jobs[j];
        } else if (unreadable.empty()) {
          record.name = dag_jobs[j].name;
          for (const Task& task : dag_jobs[j].tasks) record.tasks.push_back({.name = task.name});
        }
      }
      std::unique_ptr<LiveJob> live =
          make_live_job(std::move(record), dag_jobs.empty() ? nullptr : &dag_jobs[j], unreadable);
      if (!live) continue;
      any_unended = true;
      ++live_in_submission_[submission.first_id];
      resume(std::move(live));
    }
    if (!any_unended) store_.erase(stored.key);  // every job of it ended before the restart
  }
  for (auto& [id, record] : unended)  // a job whose submission is not in the store
    make_live_job(std::move(record), nullptr, "its submission is not in the state store");
  apply_stored_cancels();
  handle_engine_reports(engine_.poll(), true);
  // The engine has said what it runs: the DAG jobs may join the loop.
  for (auto& [id, job] : live_)
    if (!job->record.stream && !is_terminal(job->record.state)) recovered_.push_back(id);
  // What recovery changed is stored. The DAG jobs join the loop (their policies plan them)
  // at the first step, on the scheduling thread, so the API answers from the reloaded
  // state meanwhile: a restart's cost before it listens is reading the store.
  flush();
}

std::unique_ptr<ControlPlane::LiveJob> ControlPlane::make_live_job(ServiceJob record, Job* job,
                                                                   std::string_view unreadable) {
  auto live = std::make_unique<LiveJob>();
  if (record.stream) {  // its record holds the job as submitted
    live->record = std::move(record);
    live->joules.assign(1, 0);
    return live;
  }
  std::string reason(unreadable);
  if (reason.empty() && (job == nullptr || job->tasks.size() != record.tasks.size()))
    reason = "the stored text no longer gives this job";
  if (!reason.empty()) {
    record.state = ServiceJobState::failed;
    record.reason = fmt::format("cannot be re-read after a restart: {}", reason);
    record.finished_at_unix_seconds = unix_now();
    store_.put(stored_job_records(record));
    std::lock_guard lock(mutex_);
    view_[record.id] = std::move(record);
    return nullptr;
  }
  live->job = std::move(*job);
  live->record = std::move(record);
  live->joules.assign(live->job.tasks.size(), 0);
  return live;
}

void ControlPlane::resume(std::unique_ptr<LiveJob> live) {
  LiveJob& job = *live;
  const std::uint64_t id = job.record.id;
  // Submitted before the restart: as long ago on the model clock (a fresh twin's clock
  // starts at 0, so there it arrives now).
  job.arrived_seconds =
      twin_ != nullptr
          ? model_now()
          : model_now() - (unix_now() - job.record.submitted_at_unix_seconds) * options_.time_scale;
  if (job.record.stream) ++live_stream_jobs_;
  live_.emplace(id, std::move(live));
  for (std::uint32_t t = 0; t < job.record.tasks.size(); ++t) {
    ServiceTask& task = job.record.tasks[t];
    switch (task.state) {
      case ServiceTaskState::planned:
        // A gang placed and not yet launched holds its devices; a DAG task is placed
        // again by its policy when its job joins the loop (unless the engine runs it).
        if (job.record.stream) occupy(id, t);
        break;
      case ServiceTaskState::launched:
      case ServiceTaskState::running:
        launched_[task.launch_key] = {id, t};
        occupy(id, t);
        break;
      case ServiceTaskState::waiting:
      case ServiceTaskState::failed:
        task.state = ServiceTaskState::waiting;
        break;
      default:
        break;
    }
  }
  publish_job(job);
}

void ControlPlane::step() {
  refresh_cluster(false);
  for (std::uint64_t id : recovered_)
    if (const auto it = live_.find(id); it != live_.end() && !is_terminal(it->second->record.state))
      admit(*it->second);
  recovered_.clear();
  take_submissions();
  if (twin_ == nullptr) admit_arrived(model_now());  // the twin's instants do it
  handle_cancels();
  handle_engine_reports(engine_.poll(), false);
  decide();
  // A placed gang is stored before it is launched, so a restart adopts it (by its
  // next attempt's key) instead of launching it a second time.
  if (plan_stream_jobs()) flush();
  launch_planned_gangs();
  dispatch();
  if (twin_ != nullptr) run_twin();
  flush();
}

// Each instant of the twin, then the loop's decision over what it changed: the order
// `hetsched simulate` keeps, so the twin's schedule is the simulator's.
void ControlPlane::run_twin() {
  for (;;) {
    // A node that went down stops its work before the next instant.
    if (twin_->node_generation() != twin_node_generation_) refresh_cluster(false);
    // Arrivals and round boundaries are instants too.
    double wake_at = deferred_.empty() ? kNever : deferred_.begin()->first;
    for (const auto& [policy, core] : stream_cores_)
      if (core->next_round > model_now()) wake_at = std::min(wake_at, core->next_round);
    if (!twin_->run_due_instant(wake_at, [&] { admit_arrived(wake_at); })) return;
    // Only gangs are the engine's launches on the twin; DAG tasks report as observer.
    if (live_stream_jobs_ > 0) handle_engine_reports(engine_.poll(), false);
    decide();
    if (plan_stream_jobs()) flush();
    launch_planned_gangs();
  }
}

// The loop's cluster only grows: a node the engine names for the first time is added,
// one that is no longer up (draining, down, or gone from the list) has its devices
// taken out of the loop — what was placed there and not launched is offered to the
// policy again — and one that is up again has them back.
void ControlPlane::refresh_cluster(bool force) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    force = force || nodes_changed_;
    nodes_changed_ = false;
  }
  if (twin_ != nullptr) {  // the twin says when its nodes change
    const std::uint64_t generation = twin_->node_generation();
    force = force || generation != twin_node_generation_;
    twin_node_generation_ = generation;
    if (!force) return;
  } else if (!force && now - last_node_refresh_ < options_.node_refresh) {
    return;
  }
  last_node_refresh_ = now;
  std::vector<EngineNode> nodes = engine_.nodes();
  const auto same = [](const std::vector<EngineNode>& a, const std::vector<EngineNode>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i].name != b[i].name || a[i].state != b[i].state ||
          a[i].devices.size() != b[i].devices.size())
        return false;
      for (std::size_t g = 0; g < a[i].devices.size(); ++g)
        if (a[i].devices[g].model != b[i].devices[g].model ||
            a[i].devices[g].count != b[i].devices[g].count ||
            a[i].devices[g].kind != b[i].devices[g].kind)
          return false;
    }
    return true;
  };
  if (!engine_nodes_.empty() && same(nodes, engine_nodes_)) return;
  engine_nodes_ = nodes;
  ++stream_epoch_;
  const double model_time = model_now();
  bool grew = false;
  std::vector<bool> up(node_up_.size(), false);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const EngineNode& engine_node = nodes[i];
    auto known = node_ids_.find(engine_node.name);
    if (known == node_ids_.end()) {
      NodeId id = 0;
      if (twin_ != nullptr) {  // the twin's own model: links, racks, datasheets, order
        const Node& node = twin_->cluster().node(static_cast<NodeId>(i));
        std::vector<DeviceSpec> devices;
        for (DeviceId d : node.devices) devices.push_back(twin_->cluster().device(d).spec);
        id = cluster_.add_node(node, devices);
      } else {
        Node node;
        node.name = engine_node.name;
        node.host_memory_bytes = engine_node.memory_bytes;
        id = cluster_.add_node(std::move(node),
                               devices_of_node(engine_node, options_.device_spec_of));
      }
      for (DeviceId d : cluster_.node(id).devices) device_ids_.emplace(cluster_.device(d).name, d);
      known = node_ids_.emplace(engine_node.name, id).first;
      node_up_.push_back(true);  // as the loop sees a new device; a node not up goes below
      up.push_back(false);
      grew = true;
    }
    up[known->second] = engine_node.state == EngineNodeState::up;
  }
  if (grew) {
    loop_->cluster_grew(model_time);
    device_queues_.resize(cluster_.device_count());
    holder_.resize(cluster_.device_count());
  }
  for (NodeId n = 0; n < up.size(); ++n) {
    if (up[n] == node_up_[n]) continue;
    node_up_[n] = up[n];
    for (DeviceId d : cluster_.node(n).devices) {
      if (up[n]) {
        loop_->device_up(d, model_time);
        continue;
      }
      for (TaskIndex moved : loop_->device_down(d, model_time)) {
        const auto [job, t] = task_of(moved);
        if (job == nullptr) continue;
        ServiceTask& task = job->record.tasks[t];
        task.state = ServiceTaskState::waiting;
        ++task.retries;
        record(*job, t, "moved", fmt::format("node {} is no longer up", task.node));
        if (task.retries > options_.max_task_retries)
          finish_job(*job, ServiceJobState::failed,
                     fmt::format("task '{}' was moved {} times", task.name, task.retries));
      }
    }
  }
  // On the twin a node that is down takes its running tasks with it (after the tasks
  // queued there left, so that none of them starts in their place).
  if (twin_ != nullptr)
    for (const EngineNode& engine_node : nodes) {
      if (engine_node.state != EngineNodeState::down) continue;
      for (DeviceId d : cluster_.node(node_ids_.at(engine_node.name)).devices)
        if (const std::optional<TaskIndex> stopped = twin_->simulator().stop(d)) {
          holder_[d].reset();
          if (const auto [job, t] = task_of(*stopped); job != nullptr)
            task_failed(*job, t, fmt::format("node {} went down", engine_node.name));
        }
    }
  auto all = std::make_shared<const Cluster>(cluster_);
  {
    std::lock_guard lock(mutex_);
    parse_cluster_ = std::move(all);
    nodes_view_ = std::move(nodes);
  }
  tell_change();
}

void ControlPlane::take_submissions() {
  std::deque<std::unique_ptr<LiveJob>> arrived;
  {
    std::lock_guard lock(mutex_);
    arrived.swap(submitted_);
  }
  if (!arrived.empty()) ++stream_epoch_;
  const double now = model_now();
  for (auto& live : arrived) {
    LiveJob& job = *live;
    if (job.record.stream) ++live_stream_jobs_;
    ++live_in_submission_[job.record.submission];
    live_.emplace(job.record.id, std::move(live));
    // A job arrives its arrival_seconds after it was submitted, on the model clock.
    if (job.record.stream) {
      job.arrived_seconds += job.record.stream->arrival_seconds;
      if (job.arrived_seconds > now) deferred_.insert({job.arrived_seconds, job.record.id});
      continue;
    }
    const double arrival = job.arrived_seconds + job.job.arrival_seconds;
    if (arrival > now)
      deferred_.insert({arrival, job.record.id});
    else
      admit(job);
  }
}

void ControlPlane::admit_arrived(double now) {
  while (!deferred_.empty() && deferred_.begin()->first <= now) {
    const std::uint64_t id = deferred_.begin()->second;
    deferred_.erase(deferred_.begin());
    const auto it = live_.find(id);
    if (it == live_.end() || is_terminal(it->second->record.state)) continue;
    if (it->second->record.stream)
      ++stream_epoch_;  // offered to its stream policy from now on
    else
      admit(*it->second);
  }
}

std::pair<ControlPlane::LiveJob*, std::uint32_t> ControlPlane::task_of(TaskIndex task) {
  const JobIndex j = graph_.job_of(task);
  const auto it = live_.find(job_ids_[j]);
  if (it == live_.end()) return {nullptr, 0};
  return {it->second.get(), it->second->record_task[task - graph_.first_task(j)]};
}

SchedulingPolicy& ControlPlane::policy_named(const std::string& name) {
  auto& policy = policies_[name];
  if (!policy) policy = make_policy(name, options_.policy_options);
  return *policy;
}

void ControlPlane::admit(LiveJob& job) {
  const std::size_t n = job.record.tasks.size();
  // The residual job: every task not completed (after a restart, some are).
  Job residual = std::move(job.job);
  std::vector<Task> tasks = std::move(residual.tasks);
  std::vector<Edge> edges = std::move(residual.edges);
  residual.tasks.clear();
  residual.edges.clear();
  job.graph_task.assign(n, -1);
  job.record_task.clear();
  for (std::uint32_t t = 0; t < n && t < tasks.size(); ++t) {
    if (job.record.tasks[t].state == ServiceTaskState::completed) continue;
    job.graph_task[t] = static_cast<std::int64_t>(residual.tasks.size());
    job.record_task.push_back(t);
    residual.tasks.push_back(std::move(tasks[t]));
  }
  for (const Edge& e : edges)
    if (job.graph_task[e.from] >= 0 && job.graph_task[e.to] >= 0)
      residual.edges.push_back({static_cast<std::uint32_t>(job.graph_task[e.from]),
                                static_cast<std::uint32_t>(job.graph_task[e.to]), e.bytes});
  residual.arrival_seconds = model_now();  // on the model clock, as the loop sees it
  job.index = graph_.append_job(std::move(residual));
  if (twin_ != nullptr) twin_->simulator().graph_grew();
  job_ids_.push_back(job.record.id);
  job.admitted = true;
  const TaskIndex first = graph_.first_task(job.index);
  for (std::int64_t& g : job.graph_task)
    if (g >= 0) g += first;
  const double now = model_now();
  // Tasks the engine runs already (found after a restart) stay where they are.
  for (std::uint32_t t = 0; t < n; ++t) {
    const ServiceTask& task = job.record.tasks[t];
    if (!job.in_loop(t) ||
        (task.state != ServiceTaskState::launched && task.state != ServiceTaskState::running))
      continue;
    const auto device = device_ids_.find(task.device);
    if (device != device_ids_.end())
      loop_->adopt(job.global(t), device->second, now + task.expected_seconds);
  }
  ++stream_epoch_;
  const auto began = std::chrono::steady_clock::now();
  placed_now_ = 0;
  loop_->job_arrived(job.index, now, &policy_named(job.record.policy));
  count_decisions(placed_now_,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
}

void ControlPlane::decide() {
  if (loop_->waiting().empty()) return;
  const auto began = std::chrono::steady_clock::now();
  placed_now_ = 0;
  loop_->decide(model_now());
  count_decisions(placed_now_,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  if (placed_now_ > 0) ++stream_epoch_;
  explain_waiting();
}

void ControlPlane::count_decisions(std::uint64_t placed, double seconds) {
  std::lock_guard lock(mutex_);
  deciding_seconds_ += seconds;
  decisions_ += placed;
  latency_samples_.push_back(seconds);
  ++planning_calls_;
  if (latency_samples_.size() > 2 * kLatencyWindow)
    latency_samples_.erase(latency_samples_.begin(),
                           latency_samples_.end() - static_cast<std::ptrdiff_t>(kLatencyWindow));
}

void ControlPlane::explain_waiting() {
  if (explained_epoch_ == stream_epoch_) return;
  explained_epoch_ = stream_epoch_;
  // One verdict per job: its first waiting task's.
  std::vector<std::pair<LiveJob*, std::uint32_t>> first_waiting;
  std::set<JobIndex> seen;
  for (TaskIndex t : loop_->waiting())
    if (seen.insert(graph_.job_of(t)).second)
      if (auto [job, task] = task_of(t); job != nullptr) first_waiting.push_back({job, task});
  for (auto [job, t] : first_waiting) {
    if (is_terminal(job->record.state)) continue;
    const PlacementVerdict verdict = loop_->verdict(job->global(t));
    if (verdict.status == PlacementStatus::unresolvable) {
      finish_job(*job, ServiceJobState::failed, verdict.reason);
    } else if (verdict.status == PlacementStatus::unschedulable &&
               job->record.reason != verdict.reason) {
      job->record.reason = verdict.reason;
      record(*job, t, "unschedulable", verdict.reason);
    }
  }
}

void ControlPlane::launch(const Assignment& a) {
  const auto [job, t] = task_of(a.task);
  if (job == nullptr) return;  // cannot happen: the loop only offers tasks of live jobs
  ++placed_now_;
  ServiceTask& task = job->record.tasks[t];
  const Device& device = cluster_.device(a.device);
  const Task& work = graph_.task(a.task);
  const double expected = perf_->task_seconds(work, device, a.pstate);
  const double start = loop_->predicted_finish(a.task) - expected;
  const bool moved = !task.device.empty();
  task.device = device.name;
  task.node = cluster_.node(device.node).name;
  task.planned_start_seconds = start;
  task.expected_seconds = expected;
  task.state = ServiceTaskState::planned;
  job->joules[t] = perf_->task_joules(work, device, a.pstate);
  if (!job->record.reason.empty()) job->record.reason.clear();  // no longer unschedulable
  record(*job, t, moved ? "replanned" : "planned",
         fmt::format("by {}, start {:.3f} s", job->record.policy, start));
  if (moved) ++replans_;
  if (twin_ != nullptr) {  // the simulator queues it and reports its start and end
    twin_->simulator().launch(a);
    return;
  }
  device_queues_[a.device].push(start, a.task);
  queued_devices_.insert(a.device);
}

void ControlPlane::task_started(TaskIndex g, DeviceId d, double now) {
  const auto [job, t] = task_of(g);
  if (job == nullptr) return;
  ServiceTask& task = job->record.tasks[t];
  ++task.attempts;
  task.launch_key = launch_key(job->record.id, t, task.attempts);
  task.engine_id = fmt::format("sim/{}", g);
  task.state = ServiceTaskState::running;
  task.started_at_unix_seconds = unix_now();
  task.started_seconds = now;
  task.finished_seconds.reset();
  record(*job, t, "launched", "on the twin");
  record(*job, t, "started");
  holder_[d] = TaskRef{job->record.id, t};
  if (job->record.state == ServiceJobState::queued) job->record.state = ServiceJobState::running;
}

void ControlPlane::task_finished(TaskIndex g, DeviceId d, double now, double joules) {
  holder_[d].reset();
  ++stream_epoch_;
  const auto [job, t] = task_of(g);
  if (job == nullptr) return;
  ServiceTask& task = job->record.tasks[t];
  task.state = ServiceTaskState::completed;
  task.finished_at_unix_seconds = unix_now();
  task.finished_seconds = now;
  record(*job, t, "finished");
  energy_joules_ += joules;
  if (std::all_of(job->record.tasks.begin(), job->record.tasks.end(),
                  [](const auto& x) { return x.state == ServiceTaskState::completed; }))
    finish_job(*job, ServiceJobState::completed, {});
}

void ControlPlane::handle_cancels() {
  std::deque<std::uint64_t> requests;
  {
    std::lock_guard lock(mutex_);
    requests.swap(cancel_requests_);
  }
  for (std::uint64_t id : requests) {
    const auto it = live_.find(id);
    if (it == live_.end()) {  // its end is stored already
      store_.erase(cancel_key(id));
      continue;
    }
    stored_cancels_.insert(id);  // the key goes once the job's end is stored
    if (is_terminal(it->second->record.state))
      mark_dirty(id);
    else
      finish_job(*it->second, ServiceJobState::cancelled, "cancelled by request");
  }
}

void ControlPlane::handle_engine_reports(const std::vector<EngineTaskStatus>& reports,
                                         bool first_after_recovery) {
  // A round-mode stream job keeps the start of its first lease.
  const auto later_lease = [](const LiveJob& job, const ServiceTask& task) {
    return job.record.stream_steps_left.has_value() && task.started_seconds.has_value();
  };
  std::set<std::string> reported;
  std::map<std::string, std::pair<std::uint64_t, std::uint32_t>> next_attempts;
  if (first_after_recovery) {
    // A task launched just before a crash, whose launch was not yet recorded, comes
    // back under the key of its next attempt: adopt it rather than launch it twice.
    for (auto& [id, job] : live_)
      for (std::uint32_t t = 0; t < job->record.tasks.size(); ++t)
        if (job->record.tasks[t].state == ServiceTaskState::planned)
          next_attempts[launch_key(id, t, job->record.tasks[t].attempts + 1)] = {id, t};
  }
  for (const EngineTaskStatus& status : reports) {
    reported.insert(status.task_key);
    auto it = launched_.find(status.task_key);
    if (it == launched_.end()) {
      const auto adopted = next_attempts.find(status.task_key);
      if (adopted == next_attempts.end()) continue;  // a task this service ended already
      LiveJob& job = *live_.at(adopted->second.first);
      const std::uint32_t t = adopted->second.second;
      ServiceTask& task = job.record.tasks[t];
      ++task.attempts;
      task.launch_key = status.task_key;
      task.engine_id = status.engine_id;
      task.state = ServiceTaskState::launched;
      record(job, t, "launched", "adopted after a restart");
      it = launched_.emplace(status.task_key, adopted->second).first;
      occupy(adopted->second.first, t);
    }
    const auto [id, t] = it->second;
    const auto live = live_.find(id);
    if (live == live_.end()) {  // its job has ended; nothing more to learn
      launched_.erase(it);
      continue;
    }
    LiveJob& job = *live->second;
    ServiceTask& task = job.record.tasks[t];
    switch (status.state) {
      case EngineTaskState::pending:
        break;
      case EngineTaskState::running:
        if (task.state == ServiceTaskState::launched) {
          task.state = ServiceTaskState::running;
          if (!later_lease(job, task)) {
            task.started_at_unix_seconds = unix_now();
            task.started_seconds = status.started_seconds.value_or(model_now());
          }
          record(job, t, "started");
          if (job.record.state == ServiceJobState::queued)
            job.record.state = ServiceJobState::running;
        }
        break;
      case EngineTaskState::completed: {
        if (task.state == ServiceTaskState::launched) {
          if (!later_lease(job, task)) {
            task.started_at_unix_seconds = unix_now();
            task.started_seconds = status.started_seconds.value_or(model_now());
          }
          record(job, t, "started");
        }
        if (t < job.joules.size()) energy_joules_ += job.joules[t];
        launched_.erase(it);
        release(id, t);
        if (!run_ends_job(job.record)) {
          // A round's lease ended and the job goes on: it waits for the next round.
          task.state = ServiceTaskState::waiting;
          job.record.stream_round_steps = 0;  // its work is done: the checkpoint is reached
          record(job, t, "round over",
                 fmt::format("{:.0f} steps left", *job.record.stream_steps_left));
          break;
        }
        task.state = ServiceTaskState::completed;
        task.finished_at_unix_seconds = unix_now();
        task.finished_seconds = status.ended_seconds.value_or(model_now());
        record(job, t, "finished");
        if (job.in_loop(t)) loop_->task_finished(job.global(t), model_now());
        if (job.stream_slot)  // queue mode: its devices are free in the core too
          stream_core(job.record.policy)
              .scheduler->finish(*job.stream_slot, task.finished_seconds.value_or(model_now()));
        const bool all_done =
            std::all_of(job.record.tasks.begin(), job.record.tasks.end(),
                        [](const auto& x) { return x.state == ServiceTaskState::completed; });
        if (all_done) finish_job(job, ServiceJobState::completed, {});
        break;
      }
      case EngineTaskState::failed:
      case EngineTaskState::cancelled:
        if (!task.started_seconds && status.started_seconds)  // it ran, then failed
          task.started_seconds = status.started_seconds;
        launched_.erase(it);
        release(id, t);
        task_failed(job, t,
                    status.reason.empty() ? std::string("the engine ended it") : status.reason);
        break;
    }
  }
  if (!first_after_recovery) return;
  // Launched before the restart and unknown to the engine now: launch again.
  for (auto it = launched_.begin(); it != launched_.end();) {
    if (reported.count(it->first) != 0) {
      ++it;
      continue;
    }
    const auto [id, t] = it->second;
    const auto live = live_.find(id);
    if (live == live_.end()) {
      it = launched_.erase(it);
      continue;
    }
    LiveJob& job = *live->second;
    ServiceTask& task = job.record.tasks[t];
    release(id, t);
    task.state = ServiceTaskState::waiting;
    record(job, t, "lost", "the engine no longer knows the task; it is planned again");
    it = launched_.erase(it);
  }
}

void ControlPlane::task_failed(LiveJob& job, std::uint32_t t, const std::string& reason) {
  ++stream_epoch_;
  if (job.record.stream) stream_run_lost(job);
  ServiceTask& task = job.record.tasks[t];
  ++failures_;
  ++task.retries;
  task.state = ServiceTaskState::waiting;
  record(job, t, "failed", reason);
  if (task.retries > options_.max_task_retries) {
    finish_job(job, ServiceJobState::failed,
               fmt::format("task '{}' failed {} times; last: {}", task.name, task.retries, reason));
    return;
  }
  if (job.in_loop(t)) {  // the policy places it again
    loop_->unplace(job.global(t));
    loop_->offer_again(job.global(t));
  }
}

void ControlPlane::apply_stored_cancels() {
  for (const StoredRecord& stored : store_.list(kCancelPrefix)) {
    std::uint64_t id = 0;
    try {
      id = std::stoull(stored.key.substr(kCancelPrefix.size()));
    } catch (const std::exception&) {
      continue;
    }
    const auto it = live_.find(id);
    if (it == live_.end()) {  // ended (and stored) before the restart, or unknown
      store_.erase(stored.key);
      continue;
    }
    stored_cancels_.insert(id);
    finish_job(*it->second, ServiceJobState::cancelled, "cancelled by request");
  }
}

std::vector<std::uint64_t> ControlPlane::submit_stream(const std::string& text,
                                                       std::string_view policy_name) {
  const std::string policy(policy_name.empty() ? options_.default_stream_policy : policy_name);
  if (!is_stream_policy(policy))
    throw InputError(SourcePosition{"policy"},
                     unknown_name_message("stream policy", policy, stream_policy_names()));
  std::vector<StreamJob> jobs = parse_stream_submission(text, options_.workload_limits.max_jobs);
  std::shared_ptr<const Cluster> cluster;
  {
    std::lock_guard lock(mutex_);
    cluster = parse_cluster_;
  }
  if (!cluster) throw StateStoreError("the control plane has not started");
  // Each job must fit on one node for some type it has a rate for: the largest group of
  // one model on one node, over the nodes the engine knows (up or not).
  std::map<std::string, std::uint32_t> largest_group;  // lowercase model -> devices
  std::set<std::string> model_names;
  for (const Node& node : cluster->nodes()) {
    std::map<std::string, std::uint32_t> on_node;
    for (DeviceId d : node.devices) ++on_node[lowercase(cluster->device(d).spec.model)];
    for (DeviceId d : node.devices) model_names.insert(cluster->device(d).spec.model);
    for (const auto& [model, count] : on_node)
      largest_group[model] = std::max(largest_group[model], count);
  }
  const std::vector<std::string> known(model_names.begin(), model_names.end());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const StreamJob& job = jobs[i];
    bool fits = false;
    for (const auto& [type, rate] : job.steps_per_second) {
      const auto group = largest_group.find(lowercase(type));
      if (group == largest_group.end()) {
        if (rate > 0 && std::none_of(job.steps_per_second.begin(), job.steps_per_second.end(),
                                     [&](const auto& other) {
                                       return other.second > 0 &&
                                              largest_group.count(lowercase(other.first)) != 0;
                                     }))
          throw InputError(SourcePosition{fmt::format("body.jobs[{}].rates.{}", i, type)},
                           unknown_name_message("device model", type, known));
        continue;
      }
      fits = fits || (rate > 0 && group->second >= static_cast<std::uint32_t>(job.gang_size));
    }
    if (!fits)
      throw InputError(SourcePosition{fmt::format("body.jobs[{}].gang", i)},
                       fmt::format("no node holds {} devices of one type this job has a rate "
                                   "for; gangs run on one node",
                                   job.gang_size));
  }

  const auto count = static_cast<std::uint32_t>(jobs.size());
  const ServiceSubmission submission = new_submission(count, policy, true, text);
  std::vector<std::unique_ptr<LiveJob>> live_jobs;
  for (std::uint32_t j = 0; j < count; ++j) {
    auto live = std::make_unique<LiveJob>();
    live->record = new_job_record(submission, j, jobs[j].name);
    live->record.tasks.push_back({.name = jobs[j].name});
    live->record.stream = std::move(jobs[j]);
    live->joules.assign(1, 0);
    live->arrived_seconds = submission_now();
    live_jobs.push_back(std::move(live));
  }
  return acknowledge(submission, std::move(live_jobs));
}

std::vector<DeviceId> ControlPlane::devices_of(const ServiceTask& task) const {
  std::vector<DeviceId> devices;
  const auto add = [&](const std::string& name) {
    if (const auto d = device_ids_.find(name); d != device_ids_.end()) devices.push_back(d->second);
  };
  if (task.gang_devices.empty())
    add(task.device);
  else
    for (const std::string& name : task.gang_devices) add(name);
  return devices;
}

// A gang's devices are reserved in the loop too, so policies see them busy until the
// gang's predicted end; a DAG task's device is the loop's own bookkeeping.
void ControlPlane::occupy(std::uint64_t id, std::uint32_t t) {
  const LiveJob& job = *live_.at(id);
  const ServiceTask& task = job.record.tasks[t];
  const double until = model_now() + task.expected_seconds;
  for (DeviceId d : devices_of(task)) {
    holder_[d] = TaskRef{id, t};
    if (job.record.stream) loop_->reserve(d, until);
  }
}

void ControlPlane::release(std::uint64_t id, std::uint32_t t) {
  ++stream_epoch_;
  const auto live = live_.find(id);
  if (live == live_.end()) return;
  const ServiceTask& task = live->second->record.tasks[t];
  for (DeviceId d : devices_of(task)) {
    if (holder_[d] != TaskRef{id, t}) continue;
    holder_[d].reset();
    if (live->second->record.stream) loop_->unreserve(d, model_now());
  }
}

// Stream jobs (gangs) are decided by the one job-stream core, StreamScheduler — the code
// `hetsched simulate` runs a job stream through — one per stream policy in use, kept for
// as long as the service runs, on the model clock. A job joins its policy's core when it
// arrives (its `arrival` counts from its submission, its deadline too); before each
// decision the core is told which devices are not free for reasons it does not know
// (down, held by a DAG task or another policy's gang, a DAG task queued there). It
// decides in pack mode: an engine launches a task on one node. Queue-mode policies start
// gangs that run to completion (EASY backfilling with `--backfill`); round-mode policies
// run in rounds, as in Gavel: at each round boundary the core chooses who runs where,
// and the service launches each chosen gang as a lease of one round (or until it
// finishes); a job moved between rounds pays the migration (checkpoint/restart) time.
// A job the core rejects (no type of the cluster holds it) fails with the core's reason.
ControlPlane::StreamCore& ControlPlane::stream_core(const std::string& policy) {
  auto& core = stream_cores_[policy];
  if (!core) {
    core = std::make_unique<StreamCore>();
    core->policy = make_stream_policy(policy);
    StreamSchedulerOptions options;
    options.gang_spread = GangSpread::one_node;
    options.easy_backfilling = options_.stream_easy_backfilling;
    options.device_placement = options_.stream_device_placement;
    options.round_seconds = options_.stream_round_seconds;
    options.migration_seconds = options_.stream_migration_seconds;
    core->scheduler =
        std::make_unique<StreamScheduler>(stream_resources(cluster_), *core->policy, options);
    core->cluster_devices = cluster_.device_count();
  }
  return *core;
}

void ControlPlane::join_stream_core(LiveJob& job, double now) {
  job.joined_stream_core = true;
  StreamCore& core = stream_core(job.record.policy);
  StreamScheduler& scheduler = *core.scheduler;
  const bool rounds = scheduler.mode() == StreamPolicyMode::round;
  ServiceTask& task = job.record.tasks[0];
  const bool running = task.state != ServiceTaskState::waiting;  // a restart found it running
  StreamJob stream = *job.record.stream;
  const double submitted = job.arrived_seconds - stream.arrival_seconds;
  if (stream.deadline_seconds) *stream.deadline_seconds += submitted;
  if (rounds && job.record.stream_steps_left) {
    // A restart: it resumes from the last checkpoint reached — the end of the round its
    // lease still runs in, or of the round before when that lease was lost.
    double left = *job.record.stream_steps_left;
    if (!running) {
      left += job.record.stream_round_steps;
      job.record.stream_round_steps = 0;
      job.record.stream_steps_left = left;
    }
    if (run_ends_job(job.record)) return;  // its running lease ends it
    stream.total_steps = left;
  }
  job.stream_slot = scheduler.submit(stream, job.arrived_seconds);
  core.job_ids.push_back(job.record.id);
  const StreamJobStatus& status = scheduler.job(*job.stream_slot);
  if (status.state == StreamJobState::rejected) {
    finish_job(job, ServiceJobState::failed, status.rejection_reason);
    return;
  }
  if (rounds && core.next_round == kNever) core.next_round = scheduler.round_boundary_from(now);
  if (!running || rounds) return;
  // Queue mode: the gang the engine runs holds its devices in the core too.
  const std::vector<DeviceId> devices = devices_of(task);
  if (devices.empty()) return;
  const Device& first = cluster_.device(devices.front());
  const auto& nodes = scheduler.resources().nodes;
  for (std::size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].cluster_node == first.node &&
        scheduler.resources().types[nodes[n].type].model == first.spec.model) {
      scheduler.adopt(
          *job.stream_slot,
          StreamPlacement{
              nodes[n].type, {{static_cast<int>(n), static_cast<int>(devices.size())}}, -1, {}},
          task.started_seconds.value_or(task.planned_start_seconds), now);
      break;
    }
}

bool ControlPlane::plan_stream_jobs() {
  if (live_stream_jobs_ == 0) return false;
  const double now = model_now();
  // Arrived jobs join their policy's core, in id order; each policy is decided in the
  // order of its oldest live job.
  std::map<std::string, std::uint64_t> oldest;
  for (auto& [id, live] : live_) {
    LiveJob& job = *live;
    if (!job.record.stream || is_terminal(job.record.state) || job.arrived_seconds > now) continue;
    if (!job.joined_stream_core) join_stream_core(job, now);
    if (!is_terminal(job.record.state)) oldest.emplace(job.record.policy, id);
  }
  const bool round_due = std::any_of(stream_cores_.begin(), stream_cores_.end(),
                                     [&](const auto& c) { return c.second->next_round <= now; });
  if (!round_due && stream_planned_epoch_ == stream_epoch_) return false;
  stream_planned_epoch_ = stream_epoch_;
  std::vector<std::pair<std::uint64_t, std::string>> order;
  for (const auto& [policy, first] : oldest) order.push_back({first, policy});
  std::sort(order.begin(), order.end());
  std::set<DeviceId> taken;  // placed in this decision
  std::size_t placed = 0;
  for (const auto& [first, policy] : order) {
    const auto began = std::chrono::steady_clock::now();
    const std::size_t now_placed = decide_stream_core(policy, stream_core(policy), now, taken);
    placed += now_placed;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::lock_guard lock(mutex_);
    deciding_seconds_ += elapsed;
    decisions_ += now_placed;
    latency_samples_.push_back(elapsed);
    ++planning_calls_;
    if (latency_samples_.size() > 2 * kLatencyWindow)
      latency_samples_.erase(latency_samples_.begin(),
                             latency_samples_.end() - static_cast<std::ptrdiff_t>(kLatencyWindow));
  }
  return placed > 0;
}

std::size_t ControlPlane::decide_stream_core(const std::string& policy, StreamCore& core,
                                             double now, std::set<DeviceId>& taken) {
  StreamScheduler& scheduler = *core.scheduler;
  if (core.cluster_devices != cluster_.device_count()) {  // nodes were registered
    scheduler.grow(stream_resources(cluster_));
    core.cluster_devices = cluster_.device_count();
  }
  // The gang of this core's job on a device, if the core placed it there.
  const auto held_by_core = [&](DeviceId d) {
    if (!holder_[d]) return false;
    const auto live = live_.find(holder_[d]->first);
    return live != live_.end() && live->second->record.policy == policy &&
           live->second->stream_slot &&
           !scheduler.job(*live->second->stream_slot).placement.nodes.empty();
  };
  const auto& nodes = scheduler.resources().nodes;
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    int unavailable = 0;
    for (DeviceId d : cluster_.node(nodes[n].cluster_node).devices)
      if (cluster_.device(d).spec.model == scheduler.resources().types[nodes[n].type].model &&
          !free_for_gang(d, taken) && !held_by_core(d))
        ++unavailable;
    scheduler.set_unavailable(n, unavailable);
  }
  const auto job_at = [&](std::size_t j) -> LiveJob* {
    const auto live = live_.find(core.job_ids[j]);
    return live == live_.end() ? nullptr : live->second.get();
  };
  std::size_t placed = 0;
  if (scheduler.mode() == StreamPolicyMode::queue) {
    for (const StreamStart& start : scheduler.schedule(now)) {
      LiveJob* job = job_at(start.job);
      if (job == nullptr) continue;
      place_gang(*job, scheduler, start.placement, start.seconds, "", taken);
      ++placed;
    }
    return placed;
  }
  if (core.next_round > now) return 0;
  // A round begins once every lease of the last one has ended (an engine may end one
  // late: the round then waits for it).
  for (const auto& [id, live] : live_)
    if (live->record.policy == policy && live->stream_slot && !is_terminal(live->record.state) &&
        live->record.tasks[0].state != ServiceTaskState::waiting)
      return 0;
  const std::vector<StreamSegment> segments = scheduler.run_round(now);
  core.next_round = scheduler.round_pending() ? now + options_.stream_round_seconds : kNever;
  for (const StreamSegment& segment : segments) {
    LiveJob* job = job_at(segment.job);
    if (job == nullptr) continue;
    job->record.stream_steps_left = scheduler.job(segment.job).remaining;
    job->record.stream_round_steps = scheduler.last_round_steps(segment.job);
    place_gang(*job, scheduler, segment.placement, segment.seconds,
               fmt::format("round {}{}{}", scheduler.rounds(),
                           segment.moved ? ", moved (checkpoint and restart)" : "",
                           segment.finishes ? ", its last" : ""),
               taken);
    ++placed;
  }
  return placed;
}

bool ControlPlane::free_for_gang(DeviceId d, const std::set<DeviceId>& taken) const {
  return node_up_[cluster_.device(d).node] && !holder_[d] && taken.count(d) == 0 &&
         loop_->device_idle(d);
}

// The core's placement (one node, `gang` devices of one model) on named devices: the
// node's first free devices of that model, in device order.
void ControlPlane::place_gang(LiveJob& job, const StreamScheduler& scheduler,
                              const StreamPlacement& placement, double seconds,
                              const std::string& detail, std::set<DeviceId>& taken) {
  const StreamResources& resources = scheduler.resources();
  const StreamJob& stream = *job.record.stream;
  const StreamNode& node = resources.nodes[static_cast<std::size_t>(placement.nodes.front().first)];
  const std::string& model = resources.types[placement.type].model;
  const auto gang = static_cast<std::size_t>(stream.gang_size);
  std::vector<DeviceId> devices;
  for (DeviceId d : cluster_.node(node.cluster_node).devices)
    if (devices.size() < gang && cluster_.device(d).spec.model == model && free_for_gang(d, taken))
      devices.push_back(d);
  ServiceTask& task = job.record.tasks[0];
  const bool moved = !task.device.empty() && detail.empty();
  task.gang_devices.clear();
  for (DeviceId d : devices) {
    task.gang_devices.push_back(cluster_.device(d).name);
    taken.insert(d);
  }
  const Device& first = cluster_.device(devices.front());
  task.device = first.name;
  task.node = cluster_.node(first.node).name;
  task.planned_start_seconds = model_now();
  task.expected_seconds = seconds;
  task.state = ServiceTaskState::planned;
  job.joules[0] = first.spec.peak_watts * static_cast<double>(gang) * seconds;
  if (!job.record.reason.empty()) job.record.reason.clear();
  occupy(job.record.id, 0);
  record(job, 0, detail.empty() ? (moved ? "replanned" : "planned") : "round",
         fmt::format("by {}{}{}: gang of {} x {} on {}, {:.3f} s", job.record.policy,
                     detail.empty() ? "" : ", ", detail, gang, model, task.node, seconds));
  if (moved) ++replans_;
}

void ControlPlane::stream_run_lost(LiveJob& job) {
  if (!job.stream_slot) {
    // A restart found it on its last lease, now lost: it joins its core again, from the
    // checkpoint before that lease.
    job.joined_stream_core = false;
    return;
  }
  const auto core = stream_cores_.find(job.record.policy);
  if (core == stream_cores_.end()) return;
  StreamScheduler& scheduler = *core->second->scheduler;
  scheduler.requeue(*job.stream_slot, model_now());
  if (scheduler.mode() == StreamPolicyMode::round) {
    job.record.stream_steps_left = scheduler.job(*job.stream_slot).remaining;
    job.record.stream_round_steps = 0;
  }
}

void ControlPlane::launch_planned_gangs() {
  if (live_stream_jobs_ == 0) return;
  for (auto& [id, live] : live_) {
    LiveJob& job = *live;
    if (!job.record.stream || is_terminal(job.record.state)) continue;
    ServiceTask& task = job.record.tasks[0];
    if (task.state != ServiceTaskState::planned) continue;
    const auto model_device = device_ids_.find(task.device);
    if (model_device == device_ids_.end() ||
        !node_up_[cluster_.device(model_device->second).node]) {  // its node is no longer up
      release(id, 0);
      stream_run_lost(job);
      task.state = ServiceTaskState::waiting;
      ++task.retries;
      record(job, 0, "moved", fmt::format("node {} is no longer up", task.node));
      if (task.retries > options_.max_task_retries)
        finish_job(job, ServiceJobState::failed,
                   fmt::format("task '{}' was moved {} times", task.name, task.retries));
      continue;
    }
    const DeviceSpec& spec = cluster_.device(model_device->second).spec;
    ++task.attempts;
    task.launch_key = launch_key(id, 0, task.attempts);
    const EngineLaunch launch{task.launch_key,
                              task.node,
                              spec.kind,
                              spec.model,
                              static_cast<std::uint32_t>(task.gang_devices.size()),
                              task.expected_seconds};
    try {
      task.engine_id = engine_.launch(launch);
    } catch (const EngineError& e) {
      release(id, 0);
      task_failed(job, 0, fmt::format("launch refused: {}", e.what()));
      continue;
    }
    task.state = ServiceTaskState::launched;
    record(job, 0, "launched", fmt::format("engine id {}", task.engine_id));
    launched_[task.launch_key] = {id, 0};
    if (job.record.state == ServiceJobState::queued) job.record.state = ServiceJobState::running;
  }
}

// Each device runs its placed tasks in planned order: the head is launched once the
// device is idle and its inputs are done (a later task never overtakes it).
void ControlPlane::dispatch() {
  const double now = model_now();
  for (auto it = queued_devices_.begin(); it != queued_devices_.end();) {
    const DeviceId d = *it;
    PlannedQueue& queue = device_queues_[d];
    while (!queue.empty() && !holder_[d]) {
      const TaskIndex g = queue.front().task;
      // Stale: the loop took it off this device (device down, failed, job ended) or
      // an earlier entry of the same task launched it.
      if (loop_->placement(g) != d || loop_->state(g) != TaskState::placed) {
        queue.pop_front();
        continue;
      }
      const auto preds = graph_.predecessors(g);
      if (!std::all_of(preds.begin(), preds.end(), [&](const Dependency& p) {
            return loop_->state(p.task) == TaskState::finished;
          }))
        break;
      queue.pop_front();
      const auto [job, t] = task_of(g);
      if (job == nullptr) continue;
      ServiceTask& task = job->record.tasks[t];
      const DeviceSpec& spec = cluster_.device(d).spec;
      ++task.attempts;
      task.launch_key = launch_key(job->record.id, t, task.attempts);
      const EngineLaunch launch{task.launch_key, task.node, spec.kind,
                                spec.model,      1,         task.expected_seconds};
      try {
        task.engine_id = engine_.launch(launch);
      } catch (const EngineError& e) {
        task_failed(*job, t, fmt::format("launch refused: {}", e.what()));
        continue;
      }
      loop_->task_started(g, now);
      task.state = ServiceTaskState::launched;
      record(*job, t, "launched", fmt::format("engine id {}", task.engine_id));
      launched_[task.launch_key] = {job->record.id, t};
      holder_[d] = TaskRef{job->record.id, t};
      if (job->record.state == ServiceJobState::queued)
        job->record.state = ServiceJobState::running;
    }
    it = queue.empty() ? queued_devices_.erase(it) : std::next(it);
  }
  // A task offered again during dispatch (a refused launch) is placed at the next step.
}

void ControlPlane::finish_job(LiveJob& job, ServiceJobState state, std::string reason) {
  ++stream_epoch_;
  if (job.stream_slot && state != ServiceJobState::completed)
    stream_core(job.record.policy).scheduler->withdraw(*job.stream_slot, model_now());
  std::vector<DeviceId> stop_on_twin;  // once no task of the job can start in its place
  for (std::uint32_t t = 0; t < job.record.tasks.size(); ++t) {
    ServiceTask& task = job.record.tasks[t];
    if (task.state == ServiceTaskState::completed) continue;
    if (task.state == ServiceTaskState::planned && job.record.stream) release(job.record.id, t);
    if (twin_ != nullptr && !job.record.stream && task.state == ServiceTaskState::running &&
        job.in_loop(t)) {
      const DeviceId d = loop_->placement(job.global(t));
      if (d != kUnplaced && twin_->simulator().running_on(d) == job.global(t))
        stop_on_twin.push_back(d);
    } else if (task.state == ServiceTaskState::launched ||
               task.state == ServiceTaskState::running) {
      try {
        engine_.cancel(task.launch_key);
      } catch (const EngineError& e) {
        service_log().warn("cancel of {} failed: {}", task.launch_key, e.what());
      }
      launched_.erase(task.launch_key);
      release(job.record.id, t);
    }
    if (job.in_loop(t)) loop_->cancel(job.global(t));  // never offered again
    task.state =
        state == ServiceJobState::failed ? ServiceTaskState::failed : ServiceTaskState::cancelled;
    record(job, t, "cancelled", reason);
  }
  for (DeviceId d : stop_on_twin) {
    twin_->simulator().stop(d);
    holder_[d].reset();
  }
  job.record.state = state;
  job.record.reason = std::move(reason);
  job.record.finished_at_unix_seconds = unix_now();
  mark_dirty(job.record.id);
}

void ControlPlane::record(LiveJob& job, std::uint32_t t, std::string event, std::string detail) {
  ServiceTask& task = job.record.tasks[t];
  task.history.push_back({unix_now(), std::move(event), task.device, task.node, std::move(detail)});
  mark_dirty(job.record.id);
  dirty_pages_.insert({job.record.id, t / kTasksPerPage});
}

void ControlPlane::mark_dirty(std::uint64_t id) { dirty_.insert(id); }

void ControlPlane::flush() {
  std::vector<ServiceJob> changed;
  if (!dirty_.empty()) {
    // Each changed job's header and the pages of its tasks that changed.
    std::vector<StoredRecord> records;
    auto page = dirty_pages_.begin();
    for (std::uint64_t id : dirty_) {
      const auto it = live_.find(id);
      for (; page != dirty_pages_.end() && page->first <= id; ++page)
        if (page->first == id && it != live_.end())
          records.push_back(stored_task_page(it->second->record, page->second));
      if (it != live_.end()) records.push_back(stored_job_header(it->second->record));
    }
    store_.put(records);  // the pages before the header that counts them
    for (std::uint64_t id : dirty_) {
      const auto it = live_.find(id);
      if (it == live_.end()) continue;
      changed.push_back(it->second->record);
      if (is_terminal(it->second->record.state)) {
        if (it->second->record.stream) --live_stream_jobs_;
        forget_ended(it->second->record);
        live_.erase(it);
        // The job's end is durable: its cancel request has been carried out.
        if (stored_cancels_.erase(id) != 0) store_.erase(cancel_key(id));
      }
    }
    dirty_.clear();
    dirty_pages_.clear();
  }
  publish(std::move(changed));
}

ServiceSubmission ControlPlane::new_submission(std::uint32_t jobs, const std::string& policy,
                                               bool stream, const std::string& text) {
  return {.first_id = store_.reserve_sequence("jobs", jobs),
          .jobs = jobs,
          .policy = policy,
          .stream = stream,
          .submitted_at_unix_seconds = unix_now(),
          .text = text};
}

std::vector<std::uint64_t> ControlPlane::acknowledge(const ServiceSubmission& submission,
                                                     std::vector<std::unique_ptr<LiveJob>> jobs) {
  // Durable before anyone hears of the ids: the text once, however many jobs it gives.
  store_.put(std::vector<StoredRecord>{
      {service_submission_key(submission.first_id), to_stored_text(submission)}});
  std::vector<std::uint64_t> ids;
  {
    std::lock_guard lock(mutex_);
    for (auto& live : jobs) {
      ids.push_back(live->record.id);
      view_[live->record.id] = live->record;
      submitted_.push_back(std::move(live));
    }
    submitted_total_ += jobs.size();
  }
  wake_.notify_one();
  tell_change();
  return ids;
}

void ControlPlane::forget_ended(const ServiceJob& record) {
  const auto it = live_in_submission_.find(record.submission);
  if (it == live_in_submission_.end() || --it->second != 0) return;
  live_in_submission_.erase(it);
  store_.erase(service_submission_key(record.submission));
}

void ControlPlane::publish_job(const LiveJob& job) {
  {
    std::lock_guard lock(mutex_);
    view_[job.record.id] = job.record;
  }
  tell_change();
}

void ControlPlane::set_change_listener(std::function<void()> listener) {
  auto shared =
      listener ? std::make_shared<const std::function<void()>>(std::move(listener)) : nullptr;
  std::lock_guard lock(mutex_);
  change_listener_ = std::move(shared);
}

void ControlPlane::tell_change() {
  std::shared_ptr<const std::function<void()>> listener;
  {
    std::lock_guard lock(mutex_);
    listener = change_listener_;
  }
  if (listener) (*listener)();
}

void ControlPlane::publish(std::vector<ServiceJob> changed) {
  const bool any_changed = !changed.empty();
  ServiceMetrics m;
  for (const auto& [id, job] : live_)
    for (const ServiceTask& t : job->record.tasks) {
      if (t.state == ServiceTaskState::waiting || t.state == ServiceTaskState::planned)
        ++m.queue_length;
      if (t.state == ServiceTaskState::launched || t.state == ServiceTaskState::running)
        ++m.running_tasks;
    }
  for (const Device& d : cluster_.devices()) {
    if (!node_up_[d.node]) continue;
    const auto kind = static_cast<std::size_t>(d.spec.kind);
    ++m.devices_by_kind[kind];
    m.busy_devices_by_kind[kind] += holder_[d.id].has_value();
  }
  {
    // Readers see the jobs and the metrics of one moment: a job reads as ended only
    // together with metrics that no longer count its tasks.
    std::lock_guard lock(mutex_);
    for (ServiceJob& job : changed) view_[job.id] = std::move(job);
    m.jobs_submitted_total = submitted_total_;
    m.energy_joules = energy_joules_;
    m.decisions_total = decisions_;
    m.decisions_per_second =
        deciding_seconds_ > 0 ? static_cast<double>(decisions_) / deciding_seconds_ : 0;
    m.task_failures_total = failures_;
    m.replans_total = replans_;
    metrics_ = m;
  }
  if (any_changed) tell_change();
}

}  // namespace hetsched
