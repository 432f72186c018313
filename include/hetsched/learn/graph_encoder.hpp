// GraphEncoder: the learned policy's graph network. It embeds each task of a job's DAG in
// a few numbers that summarize the task and its neighbourhood, as Decima's and READYS'
// graph networks do, so that the scorer sees more of the graph than one task's own
// features. Each task starts from its node features (its size, how much faster its best
// device is, its rank, its fan-in and fan-out, the data it sends), through one dense layer;
// then each round of message passing gives every task a new embedding from its own, the
// mean of its successors' and the mean of its predecessors' — after K rounds a task's
// embedding reflects its K-hop neighbourhood both ways (what it waits for, what waits for it).
//
//   h⁰(v) = relu(W₀ x(v) + b₀)
//   hᵏ(v) = relu(Wₖ [hᵏ⁻¹(v); mean over successors w of hᵏ⁻¹(w); mean over predecessors u
//           of hᵏ⁻¹(u)] + bₖ)
//
// A job is embedded once, at its arrival: the cost is O(N·width·(node features + 3·K·width)
// + K·edges·width) for N tasks, nothing per decision. An encoder of width 0 embeds nothing.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/learn/dense_layer.hpp"
#include "hetsched/perf/dag_instance.hpp"

namespace hetsched {

class GraphEncoder {
 public:
  GraphEncoder() = default;  // width 0
  // layers[0]: node features → width; each next one: 3·width → width (checked by the model
  // reader; initial() builds them so).
  explicit GraphEncoder(std::vector<DenseLayer> layers);
  static GraphEncoder initial(std::size_t node_features, std::uint32_t width, std::size_t rounds,
                              Rng& rng);

  std::size_t width() const { return layers_.empty() ? 0 : layers_.front().outputs; }
  std::size_t node_feature_count() const { return layers_.empty() ? 0 : layers_.front().inputs; }
  std::size_t rounds() const { return layers_.empty() ? 0 : layers_.size() - 1; }
  const std::vector<DenseLayer>& layers() const { return layers_; }
  // Replaces layer k's weights (outputs × inputs, row-major) and biases, sizes unchanged.
  void assign_layer(std::size_t k, std::span<const float> weights, std::span<const float> bias);

  // The embeddings of a DAG's N tasks (N × width(), task-major) from their node features
  // (N × node_feature_count()) and the edges between them (from → to, indices < N).
  void encode(std::span<const float> node_features, std::span<const DagEdge> edges,
              std::vector<float>& embeddings) const;

 private:
  std::vector<DenseLayer> layers_;
};

}  // namespace hetsched
