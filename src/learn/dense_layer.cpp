#include "hetsched/learn/dense_layer.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hetsched {

DenseLayer DenseLayer::initial(std::uint32_t inputs, std::uint32_t outputs, Rng& rng) {
  DenseLayer l{inputs, outputs, std::vector<float>(std::size_t(inputs) * outputs),
               std::vector<float>(outputs, 0.0f)};
  const double limit = std::sqrt(6.0 / double(inputs + outputs));
  for (float& w : l.weights) w = static_cast<float>(rng.uniform(-limit, limit));
  return l;
}

void DenseLayer::assign(std::span<const float> new_weights, std::span<const float> new_bias) {
  if (new_weights.size() != weights.size() || new_bias.size() != bias.size())
    throw std::invalid_argument("DenseLayer::assign: sizes differ from the layer's");
  std::copy(new_weights.begin(), new_weights.end(), weights.begin());
  std::copy(new_bias.begin(), new_bias.end(), bias.begin());
}

void DenseLayer::apply(const float* in, bool relu, float* out) const {
  for (std::uint32_t o = 0; o < outputs; ++o) {
    const float* row = &weights[std::size_t(o) * inputs];
    float sum = bias[o];
    for (std::uint32_t i = 0; i < inputs; ++i) sum += row[i] * in[i];
    out[o] = relu ? std::max(sum, 0.0f) : sum;
  }
}

}  // namespace hetsched
