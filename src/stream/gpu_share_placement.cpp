// GPU-sharing placement simulation (see gpu_share_placement.hpp).
#include "hetsched/stream/gpu_share_placement.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "hetsched/sim/event_queue.hpp"

namespace hetsched {
namespace {

struct NodeState {
  double cpu_free = 0;
  double memory_free = 0;
  std::vector<int> gpu_free;  // milli-GPUs free per GPU
  std::string model;
};

struct RequestClass {
  int gpus = 0;   // whole GPUs (gpu_milli 1000), or 1 with milli < 1000
  int milli = 0;  // per GPU
  double popularity = 0;
};

struct Choice {
  int node = -1;
  std::vector<int> gpus;  // GPU indices taken on that node
};

bool model_allowed(const AlibabaPod& pod, const std::string& model) {
  if (pod.gpu_spec.empty()) return true;
  std::string_view spec = pod.gpu_spec;
  while (!spec.empty()) {
    const std::size_t bar = spec.find('|');
    if (spec.substr(0, bar) == model) return true;
    if (bar == std::string_view::npos) break;
    spec.remove_prefix(bar + 1);
  }
  return false;
}

class GpuShareRun {
 public:
  GpuShareRun(const std::vector<AlibabaNode>& nodes, const std::vector<AlibabaPod>& pods,
              GpuSharePolicy policy)
      : pods_(pods), policy_(policy) {
    for (const auto& node : nodes)
      nodes_.push_back(NodeState{node.cpu_milli, node.memory_mib, std::vector<int>(node.gpus, 1000),
                                 node.gpu_model});
    // Request classes and their popularity, from the pods themselves (as FGD does).
    std::map<std::pair<int, int>, double> counts;
    std::size_t gpu_pods = 0;
    for (const auto& pod : pods)
      if (pod.gpus > 0) {
        counts[{pod.gpus, pod.gpu_milli}] += 1;
        ++gpu_pods;
      }
    for (const auto& [key, count] : counts)
      classes_.push_back(
          RequestClass{key.first, key.second, count / std::max<std::size_t>(1, gpu_pods)});
  }

  // FGD's fragmentation of one node's GPU state (ignoring CPU and memory).
  double fragmentation(const std::vector<int>& free) const {
    int total = 0, partial = 0, full = 0, largest = 0;
    for (int f : free) {
      total += f;
      if (f == 1000)
        ++full;
      else
        partial += f;
      largest = std::max(largest, f);
    }
    if (total == 0) return 0;
    double result = 0;
    for (const RequestClass& c : classes_) {
      double unusable;
      if (c.milli == 1000) {
        unusable = full >= c.gpus ? partial : total;
      } else if (largest < c.milli) {
        unusable = total;
      } else {
        unusable = 0;
        for (int f : free)
          if (f < c.milli) unusable += f;
      }
      result += c.popularity * unusable;
    }
    return result;
  }

  bool fits_node(const AlibabaPod& pod, const NodeState& node) const {
    if (node.cpu_free < pod.cpu_milli || node.memory_free < pod.memory_mib) return false;
    if (pod.gpus == 0) return true;
    if (!model_allowed(pod, node.model)) return false;
    if (pod.gpu_milli == 1000) {
      int full = 0;
      for (int f : node.gpu_free) full += f == 1000;
      return full >= pod.gpus;
    }
    for (int f : node.gpu_free)
      if (f >= pod.gpu_milli) return true;
    return false;
  }

  // GPUs a pod would take on a node, for each distinct way (fractions: one per
  // distinct free level; whole GPUs: the lowest-indexed free ones).
  std::vector<std::vector<int>> options(const AlibabaPod& pod, const NodeState& node) const {
    std::vector<std::vector<int>> result;
    if (pod.gpus == 0) return {{}};
    if (pod.gpu_milli == 1000) {
      std::vector<int> taken;
      for (std::size_t g = 0; g < node.gpu_free.size() && static_cast<int>(taken.size()) < pod.gpus;
           ++g)
        if (node.gpu_free[g] == 1000) taken.push_back(static_cast<int>(g));
      return {taken};
    }
    std::vector<int> seen;
    for (std::size_t g = 0; g < node.gpu_free.size(); ++g) {
      const int f = node.gpu_free[g];
      if (f < pod.gpu_milli || std::find(seen.begin(), seen.end(), f) != seen.end()) continue;
      seen.push_back(f);
      result.push_back({static_cast<int>(g)});
    }
    return result;
  }

  std::vector<int> after(const AlibabaPod& pod, const NodeState& node,
                         const std::vector<int>& gpus) const {
    std::vector<int> free = node.gpu_free;
    for (int g : gpus) free[g] -= pod.gpu_milli;
    return free;
  }

