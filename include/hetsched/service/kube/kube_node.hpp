// KubeNode: what the extender needs to know of one Kubernetes node — its allocatable
// cpu, memory and accelerators (nvidia.com/gpu, amd.com/gpu, google.com/tpu) and
// which real part each accelerator is, read from the labels that GPU feature
// discovery, GKE and AMD's node labeller set:
//   nvidia.com/gpu.product            "NVIDIA-H100-80GB-HBM3", "NVIDIA-A100-SXM4-40GB", "Tesla-T4"
//   cloud.google.com/gke-accelerator  "nvidia-tesla-a100", "nvidia-h100-80gb", "nvidia-l4"
//   cloud.google.com/gke-tpu-accelerator  "tpu-v4-podslice", "tpu-v5-lite-podslice",
//   "tpu-v5p-slice" amd.com/gpu.product-name          "AMD_Instinct_MI300X_OAM"
//   hetsched.io/accelerator-model     a catalog name, overriding the others
//   hetsched.io/cpu-model             a catalog CPU name ("EPYC-9654", "Xeon-8480+")
// A model the catalog does not hold is scored as its kind's reference part
// (kReferenceParts) and reported with known_model = false.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/cluster/device_spec.hpp"
#include "hetsched/service/cluster_engine.hpp"

namespace hetsched {

// The extended resources the extender manages: name, device kind.
struct KubeAcceleratorResource {
  std::string_view name;
  DeviceKind kind;
};
const std::vector<KubeAcceleratorResource>& kube_accelerator_resources();
const KubeAcceleratorResource* find_kube_accelerator_resource(std::string_view name);

// The part an accelerator or CPU is scored as when its label names no catalog part.
const DeviceSpec& kube_reference_part(DeviceKind kind);

// The catalog part a model label names ("NVIDIA-H100-80GB-HBM3" → H100-SXM,
// "tpu-v5-lite-podslice" → TPU-v5e), or nullopt when the catalog holds no such part.
// A100 labels without "80GB" are the 40 GB part (its datasheet memory and bandwidth).
std::optional<DeviceSpec> kube_part_from_label(std::string_view label, DeviceKind kind);

struct KubeNodeAccelerator {
  DeviceKind kind = DeviceKind::gpu;
  double allocatable = 0;
  DeviceSpec part;          // the catalog part (or the reference part)
  std::string model_label;  // the label's value ("" when none)
  bool known_model = false;
};

struct KubeNode {
  std::string name;
  double cpu_cores = 0;     // allocatable (capacity when allocatable is absent)
  double memory_bytes = 0;  // allocatable
  bool unschedulable = false;
  std::map<std::string, KubeNodeAccelerator> accelerators;  // by resource name; count > 0
  DeviceSpec cpu_part;
  bool known_cpu_model = false;
  nlohmann::json object;  // the v1.Node as received, echoed back in filter answers

  // The node as the service's cluster engines describe nodes.
  EngineNode engine_node() const;
};

// Reads a v1.Node object. Throws InputError naming the field when it is not a Node
// (no metadata.name, a quantity that does not parse). Unknown resources are ignored.
KubeNode parse_kube_node(const nlohmann::json& node);
// Reads a v1.NodeList's items.
std::vector<KubeNode> parse_kube_node_list(const nlohmann::json& node_list);

}  // namespace hetsched
