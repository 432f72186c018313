#include "hetsched/service/control_plane.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/policy/policy_registry.hpp"
#include "hetsched/service/simulated_engine.hpp"

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

double quantile(std::vector<double> samples, double q) {
  if (samples.empty()) return 0;
  const std::size_t k = std::min(samples.size() - 1,
                                 static_cast<std::size_t>(q * static_cast<double>(samples.size())));
  std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(k),
                   samples.end());
  return samples[k];
}

constexpr std::size_t kLatencyWindow = 4096;  // latest planning calls in the summary
constexpr std::string_view kNodePrefix = "nodes/";

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
  if (!options_.device_spec_of) {
    SimulatedEngine* sim = options_.node_registry;
    options_.device_spec_of = [sim](DeviceKind kind,
                                    std::string_view model) -> std::optional<DeviceSpec> {
      if (sim != nullptr)
        if (auto spec = sim->device_spec(kind, model)) return spec;
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
  store_.put(records);  // durable before anyone hears of the ids
  {
    std::lock_guard lock(mutex_);
    for (auto& live : jobs) {
      view_[live->record.id] = live->record;
      submitted_.push_back(std::move(live));
    }
    submitted_total_ += ids.size();
  }
  wake_.notify_one();
  return ids;
}

CancelOutcome ControlPlane::cancel(std::uint64_t id) {
  {
    std::lock_guard lock(mutex_);
    const auto it = view_.find(id);
    if (it == view_.end()) return CancelOutcome::not_found;
    if (is_terminal(it->second.state)) return CancelOutcome::already_ended;
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
  const std::vector<double> window(
      latency_samples_.end() -
          static_cast<std::ptrdiff_t>(std::min(latency_samples_.size(), kLatencyWindow)),
      latency_samples_.end());
  m.scheduling_latency.count = planning_calls_;
  m.scheduling_latency.sum_seconds = deciding_seconds_;
  for (double s : window)
    m.scheduling_latency.max_seconds = std::max(m.scheduling_latency.max_seconds, s);
  m.scheduling_latency.p50_seconds = quantile(window, 0.5);
  m.scheduling_latency.p90_seconds = quantile(window, 0.9);
  m.scheduling_latency.p99_seconds = quantile(window, 0.99);
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
          enqueue(job, t);
          break;
        case ServiceTaskState::launched:
        case ServiceTaskState::running:
          launched_[task.launch_key] = {id, t};
          busy_devices_[task.device] = {id, t};
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
  handle_engine_reports(engine_.poll(), true);
  flush();
  publish_metrics();
}

std::unique_ptr<ControlPlane::LiveJob> ControlPlane::make_live_job(
    ServiceJob record, const std::string& text, const std::shared_ptr<const Cluster>& parsed_on) {
  auto live = std::make_unique<LiveJob>();
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
  dispatch();
  flush();
  publish_metrics();
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
    if (it == live_.end() || is_terminal(it->second->record.state)) continue;
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
      busy_devices_[task.device] = adopted->second;
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
        if (auto busy = busy_devices_.find(task.device);
            busy != busy_devices_.end() && busy->second == std::make_pair(id, t))
          busy_devices_.erase(busy);
        const bool all_done =
            std::all_of(job.record.tasks.begin(), job.record.tasks.end(),
                        [](const auto& x) { return x.state == ServiceTaskState::completed; });
        if (all_done) finish_job(job, ServiceJobState::completed, {});
        break;
      }
      case EngineTaskState::failed:
      case EngineTaskState::cancelled:
        launched_.erase(it);
        if (auto busy = busy_devices_.find(task.device);
            busy != busy_devices_.end() && busy->second == std::make_pair(id, t))
          busy_devices_.erase(busy);
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
    if (auto busy = busy_devices_.find(task.device);
        busy != busy_devices_.end() && busy->second == std::make_pair(id, t))
      busy_devices_.erase(busy);
    task.state = ServiceTaskState::waiting;
    record(job, t, "lost", "the engine no longer knows the task; it is planned again");
    needs_plan_.insert(id);
    it = launched_.erase(it);
  }
}

void ControlPlane::task_failed(LiveJob& job, std::uint32_t t, const std::string& reason) {
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
    plan_job(*it->second, false);
  }
}

void ControlPlane::plan_job(LiveJob& job, bool) {
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
  for (std::uint32_t t = 0; t < job.record.tasks.size(); ++t) {
    ServiceTask& task = job.record.tasks[t];
    if (task.state == ServiceTaskState::completed) continue;
    if (task.state == ServiceTaskState::launched || task.state == ServiceTaskState::running) {
      try {
        engine_.cancel(task.launch_key);
      } catch (const EngineError& e) {
        std::fprintf(stderr, "hetsched serve: cancel of %s failed: %s\n", task.launch_key.c_str(),
                     e.what());
      }
      launched_.erase(task.launch_key);
      if (auto busy = busy_devices_.find(task.device);
          busy != busy_devices_.end() && busy->second == std::make_pair(job.record.id, t))
        busy_devices_.erase(busy);
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
  if (dirty_.empty()) return;
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
    publish_job(*it->second);
    if (is_terminal(it->second->record.state)) live_.erase(it);
  }
  dirty_.clear();
}

void ControlPlane::publish_job(const LiveJob& job) {
  std::lock_guard lock(mutex_);
  view_[job.record.id] = job.record;
}

void ControlPlane::publish_metrics() {
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
  std::lock_guard lock(mutex_);
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
