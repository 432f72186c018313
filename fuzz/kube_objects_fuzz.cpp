// libFuzzer target for the Kubernetes objects the extender reads (v1.Pod, v1.Node and
// v1.NodeList, from kube-scheduler's requests and the API server): any JSON value is given
// to parse_kube_pod, parse_kube_node and parse_kube_node_list. A value that is not such an
// object must surface as InputError only; any other exception (a JSON type error escaping
// included), crash, leak or sanitizer report is a finding. Bytes that are not JSON are the
// JSON library's to refuse, before these parsers.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "hetsched/core/input_error.hpp"
#include "hetsched/service/kube/kube_node.hpp"
#include "hetsched/service/kube/kube_pod.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return 0;
  // kube-scheduler's ExtenderArgs carries the pod under "Pod" and the nodes under "Nodes".
  const nlohmann::json* pod = &json;
  if (json.is_object() && json.contains("Pod")) pod = &json["Pod"];
  try {
    (void)hetsched::parse_kube_pod(*pod);
  } catch (const hetsched::InputError&) {
  }
  // A NodeList's first item, or the value itself, as one v1.Node.
  const nlohmann::json* node = &json;
  if (json.is_object() && json.contains("items") && json["items"].is_array() &&
      !json["items"].empty())
    node = &json["items"][0];
  try {
    (void)hetsched::parse_kube_node(*node);
  } catch (const hetsched::InputError&) {
  }
  const nlohmann::json* nodes = &json;
  if (json.is_object() && json.contains("Nodes")) nodes = &json["Nodes"];
  try {
    (void)hetsched::parse_kube_node_list(*nodes);
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
