// libFuzzer target for the learned policy's model file (parse_policy_network): it answers
// failures as values, so any exception at all, crash, leak or sanitizer report is a finding.
// Each input is read twice: against the feature names it lists itself (so that the layers
// and weights are reached) and against fixed lists (the path of a model trained on other
// features).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/learn/policy_network.hpp"

namespace {

// The names under the input's `key`, when it is a JSON object that has them as strings.
std::vector<std::string> listed_features(std::string_view text, const char* key) {
  std::vector<std::string> names;
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return names;
  const auto features = json.find(key);
  if (features == json.end() || !features->is_array()) return names;
  for (const nlohmann::json& name : *features)
    if (name.is_string()) names.push_back(name.get<std::string>());
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> listed = listed_features(text, "features");
  const std::vector<std::string> listed_nodes = listed_features(text, "node_features");
  const std::vector<std::string_view> own(listed.begin(), listed.end());
  const std::vector<std::string_view> own_nodes(listed_nodes.begin(), listed_nodes.end());
  (void)hetsched::parse_policy_network(text, "fuzz-model.json", {own, own_nodes});
  constexpr std::string_view kFixed[] = {"wait", "run_time", "device_busy"};
  constexpr std::string_view kFixedNodes[] = {"rank_ratio"};
  (void)hetsched::parse_policy_network(text, "fuzz-model.json", {kFixed, kFixedNodes});
  return 0;
}
