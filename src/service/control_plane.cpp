#include "hetsched/service/control_plane.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/quantile.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/policy_registry.hpp"
#include "hetsched/service/simulated_engine.hpp"
#include "hetsched/service/stream_submission.hpp"

namespace hetsched {
namespace {

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string launch_key(std::uint64_t job, std::uint32_t task, std::uint32_t attempt) {
  return fmt::format("job-{}/task-{}/attempt-{}", job, task, attempt);
}

// The nodes as a cluster model: each device group becomes `count` devices with the
// resolved datasheet (a group whose model is unknown is left out). Links and network
// keep the model's defaults: engines do not report them.
Cluster cluster_of(const std::vector<EngineNode>& nodes, const DeviceSpecResolver& resolve,
                   bool up_only) {
  Cluster cluster;
  for (const EngineNode& engine_node : nodes) {
    if (up_only && engine_node.state != EngineNodeState::up) continue;
    Node node;
    node.name = engine_node.name;
    node.host_memory_bytes = engine_node.memory_bytes;
    std::vector<DeviceSpec> devices;
    for (const EngineDeviceGroup& group : engine_node.devices) {
      const std::optional<DeviceSpec> spec = resolve(group.kind, group.model);
      if (!spec) continue;
      devices.insert(devices.end(), group.count, *spec);
    }
    cluster.add_node(std::move(node), devices);
  }
  return cluster;
}

// Collects a policy's decisions for one planning call and checks each one.
class PlanSink final : public AssignmentSink {
 public:
  PlanSink(const TaskGraph& graph, const PerfModel& perf, std::vector<DeviceId>& placement,
           std::vector<std::uint8_t>& pstate, std::vector<TaskState>& state,
           std::vector<double>& finish, std::vector<double>& start,
           std::vector<double>& device_available)
      : graph_(graph),
        perf_(perf),
        placement_(placement),
        pstate_(pstate),
        state_(state),
        finish_(finish),
        start_(start),
        device_available_(device_available) {}

  void assign(const Assignment& a) override {
    const Cluster& cluster = perf_.cluster();
    if (a.task >= graph_.task_count() || a.device >= cluster.device_count() ||
        placement_[a.task] != kUnplaced)
      return refuse();
    const Device& device = cluster.device(a.device);
    const Task& task = graph_.task(a.task);
    const std::uint8_t p = a.pstate < device.spec.pstates.size() ? a.pstate : 0;
    const double seconds = perf_.task_seconds(task, device, p);
    if (!std::isfinite(seconds) || !task.allowed_kinds.contains(device.spec.kind)) return refuse();
    double begin = a.planned_start_seconds;
    if (begin < 0) {  // kAppend: after the device's work and the inputs' arrival
      begin = device_available_[a.device];
      for (const Dependency& d : graph_.predecessors(a.task)) {
        if (placement_[d.task] == kUnplaced) return refuse();
        begin = std::max(
            begin, finish_[d.task] + perf_.transfer_seconds(d.bytes, placement_[d.task], a.device));
      }
    }
    placement_[a.task] = a.device;
    pstate_[a.task] = p;
    state_[a.task] = TaskState::placed;
    start_[a.task] = begin;
    finish_[a.task] = begin + seconds;
    device_available_[a.device] = std::max(device_available_[a.device], finish_[a.task]);
    ++placed_;
  }
  std::size_t placed() const { return placed_; }
  std::size_t refused() const { return refused_; }

 private:
  void refuse() { ++refused_; }
  const TaskGraph& graph_;
  const PerfModel& perf_;
  std::vector<DeviceId>& placement_;
  std::vector<std::uint8_t>& pstate_;
  std::vector<TaskState>& state_;
  std::vector<double>& finish_;
  std::vector<double>& start_;
  std::vector<double>& device_available_;
  std::size_t placed_ = 0;
  std::size_t refused_ = 0;
};

constexpr std::size_t kLatencyWindow = 4096;  // latest planning calls in the summary
constexpr std::string_view kNodePrefix = "nodes/";
constexpr std::string_view kCancelPrefix = "cancels/";

std::string cancel_key(std::uint64_t id) { return fmt::format("{}{:012}", kCancelPrefix, id); }

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The rate a stream job gets on a device model: its `rates` entry named like the model
// (case-insensitive), 0 when it names none.
double stream_rate(const StreamJob& job, std::string_view model) {
  const std::string wanted = lowercase(model);
  for (const auto& [type, rate] : job.steps_per_second)
    if (lowercase(type) == wanted) return rate;
  return 0;
}

}  // namespace

struct ControlPlane::DeviceModel {
  explicit DeviceModel(Cluster c) : cluster(std::move(c)), perf(cluster) {
    for (const Device& d : cluster.devices()) by_name.emplace(d.name, d.id);
  }
  Cluster cluster;  // the nodes that are up
  RooflineModel perf;
  std::map<std::string, DeviceId> by_name;
};

struct ControlPlane::LiveJob {
  ServiceJob record;
  Job job;                                   // as parsed
  std::shared_ptr<const Cluster> parsed_on;  // the cluster it was parsed against
  std::vector<std::vector<std::uint32_t>> predecessors;
  std::vector<std::uint32_t> topological_rank;
  std::vector<double> joules;  // predicted, on the planned device

