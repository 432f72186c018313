// The scheduler extender's three verbs over hetsched's perf model and bookkeeping.
// The protocol follows k8s.io/kube-scheduler/extender/v1 (types.go) and the
// extender's HTTP client in kube-scheduler (pkg/scheduler/framework/extender.go):
// one JSON POST per verb, status 200 expected, errors carried in the Error field.
// prioritize asks a registry policy to score the nodes on a ClusterSnapshot built
// from the feasible nodes' free slots (kube_extender.hpp says how).
#include "hetsched/service/kube/kube_extender.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/workload/feasibility.hpp"
#include "hetsched/workload/task_graph.hpp"
#include "kube_json_fields.hpp"

namespace hetsched {
namespace {

constexpr std::size_t kPendingPodsKept = 4096;

// Kubernetes object names: DNS subdomains (lowercase alphanumerics, '-' and '.').
bool is_object_name(const std::string& name) {
  if (name.empty() || name.size() > 253) return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  return std::isalnum(static_cast<unsigned char>(name.front())) &&
         std::isalnum(static_cast<unsigned char>(name.back()));
}

std::string pod_key(const KubePod& pod) {
  return pod.uid.empty() ? pod.namespace_name + "/" + pod.name : pod.uid;
}

// The roofline model's seconds for the work on one device of the part.
double kube_predict_seconds(const Task& work, const DeviceSpec& part) {
  Cluster cluster;
  Node node;
  node.name = "candidate";
  cluster.add_node(node, {part});
  const RooflineModel model(cluster);
  return model.task_seconds(work, cluster.device(0));
}

nlohmann::json parse_body(std::string_view body, std::string& error) {
  try {
    nlohmann::json value = nlohmann::json::parse(body);
    if (!value.is_object())
      error = "request body is a JSON " + std::string(value.type_name()) + ", expected an object";
    return value;
  } catch (const nlohmann::json::exception& e) {
    error = std::string("request body is not JSON: ") + e.what();
    return {};
  }
}

ExtenderAnswer error_answer(int status, const std::string& message) {
  nlohmann::ordered_json body;
  body["Error"] = message;
  return {status, body.dump()};
}

ExtenderAnswer filter_error(const std::string& message) {
  nlohmann::ordered_json body;
  body["Nodes"] = nullptr;
  body["NodeNames"] = nullptr;
  body["FailedNodes"] = nlohmann::ordered_json::object();
  body["FailedAndUnresolvableNodes"] = nlohmann::ordered_json::object();
  body["Error"] = message;
  return {200, body.dump()};
}

std::string amount(double value) { return fmt::format("{:g}", value); }
std::string gigabytes(double bytes) { return fmt::format("{:.3g} GB", bytes / 1e9); }

// ExtenderArgs.Pod, parsed; InputError when it is missing or malformed.
KubePod pod_of(const nlohmann::json& args) {
  const nlohmann::json* pod_object = kube_json::member(args, "Pod");
  if (pod_object == nullptr) throw InputError("ExtenderArgs.Pod: missing (expected a v1.Pod)");
  return parse_kube_pod(*pod_object);
}

// Per node, the best score the policy gives one of its slots; the feasible nodes of
// one pod (verdicts[i].fits) become the snapshot's nodes, in order.
std::vector<double> kube_policy_node_scores(std::string_view policy_name, const KubePod& pod,
                                            const std::vector<KubeNode>& nodes,
                                            const std::vector<KubeNodeVerdict>& verdicts) {
  Cluster cluster;
  std::vector<std::size_t> node_of_cluster_node;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!verdicts[i].fits) continue;
    const KubeNodeVerdict& v = verdicts[i];
    const double slots = v.request > 0 ? std::floor(v.free_units / v.request + 1e-9) : 1.0;
    Node node;
    node.name = nodes[i].name;
    cluster.add_node(
        node,
        std::vector<DeviceSpec>(
            static_cast<std::size_t>(std::clamp(slots, 1.0, kMaxExtenderSlotsPerNode)), v.part));
    node_of_cluster_node.push_back(i);
  }
  std::vector<double> node_scores(nodes.size(), 0.0);
  if (cluster.device_count() == 0) return node_scores;
  Workload workload;
  Job job;
  job.name = pod.namespace_name + "/" + pod.name;
  Task work = pod.work;
  work.allowed_kinds = DeviceKindSet::all();  // the filter already matched the resource
  work.input_bytes = 0;                       // a pod's input lives on no node of the snapshot
  job.tasks.push_back(work);
  workload.jobs.push_back(std::move(job));
  const TaskGraph graph(workload);
  const RooflineModel perf(cluster);
  const std::vector<double> available(cluster.device_count(), 0.0);
  const std::vector<DeviceId> placement{kUnplaced};
  const std::vector<std::uint8_t> pstate{0};
  const std::vector<TaskState> state{TaskState::ready};
  const std::vector<double> finish{0.0};
  const ClusterSnapshot snapshot{0.0,       cluster, graph, perf,  available,
                                 placement, pstate,  state, finish};
  std::vector<DeviceId> candidates(cluster.device_count());
  for (DeviceId d = 0; d < candidates.size(); ++d) candidates[d] = d;
  PolicyOptions options;
  options.time_budget_seconds = 0;  // iteration budgets alone: the same answer every time
  const std::unique_ptr<SchedulingPolicy> policy = make_policy(policy_name, options);
  const std::vector<double> scores = policy->score_devices(snapshot, 0, candidates);
  for (DeviceId d = 0; d < candidates.size() && d < scores.size(); ++d) {
    double& node_score = node_scores[node_of_cluster_node[cluster.device(d).node]];
    if (std::isfinite(scores[d]))
      node_score = std::max(node_score, std::clamp(scores[d], 0.0, 1.0));
  }
  return node_scores;
}

}  // namespace

