// Reading v1.Node objects and mapping accelerator labels to catalog parts. Label
// values are split into lowercase tokens at every non-alphanumeric character and
// matched on the token that names the chip ("h100", "a100", "v5p"), so the spellings
// of GPU feature discovery ("NVIDIA-A100-SXM4-80GB"), GKE ("nvidia-a100-80gb") and
// AMD's labeller agree.
#include "hetsched/service/kube/kube_node.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/input_error.hpp"
#include "kube_json_fields.hpp"

namespace hetsched {
namespace {

std::vector<std::string> label_tokens(std::string_view label) {
  std::vector<std::string> tokens(1);
  for (char c : label) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      tokens.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!tokens.back().empty()) {
      tokens.emplace_back();
    }
  }
  if (tokens.back().empty()) tokens.pop_back();
  return tokens;
}

bool has_token(const std::vector<std::string>& tokens, std::string_view token) {
  return std::find(tokens.begin(), tokens.end(), token) != tokens.end();
}

DeviceSpec catalog_part(std::string_view model) { return *find_catalog_part(model); }

// The A100 40 GB: the 80 GB part's compute with its own datasheet memory figures.
DeviceSpec a100_40gb() {
  DeviceSpec spec = catalog_part("A100-80GB");
  spec.model = "A100-40GB";
  spec.memory_bytes = 40e9;
  spec.memory_bandwidth = 1555e9;
  return spec;
}

std::optional<DeviceSpec> gpu_part(const std::vector<std::string>& tokens) {
  if (has_token(tokens, "h200")) return catalog_part("H200");
  if (has_token(tokens, "h100")) return catalog_part("H100-SXM");
  if (has_token(tokens, "a100")) {
    if (has_token(tokens, "80gb")) return catalog_part("A100-80GB");
    return a100_40gb();
  }
  static constexpr std::pair<std::string_view, std::string_view> simple[] = {
      {"v100", "V100"}, {"t4", "T4"}, {"l4", "L4"}, {"p100", "P100"}, {"k80", "K80"}};
  for (const auto& [token, model] : simple)
    if (has_token(tokens, token)) return catalog_part(model);
  return std::nullopt;
}

std::optional<DeviceSpec> tpu_part(const std::vector<std::string>& tokens) {
  if (has_token(tokens, "v5p")) return catalog_part("TPU-v5p");
  if (has_token(tokens, "v5e") || (has_token(tokens, "v5") && has_token(tokens, "lite")) ||
      has_token(tokens, "v5litepod"))
    return catalog_part("TPU-v5e");
  if (has_token(tokens, "v4")) return catalog_part("TPU-v4");
  return std::nullopt;
}

std::optional<DeviceSpec> cpu_part(const std::vector<std::string>& tokens) {
  if (has_token(tokens, "epyc") || has_token(tokens, "amd")) return catalog_part("EPYC-9654");
  if (has_token(tokens, "xeon") || has_token(tokens, "intel")) return catalog_part("Xeon-8480+");
  return std::nullopt;
}

// The label keys that name the model of each accelerator resource, most specific first.
std::vector<std::string_view> model_label_keys(std::string_view resource) {
  if (resource == "nvidia.com/gpu")
    return {"hetsched.io/accelerator-model", "nvidia.com/gpu.product",
            "cloud.google.com/gke-accelerator"};
  if (resource == "amd.com/gpu")
    return {"hetsched.io/accelerator-model", "amd.com/gpu.product-name",
            "beta.amd.com/gpu.product-name"};
  if (resource == "google.com/tpu")
    return {"hetsched.io/accelerator-model", "cloud.google.com/gke-tpu-accelerator"};
  return {};
}

std::map<std::string, std::string> read_labels(const nlohmann::json& metadata,
                                               const std::string& path) {
  std::map<std::string, std::string> labels;
  const nlohmann::json* object = kube_json::member(metadata, "labels");
  if (object == nullptr) return labels;
  kube_json::require_object(*object, path + ".labels");
  for (const auto& [key, value] : object->items())
    if (value.is_string()) labels[key] = value.get<std::string>();
  return labels;
}

const std::string* label(const std::map<std::string, std::string>& labels, std::string_view key) {
  const auto it = labels.find(std::string(key));
  return it == labels.end() ? nullptr : &it->second;
}

}  // namespace

const std::vector<KubeAcceleratorResource>& kube_accelerator_resources() {
  static const std::vector<KubeAcceleratorResource> resources{
      {"nvidia.com/gpu", DeviceKind::gpu},
      {"amd.com/gpu", DeviceKind::gpu},
      {"google.com/tpu", DeviceKind::tpu},
  };
  return resources;
}

const KubeAcceleratorResource* find_kube_accelerator_resource(std::string_view name) {
  for (const auto& resource : kube_accelerator_resources())
    if (resource.name == name) return &resource;
  return nullptr;
}

const DeviceSpec& kube_reference_part(DeviceKind kind) {
  static const DeviceSpec cpu = catalog_part("EPYC-9654");
  static const DeviceSpec gpu = catalog_part("A100-80GB");
  static const DeviceSpec tpu = catalog_part("TPU-v4");
  switch (kind) {
    case DeviceKind::cpu:
      return cpu;
    case DeviceKind::tpu:
      return tpu;
    case DeviceKind::gpu:
      break;
  }
  return gpu;
}

