// KubeExtender: hetsched's placement offered to kube-scheduler through the scheduler
// extender v1 protocol (k8s.io/kube-scheduler/extender/v1). kube-scheduler POSTs
// ExtenderArgs {Pod, Nodes | NodeNames} to filter and prioritize and
// ExtenderBindingArgs {PodName, PodNamespace, PodUID, Node} to bind; the answers are
// ExtenderFilterResult {Nodes | NodeNames, FailedNodes, FailedAndUnresolvableNodes,
// Error}, a HostPriorityList [{Host, Score}] with scores 0..10 (MaxExtenderPriority),
// and ExtenderBindingResult {Error}. Field names are the Go field names, as
// kube-scheduler encodes these types (they carry no json tags).
//
// filter keeps the nodes with enough free units of the accelerator resource the pod
// requests (nvidia.com/gpu, amd.com/gpu, google.com/tpu), whose part is allowed and
// can run the pod's work (precision, device memory), and with enough free cpu and
// memory. Free = allocatable − what pods bound through this extender hold. A node
// whose allocatable is too small, or whose part is excluded or unable, is
// FailedAndUnresolvable (preemption cannot help); one short only because of bound
// pods is Failed.
//
// prioritize ranks the feasible nodes by what a registry policy (--policy, default
// greedy-eft) would choose on the cluster the extender sees. It builds a
// ClusterSnapshot at time 0 with one node per feasible node, in the order sent: the
// slots free for the pod, each one device of the node's part (the catalog part of the
// requested accelerator, or the node's CPU part for a CPU-only pod), where slots =
// ⌊free units / the pod's request⌋ (at least 1, at most kMaxExtenderSlotsPerNode) and
// free = allocatable − what pods bound through this extender hold; and one job of one
// ready task, the pod's work (the perf model's run time on one device: every node runs
// the pod on the same number of units, so that count changes no comparison). A fresh
// policy scores every device (SchedulingPolicy::score_devices, in [0, 1], highest for
// the device it would place the task on); a node scores its best device, and
//   score = 10 for the highest-scoring nodes, else min(9, round(10 × s / s_best)),
// so the node the policy chooses is the one kube-scheduler ranks first. greedy-eft
// scores by predicted finish (t_best / t: the fastest part wins, as the roofline
// model predicts); other policies rank their choice first and the rest by predicted
// finish. Infeasible nodes score 0. Same request, same state → same answer (policies
// are built with seed 1 and no wall-clock budget).
//
// bind records the placement and creates the pod's v1.Binding through the API
// server when one is configured; without one it answers an Error (then leave
// bindVerb unset and let kube-scheduler bind). Bound pods hold their resources until
// reconcile() sees them gone, or a new filter of the same pod shows the binding did
// not happen.
//
// With NodeNames (nodeCacheCapable), nodes come from the cache, filled by every
// Nodes list received, by load_nodes() (a NodeList file or the API server).
// Thread-safe: every call takes one lock.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/service/kube/kube_api.hpp"
#include "hetsched/service/kube/kube_node.hpp"
#include "hetsched/service/kube/kube_pod.hpp"

namespace hetsched {

inline constexpr int kMaxExtenderPriority = 10;
// The policy prioritize asks when none is named: online earliest finish time, which
// ranks by the perf model's predicted run time of the pod on each node's part.
inline constexpr std::string_view kDefaultExtenderPolicy = "greedy-eft";
// Most slots (devices) one node offers the policy; keeps a node that advertises an
// absurd allocatable count from blowing up the snapshot.
inline constexpr double kMaxExtenderSlotsPerNode = 64;

// One HTTP answer: status code and JSON body.
struct ExtenderAnswer {
  int http_status = 200;
  std::string body;
};

// A pod placed through bind and the resources it holds on its node.
struct KubeBoundPod {
  std::string uid;
  std::string namespace_name;
  std::string name;
  std::string node;
  double cpu_cores = 0;
  double memory_bytes = 0;
  std::string accelerator_resource;  // "" for a CPU-only pod
  double accelerator_count = 0;
};

// Why a node cannot take a pod, or how well it suits it.
struct KubeNodeVerdict {
  bool fits = false;
  bool resolvable = false;  // fails only because of pods bound here (preemption may help)
  std::string reason;       // when it does not fit
  double seconds = 0;       // predicted run time (one device's time / devices) when it fits
  DeviceSpec part;          // the part the pod would run on (accelerator or CPU)
  double free_units = 0;    // of the pod's resource (accelerator units, or cpu cores)
  double request = 0;       // the pod's request of that resource
};

class KubeExtender {
 public:
  // api may be null (then bind answers that binding is left to kube-scheduler); it
  // must outlive the extender. policy names the registry policy prioritize asks;
  // InputError naming the closest valid names when there is none of that name.
  explicit KubeExtender(KubeApi* api = nullptr, std::string_view policy = kDefaultExtenderPolicy);

  // The three verbs, on request bodies as kube-scheduler sends them. Undecodable JSON
  // → 400; a decodable request with a missing or wrong field → 200 with Error for
  // filter and bind, 400 for prioritize (a HostPriorityList has no Error field).
  ExtenderAnswer filter(std::string_view body);
  ExtenderAnswer prioritize(std::string_view body);
  ExtenderAnswer bind(std::string_view body);

  // Adds or replaces the nodes of a v1.NodeList in the cache (replace_all: the list is
  // the whole cluster, so nodes missing from it are dropped); InputError when it is
  // not a NodeList.
  void load_nodes(const nlohmann::json& node_list, bool replace_all = false);
  // Forgets bound pods whose uid is not among the live ones (they ended or were
  // deleted); returns how many were released.
  std::size_t reconcile(const std::set<std::string>& live_pod_uids);

  // Judges one pod against one node in the current bookkeeping.
  KubeNodeVerdict judge(const KubePod& pod, const KubeNode& node) const;

  std::vector<KubeBoundPod> bound_pods() const;
  std::vector<std::string> cached_node_names() const;
  std::size_t cached_node_count() const;

 private:
  struct Held {
    double cpu_cores = 0;
    double memory_bytes = 0;
    std::map<std::string, double> accelerators;
  };
  Held held_on(const std::string& node) const;
  KubeNodeVerdict judge_locked(const KubePod& pod, const KubeNode& node) const;
  void remember_pending(const KubePod& pod);
  // Candidate nodes of an ExtenderArgs (from Nodes, or NodeNames through the cache);
  // names not in the cache come back in `unknown`.
  std::vector<KubeNode> candidates(const nlohmann::json& args, bool& by_name,
                                   std::vector<std::string>& unknown);

  KubeApi* api_;
  std::string policy_;
  mutable std::mutex mutex_;
  std::map<std::string, KubeNode> nodes_;
  std::map<std::string, KubeBoundPod> bound_;  // by pod uid
  std::map<std::string, KubePod> pending_;     // pods seen in filter, by uid (or ns/name)
  std::deque<std::string> pending_order_;
};

}  // namespace hetsched