  // A stream job is one task (its gang) with no predecessors.
  void index_stream() {
    predecessors.assign(1, {});
    topological_rank.assign(1, 0);
    joules.assign(1, 0);
  }
  // Predecessor lists and topological ranks of the parsed job.
  void index() {
    const std::size_t n = job.tasks.size();
    predecessors.assign(n, {});
    for (const Edge& e : job.edges) predecessors[e.to].push_back(e.from);
    Workload whole;
    whole.jobs.push_back(job);
    for (Task& t : whole.jobs.back().tasks) t.cost_seconds.clear();
    const TaskGraph graph(whole);
    topological_rank.assign(n, 0);
    const std::vector<TaskIndex> order = graph.topological_order(0);
    for (std::uint32_t r = 0; r < order.size(); ++r) topological_rank[order[r]] = r;
    joules.assign(n, 0);
  }
};

ControlPlane::ControlPlane(StateStore& store, ClusterEngine& engine, Leadership& leadership,
                           ControlPlaneOptions options)
    : store_(store), engine_(engine), leadership_(leadership), options_(std::move(options)) {
  started_ = std::chrono::steady_clock::now();
  policies_.emplace(options_.default_policy,
                    make_policy(options_.default_policy, options_.policy_options));
  stream_policies_.emplace(options_.default_stream_policy,
                           make_stream_policy(options_.default_stream_policy));
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

double ControlPlane::model_now() const {
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
  const Workload workload = parse_workload(text, "body", *cluster, options_.workload_limits);
  if (workload.jobs.empty()) throw InputError(SourcePosition{"body"}, "the workload has no jobs");

  std::vector<std::unique_ptr<LiveJob>> jobs;
  std::vector<StoredRecord> records;
  std::vector<std::uint64_t> ids;
  for (std::uint32_t j = 0; j < workload.jobs.size(); ++j) {
    ServiceJob record;
    record.id = store_.next_sequence("jobs");
    record.name = workload.jobs[j].name;
    record.policy = policy;
    record.submitted_at_unix_seconds = unix_now();
    record.source_text = text;
    record.source_job = j;
    for (const Task& task : workload.jobs[j].tasks) record.tasks.push_back({.name = task.name});
    records.push_back({service_job_key(record.id), to_json(record).dump()});
    ids.push_back(record.id);
    auto live = std::make_unique<LiveJob>();
    live->record = std::move(record);
    live->job = workload.jobs[j];
    live->parsed_on = cluster;
    live->index();
    jobs.push_back(std::move(live));
  }
  acknowledge(records, std::move(jobs));
  return ids;
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
  if (options_.node_registry == nullptr)
    throw InputError(SourcePosition{"engine"},
                     fmt::format("engine '{}' reads its nodes from the cluster manager; nodes "
                                 "cannot be registered through the API",
                                 engine_.name()));
  const Cluster added = parse_cluster(
      cluster_text, "body",
      ClusterFileLimits{.max_nodes = 1000, .max_devices_per_node = 1024, .max_devices = 100'000});
  if (added.node_count() == 0) throw InputError(SourcePosition{"body"}, "no nodes given");
  options_.node_registry->add_nodes(added);  // throws on a taken name
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
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, options_.tick, [this] {
        return stopping_ || !submitted_.empty() || !cancel_requests_.empty();
      });
      if (stopping_) return;
    }
    try {
      step();
    } catch (const std::exception& e) {
      // A store or engine that fails now may answer on the next tick; nothing is
      // acknowledged that was not stored, so the loop carries on.
      std::fprintf(stderr, "hetsched serve: scheduling step failed: %s\n", e.what());
    }
  }
}

void ControlPlane::recover() {
  // Nodes registered through the API before the restart.
  if (options_.node_registry != nullptr) {
    std::set<std::string> texts;
    for (const StoredRecord& r : store_.list(kNodePrefix)) texts.insert(r.value);
    for (const std::string& text : texts) {
      try {
        options_.node_registry->add_nodes(parse_cluster(text, "stored nodes"));
      } catch (const InputError& e) {
        std::fprintf(stderr, "hetsched serve: stored nodes not re-registered: %s\n", e.what());
      }
    }
  }
  refresh_cluster(true);
  std::shared_ptr<const Cluster> parse_cluster;
  {
    std::lock_guard lock(mutex_);
    parse_cluster = parse_cluster_;
  }
  for (const StoredRecord& stored : store_.list(kServiceJobPrefix)) {
    ServiceJob record;
    try {
      record = service_job_from_json(nlohmann::json::parse(stored.value));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "hetsched serve: unreadable record %s: %s\n", stored.key.c_str(),
                   e.what());
      continue;
    }
    if (is_terminal(record.state)) {
      std::lock_guard lock(mutex_);
      view_[record.id] = std::move(record);
      continue;
    }
    const std::string text = record.source_text;
    std::unique_ptr<LiveJob> live = make_live_job(std::move(record), text, parse_cluster);
    if (!live) continue;
    LiveJob& job = *live;
    const std::uint64_t id = job.record.id;
    live_.emplace(id, std::move(live));
    bool unplanned = false;
    for (std::uint32_t t = 0; t < job.record.tasks.size(); ++t) {
      ServiceTask& task = job.record.tasks[t];
      switch (task.state) {
        case ServiceTaskState::planned:
          if (job.record.stream)
            occupy(id, t);  // a gang placed and not yet launched holds its devices
          else
            enqueue(job, t);
          break;
        case ServiceTaskState::launched:
        case ServiceTaskState::running:
          launched_[task.launch_key] = {id, t};
          occupy(id, t);
          break;
        case ServiceTaskState::waiting:
        case ServiceTaskState::failed:
          task.state = ServiceTaskState::waiting;
          unplanned = true;
          break;
        default:
          break;
      }
    }
    if (unplanned) needs_plan_.insert(id);
    publish_job(job);
  }
  apply_stored_cancels();
  handle_engine_reports(engine_.poll(), true);
  flush();
}

