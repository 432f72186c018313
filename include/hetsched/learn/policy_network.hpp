// PolicyNetwork: the learned policy's scoring network — a small multilayer perceptron
// (ReLU hidden layers, one linear output) that gives each candidate decision a score from
// its features (DecisionFeatures); the policy picks the best one, or during training
// samples them by softmax. Its evaluation here is plain code, fast on one core: each layer's
// weights kept by input column, so that four outputs are summed at once in SIMD registers;
// training (src/trainer/) fits the same weights with libtorch and hands them back.
//
// The model file is JSON: its format name and version, the feature names it was trained
// on (a file trained for another layout is refused), the layers' sizes, weights and
// biases, and free-form provenance (the command and settings that trained it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/core/expected.hpp"
#include "hetsched/core/rng.hpp"

namespace hetsched {

struct DenseLayer {
  std::uint32_t inputs = 0;
  std::uint32_t outputs = 0;
  std::vector<float> weights;  // outputs × inputs, row-major
  std::vector<float> bias;     // outputs
};

class PolicyNetwork {
 public:
  // Layers whose sizes chain from the feature count to one output (checked by the
  // readers; the trainer builds them so).
  explicit PolicyNetwork(std::vector<DenseLayer> layers);
  // Fresh weights for training: `hidden` units per hidden layer, Glorot-uniform weights
  // drawn from `rng`, zero biases.
  static PolicyNetwork initial(std::size_t inputs, std::span<const std::uint32_t> hidden, Rng& rng);

  std::size_t input_count() const { return layers_.front().inputs; }
  const std::vector<DenseLayer>& layers() const { return layers_; }
  // Replaces layer k's weights (outputs × inputs, row-major) and biases, sizes unchanged.
  void assign_layer(std::size_t k, std::span<const float> weights, std::span<const float> bias);

  // The score of one candidate; `features` holds input_count() values.
  float score(std::span<const float> features) const;

 private:
  void transpose(std::size_t k);

  std::vector<DenseLayer> layers_;
  // Per layer, its weights inputs × outputs: score() adds each input's column to all the
  // outputs at once (vectorized, and in the same order per output as a row's dot product).
  std::vector<std::vector<float>> columns_;
  mutable std::vector<float> a_, b_;  // activations, reused between calls
};

// The model file's text: the network, the feature names it reads and `provenance`, a JSON
// object's text (or empty) kept as the file's "training" member.
std::string policy_network_to_json(const PolicyNetwork& network,
                                   std::span<const std::string_view> feature_names,
                                   std::string_view provenance);
// The network in a model file's text; fails with one line naming `source`, the position
// and what was expected — not JSON, another format or version, features other than
// `feature_names`, layer sizes that do not chain, too few or too many weights, a weight
// that is not a finite number.
Expected<PolicyNetwork> parse_policy_network(std::string_view text, std::string_view source,
                                             std::span<const std::string_view> feature_names);
Expected<PolicyNetwork> read_policy_network(const std::string& path,
                                            std::span<const std::string_view> feature_names);

}  // namespace hetsched