KubeExtender::KubeExtender(KubeApi* api, std::string_view policy) : api_(api), policy_(policy) {
  make_policy(policy_, PolicyOptions{});  // an unknown name is an InputError here, not per request
}

KubeExtender::Held KubeExtender::held_on(const std::string& node) const {
  Held held;
  for (const auto& [uid, pod] : bound_) {
    if (pod.node != node) continue;
    held.cpu_cores += pod.cpu_cores;
    held.memory_bytes += pod.memory_bytes;
    if (!pod.accelerator_resource.empty())
      held.accelerators[pod.accelerator_resource] += pod.accelerator_count;
  }
  return held;
}

KubeNodeVerdict KubeExtender::judge(const KubePod& pod, const KubeNode& node) const {
  std::lock_guard lock(mutex_);
  return judge_locked(pod, node);
}

KubeNodeVerdict KubeExtender::judge_locked(const KubePod& pod, const KubeNode& node) const {
  KubeNodeVerdict verdict;
  const auto fail = [&](bool resolvable, std::string reason) {
    verdict.fits = false;
    verdict.resolvable = resolvable;
    verdict.reason = std::move(reason);
    return verdict;
  };
  if (node.unschedulable) return fail(false, "node is unschedulable (cordoned)");
  const Held held = held_on(node.name);
  const std::string resource = pod.accelerator_resource();
  const double count = pod.accelerator_count();
  DeviceSpec part = node.cpu_part;
  double used_after = 0, allocatable = 0, request = count;
  if (!resource.empty()) {
    const auto it = node.accelerators.find(resource);
    if (it == node.accelerators.end())
      return fail(false, fmt::format("node has no {} (the pod needs {})", resource, amount(count)));
    const KubeNodeAccelerator& accelerator = it->second;
    if (accelerator.allocatable < count)
      return fail(false, fmt::format("node has {} {} allocatable, the pod needs {}",
                                     amount(accelerator.allocatable), resource, amount(count)));
    part = accelerator.part;
    const auto held_it = held.accelerators.find(resource);
    const double held_count = held_it == held.accelerators.end() ? 0.0 : held_it->second;
    used_after = held_count + count;
    allocatable = accelerator.allocatable;
    if (used_after > allocatable + 1e-9)
      return fail(true,
                  fmt::format("{} of {} {} free ({} held by pods hetsched bound), the pod "
                              "needs {}",
                              amount(std::max(0.0, allocatable - held_count)), amount(allocatable),
                              resource, amount(held_count), amount(count)));
  } else {
    request = pod.cpu_cores;
    used_after = held.cpu_cores + request;
    allocatable = node.cpu_cores;
  }
  if (!pod.allowed_models.empty() && std::find(pod.allowed_models.begin(), pod.allowed_models.end(),
                                               part.model) == pod.allowed_models.end()) {
    std::string allowed;
    for (const auto& model : pod.allowed_models) allowed += (allowed.empty() ? "" : ", ") + model;
    return fail(false, fmt::format("node's {} is {}, not one of hetsched.io/allowed-models ({})",
                                   resource.empty() ? "cpu" : resource, part.model, allowed));
  }
  if (!part.supports(pod.work.precision))
    return fail(false,
                fmt::format("{} does not support {}", part.model, to_string(pod.work.precision)));
  if (pod.work.memory_bytes > part.memory_bytes)
    return fail(false, fmt::format("the pod needs {} of memory on each device, {} has {}",
                                   gigabytes(pod.work.memory_bytes), part.model,
                                   gigabytes(part.memory_bytes)));
  if (pod.cpu_cores > node.cpu_cores + 1e-9)
    return fail(false, fmt::format("node has {} cpu allocatable, the pod needs {}",
                                   amount(node.cpu_cores), amount(pod.cpu_cores)));
  if (pod.memory_bytes > node.memory_bytes)
    return fail(false, fmt::format("node has {} memory allocatable, the pod needs {}",
                                   gigabytes(node.memory_bytes), gigabytes(pod.memory_bytes)));
  if (pod.cpu_cores > node.cpu_cores - held.cpu_cores + 1e-9)
    return fail(true,
                fmt::format("{} of {} cpu free ({} held by pods hetsched bound), the pod "
                            "needs {}",
                            amount(std::max(0.0, node.cpu_cores - held.cpu_cores)),
                            amount(node.cpu_cores), amount(held.cpu_cores), amount(pod.cpu_cores)));
  if (pod.memory_bytes > node.memory_bytes - held.memory_bytes)
    return fail(true, fmt::format("{} of {} memory free ({} held by pods hetsched bound), the "
                                  "pod needs {}",
                                  gigabytes(std::max(0.0, node.memory_bytes - held.memory_bytes)),
                                  gigabytes(node.memory_bytes), gigabytes(held.memory_bytes),
                                  gigabytes(pod.memory_bytes)));
  Task work = pod.work;
  work.allowed_kinds = DeviceKindSet::all();
  const double seconds = kube_predict_seconds(work, part);
  if (!std::isfinite(seconds))
    return fail(false, fmt::format("{} cannot run the pod's work", part.model));
  const double devices = std::max(1.0, count);
  verdict.fits = true;
  verdict.seconds = seconds / devices;
  verdict.part = part;
  verdict.free_units = std::max(0.0, allocatable - (used_after - request));
  verdict.request = request;
  return verdict;
}