  Choice choose(const AlibabaPod& pod) const {
    Choice best;
    double best_score = 0, best_tie = 0;
    // Nodes with the same GPU state score the same: evaluate each state once.
    std::unordered_map<std::string, std::pair<double, std::vector<int>>> cache;
    for (std::size_t n = 0; n < nodes_.size(); ++n) {
      const NodeState& node = nodes_[n];
      if (!fits_node(pod, node)) continue;
      std::string key(reinterpret_cast<const char*>(node.gpu_free.data()),
                      node.gpu_free.size() * sizeof(int));
      auto it = cache.find(key);
      if (it == cache.end()) {
        double state_best = 1e300;
        std::vector<int> state_gpus;
        for (const auto& gpus : options(pod, node)) {
          const std::vector<int> free = after(pod, node, gpus);
          double score;
          if (policy_ == GpuSharePolicy::best_fit) {
            score = std::accumulate(free.begin(), free.end(), 0.0);
          } else {
            score = fragmentation(free) - fragmentation(node.gpu_free);
          }
          // Within a node, best fit of the GPU for fractions: least free left.
          if (score < state_best - 1e-9 ||
              (std::abs(score - state_best) <= 1e-9 && !gpus.empty() && !state_gpus.empty() &&
               node.gpu_free[gpus[0]] < node.gpu_free[state_gpus[0]])) {
            state_best = score;
            state_gpus = gpus;
          }
        }
        it = cache.emplace(std::move(key), std::make_pair(state_best, state_gpus)).first;
      }
      const double score = it->second.first;
      // Ties: the node with the least free GPU capacity, then the least free CPU.
      const double tie =
          std::accumulate(node.gpu_free.begin(), node.gpu_free.end(), 0.0) * 1e6 + node.cpu_free;
      if (best.node < 0 || score < best_score - 1e-9 ||
          (std::abs(score - best_score) <= 1e-9 && tie < best_tie)) {
        best.node = static_cast<int>(n);
        best.gpus = it->second.second;
        best_score = score;
        best_tie = tie;
      }
    }
    return best;
  }

  void apply(const AlibabaPod& pod, const Choice& choice, int sign) {
    NodeState& node = nodes_[choice.node];
    node.cpu_free -= sign * pod.cpu_milli;
    node.memory_free -= sign * pod.memory_mib;
    for (int g : choice.gpus) node.gpu_free[g] -= sign * pod.gpu_milli;
    free_total_ -= sign * static_cast<double>(choice.gpus.size()) * pod.gpu_milli;
    fragmented_total_ -= node_fragmentation_[choice.node];
    node_fragmentation_[choice.node] = fragmentation(node.gpu_free);
    fragmented_total_ += node_fragmentation_[choice.node];
  }

  void initialise_totals() {
    node_fragmentation_.clear();
    free_total_ = fragmented_total_ = 0;
    for (const auto& node : nodes_) {
      node_fragmentation_.push_back(fragmentation(node.gpu_free));
      fragmented_total_ += node_fragmentation_.back();
      for (int f : node.gpu_free) free_total_ += f;
    }
  }

  GpuShareResult run(bool keep_resources) {
    GpuShareResult result;
    result.policy = policy_ == GpuSharePolicy::best_fit ? "best-fit" : "fragmentation-aware";
    result.pods = pods_.size();
    initialise_totals();
    enum : std::uint32_t { arrive = 0, leave = 1, give_up = 2 };
    EventQueue events;
    for (std::size_t p = 0; p < pods_.size(); ++p) {
      events.schedule(pods_[p].creation_seconds, arrive, static_cast<std::uint32_t>(p));
      if (!keep_resources)
        events.schedule(pods_[p].deletion_seconds, give_up, static_cast<std::uint32_t>(p));
    }
    std::vector<Choice> placed(pods_.size());
    std::vector<char> done(pods_.size(), 0);
    std::vector<std::size_t> waiting;
    double asked = 0, granted = 0, wait_sum = 0, fragmentation_sum = 0, fragmented_sum = 0;
    std::size_t placed_count = 0, samples = 0;
    auto try_place = [&](std::size_t p, double now) {
      const Choice choice = choose(pods_[p]);
      if (choice.node < 0) return false;
      apply(pods_[p], choice, +1);
      placed[p] = choice;
      done[p] = 1;
      ++placed_count;
      wait_sum += now - pods_[p].creation_seconds;
      if (pods_[p].gpus > 0) {
        ++result.placed_gpu_pods;
        granted += pods_[p].gpus * pods_[p].gpu_milli;
      }
      return true;
    };
    while (!events.empty()) {
      const Event event = events.pop();
      const std::size_t p = event.subject;
      const AlibabaPod& pod = pods_[p];
      if (event.kind == arrive) {
        if (pod.gpus > 0) {
          ++result.gpu_pods;
          asked += pod.gpus * pod.gpu_milli;
          fragmented_sum += fragmented_total_;
          fragmentation_sum += free_total_ > 0 ? fragmented_total_ / free_total_ : 0;
          ++samples;
        }
        if (!try_place(p, event.time)) waiting.push_back(p);
      } else if (event.kind == give_up) {
        if (done[p] == 1) {
          apply(pod, placed[p], -1);
          done[p] = 2;
          // Resources freed: retry the waiting pods in arrival order.
          std::vector<std::size_t> still;
          for (std::size_t w : waiting)
            if (!done[w] && !try_place(w, event.time)) still.push_back(w);
          waiting = std::move(still);
        } else if (!done[p]) {
          done[p] = 3;  // never placed before its deletion time
          std::erase(waiting, p);
        }
      }
    }
    result.placed_fraction = asked > 0 ? granted / asked : 1.0;
    result.fragmentation = samples ? fragmentation_sum / samples : 0.0;
    result.fragmented_milli_gpus = samples ? fragmented_sum / samples : 0.0;
    result.avg_wait_seconds = placed_count ? wait_sum / placed_count : 0.0;
    return result;
  }

 private:
  const std::vector<AlibabaPod>& pods_;
  GpuSharePolicy policy_;
  std::vector<NodeState> nodes_;
  std::vector<RequestClass> classes_;
  std::vector<double> node_fragmentation_;
  double free_total_ = 0, fragmented_total_ = 0;
};

}  // namespace

GpuShareResult simulate_gpu_share(const std::vector<AlibabaNode>& nodes,
                                  const std::vector<AlibabaPod>& pods, GpuSharePolicy policy,
                                  bool keep_resources) {
  GpuShareRun run(nodes, pods, policy);
  return run.run(keep_resources);
}

}  // namespace hetsched