std::unique_ptr<ControlPlane::LiveJob> ControlPlane::make_live_job(
    ServiceJob record, const std::string& text, const std::shared_ptr<const Cluster>& parsed_on) {
  auto live = std::make_unique<LiveJob>();
  if (record.stream) {
    live->record = std::move(record);
    live->parsed_on = parsed_on;
    live->index_stream();
    return live;
  }
  try {
    Workload workload = parse_workload(text, fmt::format("job {}", record.id), *parsed_on,
                                       options_.workload_limits);
    if (record.source_job >= workload.jobs.size() ||
        workload.jobs[record.source_job].tasks.size() != record.tasks.size())
      throw InputError("the stored text no longer gives this job");
    live->job = std::move(workload.jobs[record.source_job]);
  } catch (const InputError& e) {
    // The cluster changed under the job (a node it names is gone): it cannot be re-read.
    record.state = ServiceJobState::failed;
    record.reason = fmt::format("cannot be re-read after a restart: {}", e.what());
    record.finished_at_unix_seconds = unix_now();
    store_.put(std::vector<StoredRecord>{{service_job_key(record.id), to_json(record).dump()}});
    std::lock_guard lock(mutex_);
    view_[record.id] = std::move(record);
    return nullptr;
  }
  live->record = std::move(record);
  live->parsed_on = parsed_on;
  live->index();
  return live;
}

void ControlPlane::step() {
  refresh_cluster(false);
  take_submissions();
  handle_cancels();
  handle_engine_reports(engine_.poll(), false);
  move_off_lost_nodes();
  plan_waiting_jobs();
  // A placed gang is stored before it is launched, so a restart adopts it (by its
  // next attempt's key) instead of launching it a second time.
  if (plan_stream_jobs()) flush();
  launch_planned_gangs();
  dispatch();
  flush();
}

void ControlPlane::refresh_cluster(bool force) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    force = force || nodes_changed_;
    nodes_changed_ = false;
  }
  if (!force && now - last_node_refresh_ < options_.node_refresh) return;
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
  if (model_ && same(nodes, engine_nodes_)) return;
  engine_nodes_ = nodes;
  ++stream_epoch_;
  model_ = std::make_unique<DeviceModel>(cluster_of(nodes, options_.device_spec_of, true));
  auto all = std::make_shared<const Cluster>(cluster_of(nodes, options_.device_spec_of, false));
  std::lock_guard lock(mutex_);
  parse_cluster_ = std::move(all);
  nodes_view_ = std::move(nodes);
}

void ControlPlane::take_submissions() {
  std::deque<std::unique_ptr<LiveJob>> arrived;
  {
    std::lock_guard lock(mutex_);
    arrived.swap(submitted_);
  }
  if (!arrived.empty()) ++stream_epoch_;
  for (auto& live : arrived) {
    const std::uint64_t id = live->record.id;
    needs_plan_.insert(id);
    live_.emplace(id, std::move(live));
  }
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
          task.started_at_unix_seconds = unix_now();
          record(job, t, "started");
          if (job.record.state == ServiceJobState::queued)
            job.record.state = ServiceJobState::running;
        }
        break;
      case EngineTaskState::completed: {
        if (task.state == ServiceTaskState::launched) {
          task.started_at_unix_seconds = unix_now();
          record(job, t, "started");
        }
        task.state = ServiceTaskState::completed;
        task.finished_at_unix_seconds = unix_now();
        record(job, t, "finished");
        if (t < job.joules.size()) energy_joules_ += job.joules[t];
        launched_.erase(it);
        release(id, t);
        const bool all_done =
            std::all_of(job.record.tasks.begin(), job.record.tasks.end(),
                        [](const auto& x) { return x.state == ServiceTaskState::completed; });
        if (all_done) finish_job(job, ServiceJobState::completed, {});
        break;
      }
      case EngineTaskState::failed:
      case EngineTaskState::cancelled:
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
    needs_plan_.insert(id);
    it = launched_.erase(it);
  }
}