void KubeExtender::remember_pending(const KubePod& pod) {
  const std::string key = pod_key(pod);
  if (!pending_.contains(key)) {
    pending_order_.push_back(key);
    while (pending_order_.size() > kPendingPodsKept) {
      pending_.erase(pending_order_.front());
      pending_order_.pop_front();
    }
  }
  pending_[key] = pod;
}

std::vector<KubeNode> KubeExtender::candidates(const nlohmann::json& args, bool& by_name,
                                               std::vector<std::string>& unknown) {
  std::vector<KubeNode> nodes;
  const nlohmann::json* list = kube_json::member(args, "Nodes");
  const nlohmann::json* names = kube_json::member(args, "NodeNames");
  by_name = list == nullptr;
  if (list != nullptr) {
    nodes = parse_kube_node_list(*list);
    for (const KubeNode& node : nodes) nodes_[node.name] = node;
    return nodes;
  }
  if (names == nullptr) throw InputError("ExtenderArgs: neither Nodes nor NodeNames is given");
  if (!names->is_array())
    throw InputError("ExtenderArgs.NodeNames: expected an array, found " +
                     std::string(names->type_name()));
  for (std::size_t i = 0; i < names->size(); ++i) {
    const nlohmann::json& name = (*names)[i];
    if (!name.is_string())
      throw InputError(fmt::format("ExtenderArgs.NodeNames[{}]: expected a string, found {}", i,
                                   name.type_name()));
    const auto it = nodes_.find(name.get<std::string>());
    if (it == nodes_.end())
      unknown.push_back(name.get<std::string>());
    else
      nodes.push_back(it->second);
  }
  return nodes;
}

