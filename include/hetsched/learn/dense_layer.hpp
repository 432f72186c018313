// DenseLayer: one fully connected layer of the learned policy's networks (the graph
// encoder's and the scorer's) — weights, biases, Glorot-uniform initial values and its
// plain evaluation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/core/rng.hpp"

namespace hetsched {

struct DenseLayer {
  std::uint32_t inputs = 0;
  std::uint32_t outputs = 0;
  std::vector<float> weights;  // outputs × inputs, row-major
  std::vector<float> bias;     // outputs

  // Glorot-uniform weights drawn from `rng`, zero biases.
  static DenseLayer initial(std::uint32_t inputs, std::uint32_t outputs, Rng& rng);
  // Replaces the weights (outputs × inputs, row-major) and biases, sizes unchanged.
  void assign(std::span<const float> new_weights, std::span<const float> new_bias);
  // out = W·in + b, through a ReLU when `relu`; `in` holds `inputs` values, `out` `outputs`.
  void apply(const float* in, bool relu, float* out) const;
};

}  // namespace hetsched
