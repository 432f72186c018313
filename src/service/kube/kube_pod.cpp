// Reading a v1.Pod: resource requests summed the way kube-scheduler's
// NodeResourcesFit sums them (computePodResourceRequest: containers add up, init
// containers run one at a time so the pod needs the largest of them if that is more,
// and the RuntimeClass overhead comes on top), and the work annotations.
#include "hetsched/service/kube/kube_pod.hpp"

#include <algorithm>

#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/service/kube/kube_node.hpp"
#include "kube_json_fields.hpp"

namespace hetsched {
namespace {

// The resources the extender reads, in base units; others are not its business.
struct Resources {
  double cpu = 0;
  double memory = 0;
  std::map<std::string, double> accelerators;

  void add(const Resources& other) {
    cpu += other.cpu;
    memory += other.memory;
    for (const auto& [name, count] : other.accelerators) accelerators[name] += count;
  }
  void raise_to(const Resources& other) {
    cpu = std::max(cpu, other.cpu);
    memory = std::max(memory, other.memory);
    for (const auto& [name, count] : other.accelerators)
      accelerators[name] = std::max(accelerators[name], count);
  }
};

void read_resource_map(const nlohmann::json& map, const std::string& path, Resources& into,
                       bool only_missing) {
  kube_json::require_object(map, path);
  for (const auto& [name, value] : map.items()) {
    const std::string field = path + "." + name;
    if (name == "cpu") {
      if (!only_missing || into.cpu == 0) into.cpu = kube_json::quantity(value, field);
    } else if (name == "memory") {
      if (!only_missing || into.memory == 0) into.memory = kube_json::quantity(value, field);
    } else if (find_kube_accelerator_resource(name) != nullptr) {
      if (!only_missing || !into.accelerators.contains(name))
        into.accelerators[name] = kube_json::quantity(value, field);
    }
  }
}

// One container's request: requests, with limits filling in what requests leave out.
Resources container_request(const nlohmann::json& container, const std::string& path) {
  kube_json::require_object(container, path);
  Resources request;
  const nlohmann::json* resources = kube_json::member(container, "resources");
  if (resources == nullptr) return request;
  kube_json::require_object(*resources, path + ".resources");
  if (const nlohmann::json* requests = kube_json::member(*resources, "requests"))
    read_resource_map(*requests, path + ".resources.requests", request, false);
  if (const nlohmann::json* limits = kube_json::member(*resources, "limits"))
    read_resource_map(*limits, path + ".resources.limits", request, true);
  return request;
}

std::vector<Resources> container_requests(const nlohmann::json& spec, std::string_view key,
                                          const std::string& path) {
  std::vector<Resources> requests;
  const nlohmann::json* list = kube_json::member(spec, key);
  if (list == nullptr) return requests;
  const std::string list_path = path + "." + std::string(key);
  if (!list->is_array())
    throw InputError(list_path + ": expected an array, found " + kube_json::describe_type(*list));
  for (std::size_t i = 0; i < list->size(); ++i)
    requests.push_back(container_request((*list)[i], list_path + "[" + std::to_string(i) + "]"));
  return requests;
}

std::string annotation(const nlohmann::json& annotations, std::string_view key) {
  const nlohmann::json* value = kube_json::member(annotations, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::string current;
  for (char c : text + ",") {
    if (c == ',') {
      if (!current.empty()) items.push_back(current);
      current.clear();
    } else if (c != ' ') {
      current += c;
    }
  }
  return items;
}

void read_work(const nlohmann::json& annotations, const std::string& path, KubePod& pod) {
  const bool accelerated = !pod.accelerators.empty();
  pod.work.name = pod.namespace_name + "/" + pod.name;
  pod.work.kernel = KernelClass::dense_matmul;
  pod.work.precision = accelerated ? Precision::fp16 : Precision::fp32;
  pod.work.flops = 1e15;
  pod.work.bytes = 0;
  const std::string field = path + ".annotations.";
  if (auto text = annotation(annotations, "hetsched.io/kernel-class"); !text.empty()) {
    const auto kernel = parse_kernel_class(text);
    if (!kernel)
      throw InputError(field + "hetsched.io/kernel-class: " +
                       unknown_name_message("kernel class", text, kernel_class_names()));
    pod.work.kernel = *kernel;
  }
  if (auto text = annotation(annotations, "hetsched.io/precision"); !text.empty()) {
    const auto precision = parse_precision(text);
    if (!precision)
      throw InputError(field + "hetsched.io/precision: " +
                       unknown_name_message("precision", text, precision_names()));
    pod.work.precision = *precision;
  }
  const auto non_negative = [&](std::string_view key, double& into) {
    const std::string text = annotation(annotations, key);
    if (text.empty()) return;
    const std::string where = field + std::string(key);
    const double value = require_kube_quantity(text, where);
    if (value < 0) throw InputError(where + ": must not be negative");
    into = value;
  };
  non_negative("hetsched.io/flops", pod.work.flops);
  non_negative("hetsched.io/bytes", pod.work.bytes);
  non_negative("hetsched.io/device-memory", pod.work.memory_bytes);
  if (auto text = annotation(annotations, "hetsched.io/allowed-models"); !text.empty()) {
    for (const std::string& model : split_list(text)) {
      const DeviceSpec* part = find_catalog_part(model);
      const bool a100_40gb = equals_ignoring_case(model, "A100-40GB");
      if (part == nullptr && !a100_40gb) {
        auto names = catalog_model_names();
        names.push_back("A100-40GB");
        throw InputError(field + "hetsched.io/allowed-models: " +
                         unknown_name_message("device model", model, names));
      }
      pod.allowed_models.push_back(a100_40gb ? "A100-40GB" : part->model);
    }
  }
}

}  // namespace

std::string KubePod::accelerator_resource() const {
  return accelerators.empty() ? std::string() : accelerators.begin()->first;
}

double KubePod::accelerator_count() const {
  return accelerators.empty() ? 0.0 : accelerators.begin()->second;
}

KubePod parse_kube_pod(const nlohmann::json& object) {
  kube_json::require_object(object, "Pod");
  const nlohmann::json* metadata = kube_json::member(object, "metadata");
  if (metadata == nullptr) throw InputError("Pod.metadata: missing (expected an object)");
  kube_json::require_object(*metadata, "Pod.metadata");
  KubePod pod;
  pod.name = kube_json::require_string(*metadata, "name", "Pod.metadata");
  if (auto ns = kube_json::optional_string(*metadata, "namespace", "Pod.metadata"); !ns.empty())
    pod.namespace_name = ns;
  pod.uid = kube_json::optional_string(*metadata, "uid", "Pod.metadata");
  const std::string path = "Pod '" + pod.namespace_name + "/" + pod.name + "'";

  const nlohmann::json* spec = kube_json::member(object, "spec");
  if (spec == nullptr) throw InputError(path + ".spec: missing (expected an object)");
  kube_json::require_object(*spec, path + ".spec");
  Resources total;
  for (const Resources& r : container_requests(*spec, "containers", path + ".spec")) total.add(r);
  for (const Resources& r : container_requests(*spec, "initContainers", path + ".spec"))
    total.raise_to(r);
  if (const nlohmann::json* overhead = kube_json::member(*spec, "overhead")) {
    Resources extra;
    read_resource_map(*overhead, path + ".spec.overhead", extra, false);
    total.add(extra);
  }
  pod.cpu_cores = total.cpu;
  pod.memory_bytes = total.memory;
  for (const auto& [name, count] : total.accelerators) {
    if (count < 0) throw InputError(path + ": requests a negative amount of " + name);
    if (count > 0) pod.accelerators[name] = count;
  }
  if (pod.accelerators.size() > 1) {
    std::string names;
    for (const auto& [name, count] : pod.accelerators)
      names += (names.empty() ? "" : " and ") + name;
    throw InputError(path + ": requests both " + names +
                     "; hetsched places a pod on one accelerator kind");
  }
  if (pod.cpu_cores < 0 || pod.memory_bytes < 0)
    throw InputError(path + ": requests a negative amount of cpu or memory");
  static const nlohmann::json no_annotations = nlohmann::json::object();
  const nlohmann::json* annotations = kube_json::member(*metadata, "annotations");
  read_work(annotations != nullptr ? *annotations : no_annotations, path + ".metadata", pod);
  return pod;
}

}  // namespace hetsched