ExtenderAnswer KubeExtender::filter(std::string_view body) {
  std::string error;
  const nlohmann::json args = parse_body(body, error);
  if (!error.empty()) return error_answer(400, error);
  try {
    const KubePod pod = pod_of(args);
    std::lock_guard lock(mutex_);
    // A pod filtered again after bind was never bound (or its binding failed).
    if (!pod.uid.empty()) bound_.erase(pod.uid);
    remember_pending(pod);
    bool by_name = false;
    std::vector<std::string> unknown;
    const std::vector<KubeNode> nodes = candidates(args, by_name, unknown);

    nlohmann::json passed_items = nlohmann::json::array();
    nlohmann::json passed_names = nlohmann::json::array();
    nlohmann::json failed = nlohmann::json::object();
    nlohmann::json unresolvable = nlohmann::json::object();
    for (const KubeNode& node : nodes) {
      const KubeNodeVerdict verdict = judge_locked(pod, node);
      if (verdict.fits) {
        passed_items.push_back(node.object);
        passed_names.push_back(node.name);
      } else {
        (verdict.resolvable ? failed : unresolvable)[node.name] = verdict.reason;
      }
    }
    for (const std::string& name : unknown)
      failed[name] =
          "node is not in the hetsched extender's node cache (send Nodes once, or start it "
          "with --nodes or --kube-api)";

    nlohmann::json result;
    if (by_name) {
      result["Nodes"] = nullptr;
      result["NodeNames"] = passed_names;
    } else {
      nlohmann::json list = nlohmann::json::object();
      const nlohmann::json& sent = args["Nodes"];
      for (const auto& [key, value] : sent.items())
        if (key != "items") list[key] = value;
      list["items"] = passed_items;
      result["Nodes"] = list;
      result["NodeNames"] = nullptr;
    }
    result["FailedNodes"] = failed;
    result["FailedAndUnresolvableNodes"] = unresolvable;
    result["Error"] = "";
    return {200, result.dump()};
  } catch (const InputError& e) {
    return filter_error(e.message());
  } catch (const nlohmann::json::exception& e) {
    return filter_error(e.what());
  }
}

ExtenderAnswer KubeExtender::prioritize(std::string_view body) {
  std::string error;
  const nlohmann::json args = parse_body(body, error);
  if (!error.empty()) return error_answer(400, error);
  try {
    const KubePod pod = pod_of(args);
    std::lock_guard lock(mutex_);
    bool by_name = false;
    std::vector<std::string> unknown;
    const std::vector<KubeNode> nodes = candidates(args, by_name, unknown);
    std::vector<KubeNodeVerdict> verdicts;
    for (const KubeNode& node : nodes) verdicts.push_back(judge_locked(pod, node));
    const std::vector<double> scores = kube_policy_node_scores(policy_, pod, nodes, verdicts);
    double best = 0;
    for (const double score : scores) best = std::max(best, score);
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      int score = 0;
      if (verdicts[i].fits && best > 0)
        score =
            scores[i] >= best
                ? kMaxExtenderPriority
                : std::clamp(static_cast<int>(std::lround(kMaxExtenderPriority * scores[i] / best)),
                             0, kMaxExtenderPriority - 1);
      list.push_back({{"Host", nodes[i].name}, {"Score", score}});
    }
    for (const std::string& name : unknown) list.push_back({{"Host", name}, {"Score", 0}});
    return {200, list.dump()};
  } catch (const InputError& e) {
    return error_answer(400, e.message());
  } catch (const nlohmann::json::exception& e) {
    return error_answer(400, e.what());
  }
}