void ControlPlane::task_failed(LiveJob& job, std::uint32_t t, const std::string& reason) {
  ++stream_epoch_;
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
  needs_plan_.insert(job.record.id);
}

void ControlPlane::move_off_lost_nodes() {
  for (auto queue = device_queues_.begin(); queue != device_queues_.end();) {
    if (model_->by_name.count(queue->first) != 0) {
      ++queue;
      continue;
    }
    // The device's node is draining, down or gone: what waits there moves.
    for (const QueueEntry& entry : queue->second) {
      const auto it = live_.find(entry.job);
      if (it == live_.end()) continue;
      LiveJob& job = *it->second;
      ServiceTask& task = job.record.tasks[entry.task];
      if (task.state != ServiceTaskState::planned || task.device != queue->first) continue;
      task.state = ServiceTaskState::waiting;
      ++task.retries;
      record(job, entry.task, "moved", fmt::format("node {} is no longer up", task.node));
      if (task.retries > options_.max_task_retries && !is_terminal(job.record.state)) {
        finish_job(job, ServiceJobState::failed,
                   fmt::format("task '{}' was moved {} times", task.name, task.retries));
        continue;
      }
      needs_plan_.insert(entry.job);
    }
    queue = device_queues_.erase(queue);
  }
}

void ControlPlane::plan_waiting_jobs() {
  const std::set<std::uint64_t> jobs = std::move(needs_plan_);
  needs_plan_.clear();
  for (std::uint64_t id : jobs) {
    const auto it = live_.find(id);
    if (it == live_.end() || is_terminal(it->second->record.state)) continue;
    if (it->second->record.stream) continue;  // gangs: plan_stream_jobs
    plan_job(*it->second, false);
  }
}

