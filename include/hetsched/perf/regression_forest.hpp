// RegressionForest: an ensemble of regression trees fitted by gradient boosting
// (Chen & Guestrin, "XGBoost: a scalable tree boosting system", KDD 2016).
//
// Fitting runs XGBoost (Debian's libxgboost, its C API) on one thread with the exact
// greedy split finder and no row or column sampling, so the same rows and options give
// the same trees, byte for byte. The fitted trees are then copied out of XGBoost's JSON
// model into plain arrays, and predictions walk them in plain code: a scheduler asks a
// performance model millions of times, and one call into the library costs more than the
// whole walk. A row goes left at a node when its feature is below the node's threshold
// (both as float, as XGBoost compares), and where the feature is missing (NaN) it goes the
// way XGBoost learned for missing values; the prediction is the base score plus one leaf
// per tree.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/core/expected.hpp"

namespace hetsched {

struct ForestOptions {
  unsigned rounds = 200;  // trees
  unsigned max_depth = 4;
  double learning_rate = 0.1;
  double min_child_weight = 1.0;
  double l2_regularization = 1.0;
  std::uint64_t seed = 1;
};

class RegressionForest {
 public:
  RegressionForest() = default;

  // Fits `targets` from `rows` (row-major, `feature_count` floats per row; NaN is missing).
  // Throws std::invalid_argument when the shapes disagree or there are no rows, and
  // std::runtime_error with the library's message when XGBoost fails.
  static RegressionForest fit(std::span<const float> rows, std::size_t feature_count,
                              std::span<const float> targets, const ForestOptions& options);

  // The prediction for one row of feature_count() floats.
  double predict(std::span<const float> row) const;

  std::size_t feature_count() const { return feature_count_; }
  std::size_t tree_count() const { return roots_.size(); }

  // This forest as JSON (base score, feature count, trees as parallel arrays), and back;
  // from_json names what is wrong in `where` (e.g. "model.json: mean") and checks that every
  // child index and feature index is in range, so a walk can never leave its arrays.
  nlohmann::json to_json() const;
  static Expected<RegressionForest> from_json(const nlohmann::json& json, std::string_view where);

  // The forest XGBoost wrote as a JSON model (for the fit, and for the tests that check the
  // walk against the library's own predictions).
  static Expected<RegressionForest> from_xgboost_json(std::string_view text,
                                                      std::size_t feature_count);

 private:
  struct Node {
    std::int32_t left = -1;   // -1: a leaf
    std::int32_t right = -1;  // (indices into nodes_, absolute)
    std::uint32_t feature = 0;
    float threshold = 0;  // the leaf's value at a leaf
    bool default_left = false;
  };
  double base_score_ = 0;
  std::size_t feature_count_ = 0;
  std::vector<Node> nodes_;           // all trees, one after another
  std::vector<std::uint32_t> roots_;  // the first node of each tree
};

}  // namespace hetsched
