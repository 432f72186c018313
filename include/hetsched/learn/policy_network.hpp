// PolicyNetwork: the learned policy's network — a graph encoder (GraphEncoder: message
// passing over each job's DAG, run once at the job's arrival) and a scorer, a small
// multilayer perceptron (ReLU hidden layers, one linear output) that gives each candidate
// decision a score from its features (DecisionFeatures) and its task's embedding; the
// policy picks the best one, or during training samples them by softmax. The embedding's
// share of the scorer's first layer is the same for every decision about a task, so it is
// worked out once per task (embedding_sums) and each score reads the decision's features
// alone. Evaluation here is plain code, fast on one core: each layer's weights kept by
// input column, so that four outputs are summed at once in SIMD registers; training
// (src/trainer/) fits the same weights with libtorch and hands them back.
//
// The model file is JSON: its format name and version, the decision and node feature
// names it was trained on (a file trained for another layout is refused), the encoder's
// and the scorer's layers (sizes, weights and biases), and free-form provenance (the
// command and settings that trained it).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/core/expected.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/learn/dense_layer.hpp"
#include "hetsched/learn/graph_encoder.hpp"

namespace hetsched {

class PolicyNetwork {
 public:
  // Scorer layers whose sizes chain from the feature count plus the encoder's width (the
  // first layer reads the features, then the embedding) to one output (checked by the
  // readers; the trainer builds them so).
  explicit PolicyNetwork(std::vector<DenseLayer> layers, GraphEncoder encoder = {});
  // Fresh weights for training: `hidden` units per hidden layer, Glorot-uniform weights
  // drawn from `rng`, zero biases, after `encoder`.
  static PolicyNetwork initial(std::size_t inputs, std::span<const std::uint32_t> hidden, Rng& rng,
                               GraphEncoder encoder = {});

  // The decision features a score reads.
  std::size_t input_count() const { return layers_.front().inputs - encoder_.width(); }
  const GraphEncoder& encoder() const { return encoder_; }
  const std::vector<DenseLayer>& layers() const { return layers_; }
  // Replaces scorer layer k's weights (outputs × inputs, row-major) and biases, sizes unchanged.
  void assign_layer(std::size_t k, std::span<const float> weights, std::span<const float> bias);
  void assign_encoder_layer(std::size_t k, std::span<const float> weights,
                            std::span<const float> bias) {
    encoder_.assign_layer(k, weights, bias);
  }

  // The first layer's sums for a task of this embedding (encoder().width() values) before
  // any feature is added: its bias plus the embedding's weighted sum; first_width() values.
  std::size_t first_width() const { return layers_.front().outputs; }
  void embedding_sums(std::span<const float> embedding, std::span<float> sums) const;
  // The score of one candidate; `features` holds input_count() values. Without `sums`, the
  // embedding is all zeros (the "wait" candidate, which has no task).
  float score(std::span<const float> features) const { return score(features, layers_[0].bias); }
  float score(std::span<const float> features, std::span<const float> sums) const;

 private:
  void transpose(std::size_t k);

  GraphEncoder encoder_;
  std::vector<DenseLayer> layers_;
  // Per layer, its weights inputs × outputs: score() adds each input's column to all the
  // outputs at once (vectorized, and in the same order per output as a row's dot product).
  std::vector<std::vector<float>> columns_;
  mutable std::vector<float> a_, b_;  // activations, reused between calls
};

// The names of the inputs a model reads: its decisions' features and its tasks' node
// features (the encoder's inputs).
struct ModelInputs {
  std::span<const std::string_view> features;
  std::span<const std::string_view> node_features;
};

// The model file's text: the network, the names of its inputs and `provenance`, a JSON
// object's text (or empty) kept as the file's "training" member.
std::string policy_network_to_json(const PolicyNetwork& network, const ModelInputs& inputs,
                                   std::string_view provenance);
// The network in a model file's text; fails with one line naming `source`, the position
// and what was expected — not JSON, another format or version, inputs other than
// `inputs`, layer sizes that do not chain, too few or too many weights, a weight
// that is not a finite number.
Expected<PolicyNetwork> parse_policy_network(std::string_view text, std::string_view source,
                                             const ModelInputs& inputs);
Expected<PolicyNetwork> read_policy_network(const std::string& path, const ModelInputs& inputs);

}  // namespace hetsched