void ControlPlane::plan_job(LiveJob& job, bool) {
  ++stream_epoch_;  // queues change: a device may have become free for a gang
  const std::uint64_t id = job.record.id;
  const Cluster& cluster = model_->cluster;
  const std::size_t n = job.job.tasks.size();
  // The residual job: every task not launched, running or completed. Its planned
  // tasks leave their queues and are planned again with the others.
  std::vector<std::uint32_t> residual;
  std::vector<std::int64_t> residual_index(n, -1);
  for (std::uint32_t t = 0; t < n; ++t) {
    const ServiceTaskState s = job.record.tasks[t].state;
    if (s == ServiceTaskState::waiting || s == ServiceTaskState::planned) {
      residual_index[t] = static_cast<std::int64_t>(residual.size());
      residual.push_back(t);
    }
  }
  if (residual.empty()) return;
  for (std::uint32_t t : residual) {
    ServiceTask& task = job.record.tasks[t];
    if (task.state == ServiceTaskState::planned)
      if (auto q = device_queues_.find(task.device); q != device_queues_.end())
        q->second.erase({task.planned_start_seconds, id, job.topological_rank[t], t});
  }
  Workload workload;
  Job sub;
  sub.name = job.job.name;
  sub.family = job.job.family;
  sub.owner = job.job.owner;
  sub.priority = job.job.priority;
  sub.deadline_seconds = job.job.deadline_seconds;
  // The data node and explicit costs were given against the cluster the job was parsed
  // on; carry them over to the current model by name.
  const std::string& data_node_name = job.parsed_on->node(job.job.data_node).name;
  for (NodeId node = 0; node < cluster.node_count(); ++node)
    if (cluster.node(node).name == data_node_name) sub.data_node = node;
  for (std::uint32_t t : residual) {
    Task task = job.job.tasks[t];
    if (!task.cost_seconds.empty()) {
      std::vector<double> costs(cluster.device_count(), kCannotRun);
      for (DeviceId d = 0; d < job.parsed_on->device_count() && d < task.cost_seconds.size(); ++d)
        if (auto to = model_->by_name.find(job.parsed_on->device(d).name);
            to != model_->by_name.end())
          costs[to->second] = task.cost_seconds[d];
      task.cost_seconds = std::move(costs);
    }
    sub.tasks.push_back(std::move(task));
  }
  for (const Edge& e : job.job.edges)
    if (residual_index[e.from] >= 0 && residual_index[e.to] >= 0)
      sub.edges.push_back({static_cast<std::uint32_t>(residual_index[e.from]),
                           static_cast<std::uint32_t>(residual_index[e.to]), e.bytes});
  workload.jobs.push_back(std::move(sub));
  const TaskGraph graph(workload);
  const std::size_t m = graph.task_count();

  const double now = model_now();
  std::vector<double> available(cluster.device_count(), now);
  for (const Device& d : cluster.devices())
    if (auto pf = predicted_free_.find(d.name); pf != predicted_free_.end())
      available[d.id] = std::max(now, pf->second);
  std::vector<DeviceId> placement(m, kUnplaced);
  std::vector<std::uint8_t> pstate(m, 0);
  std::vector<TaskState> state(m, TaskState::pending);
  std::vector<double> finish(m, 0), start(m, 0);
  PlanSink sink(graph, model_->perf, placement, pstate, state, finish, start, available);

  auto& policy = policies_[job.record.policy];
  if (!policy) policy = make_policy(job.record.policy, options_.policy_options);
  const auto began = std::chrono::steady_clock::now();
  const ClusterSnapshot snapshot{now,       cluster, graph, model_->perf, available,
                                 placement, pstate,  state, finish};
  std::string problem;
  if (cluster.device_count() == 0) {
    problem = "no node is up";
  } else {
    policy->on_job_arrival(snapshot, 0, sink);
    // Online policies: offer the tasks whose predecessors are placed, as a dry run.
    for (std::size_t round = 0; round <= m && sink.placed() < m; ++round) {
      std::vector<TaskIndex> ready;
      for (TaskIndex t = 0; t < m; ++t) {
        if (placement[t] != kUnplaced) continue;
        const auto preds = graph.predecessors(t);
        if (std::all_of(preds.begin(), preds.end(),
                        [&](const Dependency& d) { return placement[d.task] != kUnplaced; })) {
          ready.push_back(t);
          state[t] = TaskState::ready;
        }
      }
      const std::size_t before = sink.placed();
      policy->on_tasks_ready(snapshot, ready, sink);
      if (sink.placed() == before) break;
    }
  }
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  {
    std::lock_guard lock(mutex_);
    deciding_seconds_ += elapsed;
    decisions_ += sink.placed();
    latency_samples_.push_back(elapsed);
    ++planning_calls_;
    if (latency_samples_.size() > 2 * kLatencyWindow)
      latency_samples_.erase(latency_samples_.begin(),
                             latency_samples_.end() - static_cast<std::ptrdiff_t>(kLatencyWindow));
  }
  if (problem.empty() && sink.placed() < m) {
    for (TaskIndex t = 0; t < m; ++t)
      if (placement[t] == kUnplaced) {
        problem = fmt::format("policy '{}' found no device that is up for task '{}'",
                              job.record.policy, graph.task(t).name);
        break;
      }
  }
  if (!problem.empty()) {
    finish_job(job, ServiceJobState::failed, problem);
    return;
  }
  for (TaskIndex r = 0; r < m; ++r) {
    const std::uint32_t t = residual[r];
    ServiceTask& task = job.record.tasks[t];
    const Device& device = cluster.device(placement[r]);
    const bool moved = !task.device.empty();
    task.device = device.name;
    task.node = cluster.node(device.node).name;
    task.planned_start_seconds = start[r];
    task.expected_seconds = finish[r] - start[r];
    task.state = ServiceTaskState::planned;
    job.joules[t] = model_->perf.task_joules(graph.task(r), device, pstate[r]);
    record(job, t, moved ? "replanned" : "planned",
           fmt::format("by {}, start {:.3f} s", job.record.policy, start[r]));
    enqueue(job, t);
    if (moved) ++replans_;
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

  std::vector<std::unique_ptr<LiveJob>> live_jobs;
  std::vector<StoredRecord> records;
  std::vector<std::uint64_t> ids;
  for (std::uint32_t j = 0; j < jobs.size(); ++j) {
    ServiceJob record;
    record.id = store_.next_sequence("jobs");
    record.name = jobs[j].name;
    record.policy = policy;
    record.submitted_at_unix_seconds = unix_now();
    record.source_text = text;
    record.source_job = j;
    record.tasks.push_back({.name = jobs[j].name});
    record.stream = jobs[j];
    records.push_back({service_job_key(record.id), to_json(record).dump()});
    ids.push_back(record.id);
    auto live = std::make_unique<LiveJob>();
    live->record = std::move(record);
    live->parsed_on = cluster;
    live->index_stream();
    live_jobs.push_back(std::move(live));
  }
  acknowledge(records, std::move(live_jobs));
  return ids;
}

const std::vector<std::string>& ControlPlane::devices_of(const ServiceTask& task) {
  if (!task.gang_devices.empty()) return task.gang_devices;
  static thread_local std::vector<std::string> one(1);
  one[0] = task.device;
  return one;
}

void ControlPlane::occupy(std::uint64_t id, std::uint32_t t) {
  const ServiceTask& task = live_.at(id)->record.tasks[t];
  for (const std::string& device : devices_of(task)) busy_devices_[device] = {id, t};
}

void ControlPlane::release(std::uint64_t id, std::uint32_t t) {
  ++stream_epoch_;
  const auto live = live_.find(id);
  if (live == live_.end()) return;
  const ServiceTask& task = live->second->record.tasks[t];
  for (const std::string& device : devices_of(task))
    if (auto busy = busy_devices_.find(device);
        busy != busy_devices_.end() && busy->second == std::make_pair(id, t))
      busy_devices_.erase(busy);
}

// Stream jobs (gangs) waiting for devices are offered to their stream policy, grouped by
// policy (groups served oldest job first). Device types are the models of the nodes
// that are up; a device is free when no task holds it and no DAG task is queued on it.
// Queue-mode policies (fifo, sjf, edf, priority, fair-share) order the jobs by their
// key and start them in that order while their gang fits, stopping at the first that
// does not (no backfilling: the head keeps its place). Round-mode policies (Gavel's
// LPs, las, srtf) give each job a time fraction per type; the service, which runs
// gangs to completion rather than in rounds, starts jobs by decreasing allocation on
// their most-allocated type that fits. A gang takes `gang` devices of one model on
// one node (the node where it fits most tightly); its expected time is steps / rate.
bool ControlPlane::plan_stream_jobs() {
  std::map<std::string, std::vector<LiveJob*>> waiting;  // by policy
  std::map<std::string, std::uint64_t> oldest;
  for (auto& [id, live] : live_) {
    if (!live->record.stream || is_terminal(live->record.state)) continue;
    if (live->record.tasks[0].state != ServiceTaskState::waiting) continue;
    waiting[live->record.policy].push_back(live.get());
    oldest.emplace(live->record.policy, id);
  }
  if (waiting.empty() || stream_planned_epoch_ == stream_epoch_) return false;
  stream_planned_epoch_ = stream_epoch_;
  const Cluster& cluster = model_->cluster;
  std::vector<std::string> types;  // models of the up devices
  std::vector<double> capacity, price;
  for (const Device& d : cluster.devices()) {
    const auto at = std::find(types.begin(), types.end(), d.spec.model);
    if (at == types.end()) {
      types.push_back(d.spec.model);
      capacity.push_back(1);
      price.push_back(d.spec.price_per_hour);
    } else {
      capacity[static_cast<std::size_t>(at - types.begin())] += 1;
    }
  }
  std::vector<std::pair<std::uint64_t, std::string>> order;
  for (const auto& [policy, first] : oldest) order.push_back({first, policy});
  std::sort(order.begin(), order.end());

  // Devices held per user, for fair share.
  std::map<std::string, std::size_t> user_index;
  std::vector<double> user_devices;
  const auto user_of = [&](const std::string& user) {
    const auto [it, added] = user_index.emplace(user, user_index.size());
    if (added) user_devices.push_back(0);
    return it->second;
  };
  for (const auto& [id, live] : live_)
    if (live->record.stream) {
      const std::size_t u = user_of(live->record.stream->user);
      const ServiceTaskState s = live->record.tasks[0].state;
      if (s == ServiceTaskState::planned || s == ServiceTaskState::launched ||
          s == ServiceTaskState::running)
        user_devices[u] += live->record.stream->gang_size;
    }

  bool placed_any = false;
  std::set<std::string> taken;
  for (const auto& [first, policy_name] : order) {
    std::vector<LiveJob*>& jobs = waiting[policy_name];
    auto& policy = stream_policies_[policy_name];
    if (!policy) policy = make_stream_policy(policy_name);
    std::vector<std::vector<double>> rates(jobs.size());
    std::vector<StreamJobView> views;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const ServiceJob& record = jobs[i]->record;
      const StreamJob& stream = *record.stream;
      for (const std::string& type : types) rates[i].push_back(stream_rate(stream, type));
      StreamJobView view;
      view.job = i;
      view.rate = &rates[i];
      view.gang_size = stream.gang_size;
      view.priority_weight = stream.priority_weight;
      view.arrival_seconds = record.submitted_at_unix_seconds;
      view.total_steps = view.remaining_steps = stream.total_steps;
      view.deadline_seconds = stream.deadline_seconds
                                  ? record.submitted_at_unix_seconds + *stream.deadline_seconds
                                  : -1;
      view.user = user_of(stream.user);
      views.push_back(view);
    }
    StreamPolicyContext context;
    context.now = unix_now();
    context.capacity = capacity;
    context.price_per_hour = price;
    context.user_running_devices = user_devices;

    const auto began = std::chrono::steady_clock::now();
    std::vector<std::size_t> ranked(jobs.size());
    for (std::size_t i = 0; i < ranked.size(); ++i) ranked[i] = i;
    std::vector<std::vector<double>> preference = rates;  // per job, per type
    const bool queue_mode = policy->mode() == StreamPolicyMode::queue;
    if (queue_mode) {
      std::vector<double> key(jobs.size());
      for (std::size_t i = 0; i < jobs.size(); ++i) key[i] = policy->queue_key(views[i], context);
      std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
        if (key[a] != key[b]) return key[a] < key[b];
        return jobs[a]->record.id < jobs[b]->record.id;
      });
    } else {
      const AllocationResult allocation = policy->allocate(views, context);
      std::vector<double> share(jobs.size(), 0);
      for (std::size_t i = 0; i < jobs.size() && i < allocation.fraction.size(); ++i)
        for (std::size_t k = 0; k < types.size() && k < allocation.fraction[i].size(); ++k) {
          share[i] += allocation.fraction[i][k];
          // The most-allocated type first, then (for types without time) the fastest.
          if (rates[i][k] > 0) preference[i][k] = allocation.fraction[i][k] * 1e12 + rates[i][k];
        }
      std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
        if (share[a] != share[b]) return share[a] > share[b];
        return jobs[a]->record.id < jobs[b]->record.id;
      });
    }
    std::size_t placed = 0;
    for (std::size_t i : ranked) {
      if (!place_gang(*jobs[i], preference[i], types, taken)) {
        if (queue_mode) break;  // the head of the queue waits for its gang
        continue;
      }
      ++placed;
      placed_any = true;
      user_devices[views[i].user] += views[i].gang_size;
    }
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    std::lock_guard lock(mutex_);
    deciding_seconds_ += elapsed;
    decisions_ += placed;
    latency_samples_.push_back(elapsed);
    ++planning_calls_;
    if (latency_samples_.size() > 2 * kLatencyWindow)
      latency_samples_.erase(latency_samples_.begin(),
                             latency_samples_.end() - static_cast<std::ptrdiff_t>(kLatencyWindow));
  }
  return placed_any;
}