std::optional<DeviceSpec> kube_part_from_label(std::string_view label, DeviceKind kind) {
  if (const DeviceSpec* exact = find_catalog_part(label); exact && exact->kind == kind)
    return *exact;
  const auto tokens = label_tokens(label);
  switch (kind) {
    case DeviceKind::gpu:
      return gpu_part(tokens);
    case DeviceKind::tpu:
      return tpu_part(tokens);
    case DeviceKind::cpu:
      return cpu_part(tokens);
  }
  return std::nullopt;
}

EngineNode KubeNode::engine_node() const {
  EngineNode node;
  node.name = name;
  node.state = unschedulable ? EngineNodeState::draining : EngineNodeState::up;
  node.cpus = static_cast<std::uint32_t>(std::floor(std::max(0.0, cpu_cores)));
  node.memory_bytes = memory_bytes;
  for (const auto& [resource, accelerator] : accelerators) {
    EngineDeviceGroup group;
    group.kind = accelerator.kind;
    group.model = accelerator.known_model ? accelerator.part.model : accelerator.model_label;
    if (group.model.empty()) group.model = resource;
    group.count = static_cast<std::uint32_t>(std::floor(accelerator.allocatable));
    node.devices.push_back(group);
  }
  return node;
}

KubeNode parse_kube_node(const nlohmann::json& object) {
  kube_json::require_object(object, "node");
  const nlohmann::json* metadata = kube_json::member(object, "metadata");
  if (metadata == nullptr) throw InputError("node.metadata: missing (expected an object)");
  kube_json::require_object(*metadata, "node.metadata");
  KubeNode node;
  node.name = kube_json::require_string(*metadata, "name", "node.metadata");
  const std::string path = "node '" + node.name + "'";
  node.object = object;
  const auto labels = read_labels(*metadata, path + ".metadata");

  if (const nlohmann::json* spec = kube_json::member(object, "spec")) {
    if (const nlohmann::json* flag = kube_json::member(*spec, "unschedulable"))
      node.unschedulable = flag->is_boolean() && flag->get<bool>();
  }
  const nlohmann::json* status = kube_json::member(object, "status");
  const nlohmann::json* resources = nullptr;
  std::string resources_path;
  if (status != nullptr) {
    kube_json::require_object(*status, path + ".status");
    resources = kube_json::member(*status, "allocatable");
    resources_path = path + ".status.allocatable";
    if (resources == nullptr) {
      resources = kube_json::member(*status, "capacity");
      resources_path = path + ".status.capacity";
    }
  }
  if (resources != nullptr) {
    kube_json::require_object(*resources, resources_path);
    for (const auto& [resource, value] : resources->items()) {
      const std::string field = resources_path + "." + resource;
      if (resource == "cpu") {
        node.cpu_cores = kube_json::quantity(value, field);
      } else if (resource == "memory") {
        node.memory_bytes = kube_json::quantity(value, field);
      } else if (const auto* known = find_kube_accelerator_resource(resource)) {
        const double count = kube_json::quantity(value, field);
        if (count <= 0) continue;
        KubeNodeAccelerator accelerator;
        accelerator.kind = known->kind;
        accelerator.allocatable = count;
        for (std::string_view key : model_label_keys(resource)) {
          const std::string* text = label(labels, key);
          if (text == nullptr) continue;
          accelerator.model_label = *text;
          if (auto part = kube_part_from_label(*text, known->kind)) {
            accelerator.part = *part;
            accelerator.known_model = true;
          }
          break;
        }
        if (!accelerator.known_model) accelerator.part = kube_reference_part(known->kind);
        node.accelerators.emplace(resource, std::move(accelerator));
      }
      // Other resources (ephemeral-storage, pods, hugepages-*, vendor devices) are
      // kube-scheduler's own NodeResourcesFit business; the extender leaves them alone.
    }
  }
  node.cpu_part = kube_reference_part(DeviceKind::cpu);
  for (std::string_view key :
       {"hetsched.io/cpu-model", "feature.node.kubernetes.io/cpu-model.vendor_id"}) {
    const std::string* text = label(labels, key);
    if (text == nullptr) continue;
    if (auto part = kube_part_from_label(*text, DeviceKind::cpu)) {
      node.cpu_part = *part;
      node.known_cpu_model = true;
    }
    break;
  }
  return node;
}

std::vector<KubeNode> parse_kube_node_list(const nlohmann::json& node_list) {
  kube_json::require_object(node_list, "NodeList");
  if (!node_list.contains("items"))
    throw InputError("NodeList.items: missing (expected a v1.NodeList with its items)");
  if (const nlohmann::json* kind = kube_json::member(node_list, "kind");
      kind != nullptr && *kind != "NodeList" && *kind != "List")
    throw InputError("NodeList.kind: expected NodeList or List, found " + kind->dump());
  const nlohmann::json* items = kube_json::member(node_list, "items");
  std::vector<KubeNode> nodes;
  if (items == nullptr) return nodes;  // Go encodes an empty list's items as null
  if (!items->is_array())
    throw InputError("NodeList.items: expected an array, found " +
                     kube_json::describe_type(*items));
  for (const auto& item : *items) nodes.push_back(parse_kube_node(item));
  return nodes;
}

}  // namespace hetsched
