// KubePod: what the extender reads from a v1.Pod — its identity, its resource
// requests summed as Kubernetes does, and the work it will do for the perf model.
// Requests: each container asks for requests[r] (limits[r] when only a limit is
// set, as the API server defaults it); the pod asks for max(sum over containers,
// max over init containers) plus spec.overhead. Pod annotations describe the work
// (defaults in brackets):
//   hetsched.io/kernel-class   dense_matmul|convolution|attention|elementwise|...  [dense_matmul]
//   hetsched.io/precision      fp64|fp32|fp16|bf16|int8   [fp16 with accelerators, else fp32]
//   hetsched.io/flops          quantity, e.g. "2e15", "500T"   [1e15]
//   hetsched.io/bytes          device-memory traffic, quantity  [0]
//   hetsched.io/device-memory  footprint on each device, quantity ("40Gi")  [0]
//   hetsched.io/allowed-models comma-separated catalog names ("H100-SXM,H200")  [any]
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "hetsched/workload/task.hpp"

namespace hetsched {

struct KubePod {
  std::string name;
  std::string namespace_name = "default";
  std::string uid;
  double cpu_cores = 0;
  double memory_bytes = 0;
  // Accelerator resource name → count; at most one resource (a pod runs on one kind).
  std::map<std::string, double> accelerators;
  Task work;
  std::vector<std::string> allowed_models;  // empty: any

  // The one accelerator resource requested, or "" for a CPU-only pod.
  std::string accelerator_resource() const;
  double accelerator_count() const;
};

// Reads a v1.Pod. Throws InputError naming the field ("pod.spec.containers[0]
// .resources.requests.memory: '1.5Qi' is not a Kubernetes quantity ...").
KubePod parse_kube_pod(const nlohmann::json& pod);

}  // namespace hetsched
