// The learned policy's registry entry and the model built into the binary.
#include <string_view>

#include "hetsched/core/input_error.hpp"
#include "hetsched/learn/learned_policy.hpp"

namespace hetsched {

namespace builtin {
extern const std::string_view learned_policy_model;  // generated/learned_model.cpp
}

const PolicyNetwork& builtin_policy_network() {
  static const PolicyNetwork network = [] {
    auto parsed =
        parse_policy_network(builtin::learned_policy_model,
                             "data/models/learned_policy.json (built in)", learned_model_inputs());
    if (!parsed) throw InputError(parsed.error());
    return std::move(*parsed);
  }();
  return network;
}

std::unique_ptr<SchedulingPolicy> make_learned_policy(const PolicyOptions& options) {
  if (options.learned_model.empty())
    return std::make_unique<LearnedPolicy>(builtin_policy_network());
  auto network = read_policy_network(options.learned_model, learned_model_inputs());
  if (!network) throw InputError(network.error());
  return std::make_unique<LearnedPolicy>(std::move(*network));
}

}  // namespace hetsched
