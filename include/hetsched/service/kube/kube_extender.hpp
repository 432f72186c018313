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
// prioritize scores every feasible node with the roofline perf model's prediction of
// the pod's run time on the node's part (t = one device's time / device count) and
// energy (e = watts × t × count), and with how full the pod leaves the node:
//   score = round(10 × (0.8 · t_best / t + 0.1 · e_best / e + 0.1 · used_after / allocatable))
// where best is over the feasible nodes of the request and used_after counts the
// pod's own accelerator units (cpu cores for a CPU-only pod). Speed dominates;
// energy and packing (best fit, which keeps whole nodes free for large pods) break
// ties. Infeasible nodes score 0. Same request, same state → same answer.
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
  double seconds = 0;       // predicted run time when it fits
  double joules = 0;
  double used_fraction_after = 0;
};

class KubeExtender {
 public:
  // api may be null (then bind answers that binding is left to kube-scheduler); it
  // must outlive the extender.
  explicit KubeExtender(KubeApi* api = nullptr);

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
  mutable std::mutex mutex_;
  std::map<std::string, KubeNode> nodes_;
  std::map<std::string, KubeBoundPod> bound_;  // by pod uid
  std::map<std::string, KubePod> pending_;     // pods seen in filter, by uid (or ns/name)
  std::deque<std::string> pending_order_;
};

}  // namespace hetsched