bool ControlPlane::place_gang(LiveJob& job, const std::vector<double>& preference,
                              const std::vector<std::string>& types, std::set<std::string>& taken) {
  const StreamJob& stream = *job.record.stream;
  const auto gang = static_cast<std::size_t>(stream.gang_size);
  const Cluster& cluster = model_->cluster;
  std::vector<std::size_t> by_preference;
  for (std::size_t k = 0; k < types.size(); ++k)
    if (preference[k] > 0) by_preference.push_back(k);
  std::stable_sort(by_preference.begin(), by_preference.end(),
                   [&](std::size_t a, std::size_t b) { return preference[a] > preference[b]; });
  for (std::size_t k : by_preference) {
    const std::string& model = types[k];
    std::vector<DeviceId> best;
    for (NodeId n = 0; n < cluster.node_count(); ++n) {
      std::vector<DeviceId> free;
      for (DeviceId d : cluster.node(n).devices) {
        const Device& device = cluster.device(d);
        if (device.spec.model != model || busy_devices_.count(device.name) != 0 ||
            taken.count(device.name) != 0)
          continue;
        if (auto q = device_queues_.find(device.name);
            q != device_queues_.end() && !q->second.empty())
          continue;
        free.push_back(d);
      }
      if (free.size() >= gang && (best.empty() || free.size() < best.size())) best = free;
    }
    if (best.empty()) continue;
    best.resize(gang);
    const double rate = stream_rate(stream, model);
    const double seconds = stream.total_steps / rate;
    const double now = model_now();
    ServiceTask& task = job.record.tasks[0];
    const bool moved = !task.device.empty();
    task.gang_devices.clear();
    for (DeviceId d : best) {
      task.gang_devices.push_back(cluster.device(d).name);
      taken.insert(cluster.device(d).name);
      double& pf = predicted_free_[cluster.device(d).name];
      pf = std::max(pf, now + seconds);
    }
    const Device& first = cluster.device(best.front());
    task.device = first.name;
    task.node = cluster.node(first.node).name;
    task.planned_start_seconds = now;
    task.expected_seconds = seconds;
    task.state = ServiceTaskState::planned;
    job.joules[0] = first.spec.peak_watts * static_cast<double>(gang) * seconds;
    occupy(job.record.id, 0);
    record(job, 0, moved ? "replanned" : "planned",
           fmt::format("by {}: gang of {} x {} on {}, {:.3f} s at {} steps/s", job.record.policy,
                       gang, model, task.node, seconds, rate));
    if (moved) ++replans_;
    return true;
  }
  return false;
}