ExtenderAnswer KubeExtender::bind(std::string_view body) {
  std::string error;
  const nlohmann::json args = parse_body(body, error);
  if (!error.empty()) return error_answer(400, error);
  try {
    const std::string pod_name = kube_json::require_string(args, "PodName", "ExtenderBindingArgs");
    const std::string pod_namespace =
        kube_json::require_string(args, "PodNamespace", "ExtenderBindingArgs");
    const std::string pod_uid = kube_json::require_string(args, "PodUID", "ExtenderBindingArgs");
    const std::string node_name = kube_json::require_string(args, "Node", "ExtenderBindingArgs");
    for (const auto& [field, value] :
         {std::pair{"PodName", pod_name}, std::pair{"PodNamespace", pod_namespace},
          std::pair{"Node", node_name}})
      if (!is_object_name(value))
        throw InputError(
            fmt::format("ExtenderBindingArgs.{}: '{}' is not a Kubernetes object "
                        "name (lowercase letters, digits, '-' and '.')",
                        field, value));
    if (api_ == nullptr)
      return error_answer(200,
                          "the hetsched extender has no Kubernetes API server configured "
                          "(--kube-api); binding is left to kube-scheduler: do not set bindVerb");

    std::optional<KubePod> pod;
    {
      std::lock_guard lock(mutex_);
      auto it = pending_.find(pod_uid.empty() ? pod_namespace + "/" + pod_name : pod_uid);
      if (it == pending_.end()) it = pending_.find(pod_namespace + "/" + pod_name);
      if (it != pending_.end()) pod = it->second;
    }
    if (!pod) {
      const KubeApiResult fetched = api_->get_pod(pod_namespace, pod_name);
      if (!fetched.ok) return error_answer(200, "cannot read the pod to bind: " + fetched.error);
      pod = parse_kube_pod(fetched.body);
    }
    KubeBoundPod record;
    record.uid = pod_uid.empty() ? pod_namespace + "/" + pod_name : pod_uid;
    record.namespace_name = pod_namespace;
    record.name = pod_name;
    record.node = node_name;
    record.cpu_cores = pod->cpu_cores;
    record.memory_bytes = pod->memory_bytes;
    record.accelerator_resource = pod->accelerator_resource();
    record.accelerator_count = pod->accelerator_count();
    {
      // Reserve first, so concurrent filters see the resources taken while the
      // API server call is in flight; undo when it fails.
      std::lock_guard lock(mutex_);
      bound_.erase(record.uid);
      if (const auto node = nodes_.find(node_name); node != nodes_.end()) {
        const KubeNodeVerdict verdict = judge_locked(*pod, node->second);
        if (!verdict.fits)
          return error_answer(200, fmt::format("cannot bind {}/{} to {}: {}", pod_namespace,
                                               pod_name, node_name, verdict.reason));
      }
      bound_[record.uid] = record;
    }
    const KubeApiResult created = api_->create_binding(pod_namespace, pod_name, pod_uid, node_name);
    std::lock_guard lock(mutex_);
    if (!created.ok) {
      bound_.erase(record.uid);
      return error_answer(200, "binding failed: " + created.error);
    }
    pending_.erase(record.uid);
    return error_answer(200, "");
  } catch (const InputError& e) {
    return error_answer(200, e.message());
  } catch (const nlohmann::json::exception& e) {
    return error_answer(200, e.what());
  }
}

void KubeExtender::load_nodes(const nlohmann::json& node_list, bool replace_all) {
  std::vector<KubeNode> nodes = parse_kube_node_list(node_list);
  std::lock_guard lock(mutex_);
  if (replace_all) nodes_.clear();
  for (KubeNode& node : nodes) {
    std::string name = node.name;
    nodes_[name] = std::move(node);
  }
}

std::size_t KubeExtender::reconcile(const std::set<std::string>& live_pod_uids) {
  std::lock_guard lock(mutex_);
  return std::erase_if(bound_,
                       [&](const auto& entry) { return !live_pod_uids.contains(entry.first); });
}

std::vector<KubeBoundPod> KubeExtender::bound_pods() const {
  std::lock_guard lock(mutex_);
  std::vector<KubeBoundPod> pods;
  for (const auto& [uid, pod] : bound_) pods.push_back(pod);
  return pods;
}

std::vector<std::string> KubeExtender::cached_node_names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, node] : nodes_) names.push_back(name);
  return names;
}

std::size_t KubeExtender::cached_node_count() const {
  std::lock_guard lock(mutex_);
  return nodes_.size();
}

}  // namespace hetsched
