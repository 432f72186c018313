#include "hetsched/learn/graph_encoder.hpp"

#include <algorithm>

namespace hetsched {

GraphEncoder::GraphEncoder(std::vector<DenseLayer> layers) : layers_(std::move(layers)) {}

GraphEncoder GraphEncoder::initial(std::size_t node_features, std::uint32_t width,
                                   std::size_t rounds, Rng& rng) {
  if (width == 0) return GraphEncoder();
  std::vector<DenseLayer> layers;
  layers.push_back(DenseLayer::initial(static_cast<std::uint32_t>(node_features), width, rng));
  for (std::size_t k = 0; k < rounds; ++k)
    layers.push_back(DenseLayer::initial(3 * width, width, rng));
  return GraphEncoder(std::move(layers));
}

void GraphEncoder::assign_layer(std::size_t k, std::span<const float> weights,
                                std::span<const float> bias) {
  layers_.at(k).assign(weights, bias);
}

void GraphEncoder::encode(std::span<const float> node_features, std::span<const DagEdge> edges,
                          std::vector<float>& embeddings) const {
  const std::size_t E = width();
  if (E == 0) {
    embeddings.clear();
    return;
  }
  const std::size_t F = node_feature_count();
  const std::size_t N = node_features.size() / F;
  embeddings.resize(N * E);
  for (std::size_t v = 0; v < N; ++v)
    layers_.front().apply(&node_features[v * F], true, &embeddings[v * E]);
  if (rounds() == 0) return;
  std::vector<float> successors(N), predecessors(N);
  for (const DagEdge& e : edges) {
    successors[e.from] += 1;
    predecessors[e.to] += 1;
  }
  // Per task: [own; mean over successors; mean over predecessors], then the next embedding.
  std::vector<float> gathered(N * 3 * E);
  for (std::size_t k = 1; k < layers_.size(); ++k) {
    std::fill(gathered.begin(), gathered.end(), 0.0f);
    for (std::size_t v = 0; v < N; ++v) std::copy_n(&embeddings[v * E], E, &gathered[v * 3 * E]);
    for (const DagEdge& e : edges)
      for (std::size_t j = 0; j < E; ++j) {
        gathered[std::size_t(e.from) * 3 * E + E + j] += embeddings[std::size_t(e.to) * E + j];
        gathered[std::size_t(e.to) * 3 * E + 2 * E + j] += embeddings[std::size_t(e.from) * E + j];
      }
    for (std::size_t v = 0; v < N; ++v) {
      float* row = &gathered[v * 3 * E];
      if (successors[v] > 0)
        for (std::size_t j = 0; j < E; ++j) row[E + j] /= successors[v];
      if (predecessors[v] > 0)
        for (std::size_t j = 0; j < E; ++j) row[2 * E + j] /= predecessors[v];
      layers_[k].apply(row, true, &embeddings[v * E]);
    }
  }
}

}  // namespace hetsched