void ControlPlane::launch_planned_gangs() {
  for (auto& [id, live] : live_) {
    LiveJob& job = *live;
    if (!job.record.stream || is_terminal(job.record.state)) continue;
    ServiceTask& task = job.record.tasks[0];
    if (task.state != ServiceTaskState::planned) continue;
    const auto model_device = model_->by_name.find(task.device);
    if (model_device == model_->by_name.end()) {  // its node is no longer up
      release(id, 0);
      task.state = ServiceTaskState::waiting;
      ++task.retries;
      record(job, 0, "moved", fmt::format("node {} is no longer up", task.node));
      if (task.retries > options_.max_task_retries)
        finish_job(job, ServiceJobState::failed,
                   fmt::format("task '{}' was moved {} times", task.name, task.retries));
      continue;
    }
    const DeviceSpec& spec = model_->cluster.device(model_device->second).spec;
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

void ControlPlane::enqueue(LiveJob& job, std::uint32_t t) {
  const ServiceTask& task = job.record.tasks[t];
  device_queues_[task.device].insert(
      {task.planned_start_seconds, job.record.id, job.topological_rank[t], t});
  double& pf = predicted_free_[task.device];
  pf = std::max(pf, task.planned_start_seconds + task.expected_seconds);
}

void ControlPlane::dispatch() {
  for (auto& [device_name, queue] : device_queues_) {
    while (!queue.empty() && busy_devices_.count(device_name) == 0) {
      const QueueEntry head = *queue.begin();
      const auto it = live_.find(head.job);
      if (it == live_.end() || is_terminal(it->second->record.state)) {
        queue.erase(queue.begin());
        continue;
      }
      LiveJob& job = *it->second;
      ServiceTask& task = job.record.tasks[head.task];
      if (task.state != ServiceTaskState::planned || task.device != device_name ||
          task.planned_start_seconds != head.planned_start) {
        queue.erase(queue.begin());  // a stale entry: the task moved or started
        continue;
      }
      const std::vector<std::uint32_t>& preds = job.predecessors[head.task];
      const bool inputs_done = std::all_of(preds.begin(), preds.end(), [&](std::uint32_t p) {
        return job.record.tasks[p].state == ServiceTaskState::completed;
      });
      if (!inputs_done) break;  // the device keeps its planned order
      queue.erase(queue.begin());
      const auto model_device = model_->by_name.find(device_name);
      if (model_device == model_->by_name.end()) {
        task.state = ServiceTaskState::waiting;
        needs_plan_.insert(head.job);
        continue;
      }
      const DeviceSpec& spec = model_->cluster.device(model_device->second).spec;
      ++task.attempts;
      task.launch_key = launch_key(head.job, head.task, task.attempts);
      EngineLaunch launch{task.launch_key, task.node, spec.kind,
                          spec.model,      1,         task.expected_seconds};
      try {
        task.engine_id = engine_.launch(launch);
      } catch (const EngineError& e) {
        task_failed(job, head.task, fmt::format("launch refused: {}", e.what()));
        continue;
      }
      task.state = ServiceTaskState::launched;
      record(job, head.task, "launched", fmt::format("engine id {}", task.engine_id));
      launched_[task.launch_key] = {head.job, head.task};
      busy_devices_[device_name] = {head.job, head.task};
      if (job.record.state == ServiceJobState::queued) job.record.state = ServiceJobState::running;
    }
  }
  // A job re-planned during dispatch (a refused launch) is planned next step.
}

void ControlPlane::finish_job(LiveJob& job, ServiceJobState state, std::string reason) {
  ++stream_epoch_;
  for (std::uint32_t t = 0; t < job.record.tasks.size(); ++t) {
    ServiceTask& task = job.record.tasks[t];
    if (task.state == ServiceTaskState::completed) continue;
    if (task.state == ServiceTaskState::planned && job.record.stream) release(job.record.id, t);
    if (task.state == ServiceTaskState::launched || task.state == ServiceTaskState::running) {
      try {
        engine_.cancel(task.launch_key);
      } catch (const EngineError& e) {
        std::fprintf(stderr, "hetsched serve: cancel of %s failed: %s\n", task.launch_key.c_str(),
                     e.what());
      }
      launched_.erase(task.launch_key);
      release(job.record.id, t);
    }
    task.state =
        state == ServiceJobState::failed ? ServiceTaskState::failed : ServiceTaskState::cancelled;
    record(job, t, "cancelled", reason);
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
}

void ControlPlane::mark_dirty(std::uint64_t id) { dirty_.insert(id); }

void ControlPlane::flush() {
  std::vector<ServiceJob> changed;
  if (!dirty_.empty()) {
    std::vector<StoredRecord> records;
    for (std::uint64_t id : dirty_) {
      const auto it = live_.find(id);
      if (it == live_.end()) continue;
      records.push_back({service_job_key(id), to_json(it->second->record).dump()});
    }
    store_.put(records);  // one transaction: the step's changes land together
    for (std::uint64_t id : dirty_) {
      const auto it = live_.find(id);
      if (it == live_.end()) continue;
      changed.push_back(it->second->record);
      if (is_terminal(it->second->record.state)) {
        live_.erase(it);
        // The job's end is durable: its cancel request has been carried out.
        if (stored_cancels_.erase(id) != 0) store_.erase(cancel_key(id));
      }
    }
    dirty_.clear();
  }
  publish(std::move(changed));
}

void ControlPlane::acknowledge(const std::vector<StoredRecord>& records,
                               std::vector<std::unique_ptr<LiveJob>> jobs) {
  store_.put(records);  // durable before anyone hears of the ids
  {
    std::lock_guard lock(mutex_);
    for (auto& live : jobs) {
      view_[live->record.id] = live->record;
      submitted_.push_back(std::move(live));
    }
    submitted_total_ += jobs.size();
  }
  wake_.notify_one();
}

void ControlPlane::publish_job(const LiveJob& job) {
  std::lock_guard lock(mutex_);
  view_[job.record.id] = job.record;
}

void ControlPlane::publish(std::vector<ServiceJob> changed) {
  ServiceMetrics m;
  for (const auto& [id, job] : live_)
    for (const ServiceTask& t : job->record.tasks) {
      if (t.state == ServiceTaskState::waiting || t.state == ServiceTaskState::planned)
        ++m.queue_length;
      if (t.state == ServiceTaskState::launched || t.state == ServiceTaskState::running)
        ++m.running_tasks;
    }
  for (const Device& d : model_->cluster.devices()) {
    const auto kind = static_cast<std::size_t>(d.spec.kind);
    ++m.devices_by_kind[kind];
    m.busy_devices_by_kind[kind] += busy_devices_.count(d.name) != 0;
  }
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

}  // namespace hetsched
