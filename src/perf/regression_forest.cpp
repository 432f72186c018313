#include "hetsched/perf/regression_forest.hpp"

#include <fmt/format.h>
#include <xgboost/c_api.h>

#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace hetsched {

namespace {

// Throws with XGBoost's own message when a C API call fails.
void check_xgboost(int status, const char* call) {
  if (status != 0) throw std::runtime_error(fmt::format("XGBoost {}: {}", call, XGBGetLastError()));
}

struct MatrixDeleter {
  void operator()(void* handle) const { XGDMatrixFree(handle); }
};
struct BoosterDeleter {
  void operator()(void* handle) const { XGBoosterFree(handle); }
};

const nlohmann::json* member(const nlohmann::json& json, const char* name) {
  if (!json.is_object()) return nullptr;
  const auto it = json.find(name);
  return it == json.end() ? nullptr : &*it;
}

// A JSON array of numbers (booleans count as 0/1, as XGBoost writes default_left either way).
bool numbers_of(const nlohmann::json* json, std::size_t count, std::vector<double>& out) {
  if (json == nullptr || !json->is_array() || json->size() != count) return false;
  out.clear();
  for (const auto& v : *json) {
    if (v.is_boolean())
      out.push_back(v.get<bool>() ? 1.0 : 0.0);
    else if (v.is_number() && std::isfinite(v.get<double>()))
      out.push_back(v.get<double>());
    else
      return false;
  }
  return true;
}

}  // namespace

RegressionForest RegressionForest::fit(std::span<const float> rows, std::size_t feature_count,
                                       std::span<const float> targets,
                                       const ForestOptions& options) {
  if (feature_count == 0 || targets.empty() || rows.size() != targets.size() * feature_count)
    throw std::invalid_argument(
        fmt::format("RegressionForest::fit: {} values for {} rows of {} features", rows.size(),
                    targets.size(), feature_count));
  DMatrixHandle raw_matrix = nullptr;
  check_xgboost(
      XGDMatrixCreateFromMat(rows.data(), targets.size(), feature_count, NAN, &raw_matrix),
      "XGDMatrixCreateFromMat");
  const std::unique_ptr<void, MatrixDeleter> matrix(raw_matrix);
  check_xgboost(XGDMatrixSetFloatInfo(raw_matrix, "label", targets.data(), targets.size()),
                "XGDMatrixSetFloatInfo");
  BoosterHandle raw_booster = nullptr;
  check_xgboost(XGBoosterCreate(&raw_matrix, 1, &raw_booster), "XGBoosterCreate");
  const std::unique_ptr<void, BoosterDeleter> booster(raw_booster);
  // The mean target as the base score: the trees then fit what the mean does not explain.
  double mean = 0;
  for (float t : targets) mean += t / double(targets.size());
  const std::pair<const char*, std::string> parameters[] = {
      {"objective", "reg:squarederror"},
      {"tree_method", "exact"},
      {"nthread", "1"},
      {"verbosity", "0"},
      {"seed", std::to_string(options.seed)},
      {"max_depth", std::to_string(options.max_depth)},
      {"eta", fmt::format("{}", options.learning_rate)},
      {"min_child_weight", fmt::format("{}", options.min_child_weight)},
      {"lambda", fmt::format("{}", options.l2_regularization)},
      {"base_score", fmt::format("{}", mean)},
  };
  for (const auto& [name, value] : parameters)
    check_xgboost(XGBoosterSetParam(raw_booster, name, value.c_str()), "XGBoosterSetParam");
  for (unsigned round = 0; round < options.rounds; ++round)
    check_xgboost(XGBoosterUpdateOneIter(raw_booster, static_cast<int>(round), raw_matrix),
                  "XGBoosterUpdateOneIter");
  bst_ulong length = 0;
  const char* buffer = nullptr;
  check_xgboost(XGBoosterSaveModelToBuffer(raw_booster, R"({"format": "json"})", &length, &buffer),
                "XGBoosterSaveModelToBuffer");
  auto forest = from_xgboost_json(std::string_view(buffer, length), feature_count);
  if (!forest)
    throw std::runtime_error("XGBoost wrote a model this reader does not know: " + forest.error());
  // The walk must answer as the library does: checked on the rows just fitted, so that a
  // library whose model format or split rule changed is caught here, not in a schedule.
  bst_ulong count = 0;
  const float* library = nullptr;
  check_xgboost(XGBoosterPredict(raw_booster, raw_matrix, 0, 0, 0, &count, &library),
                "XGBoosterPredict");
  for (std::size_t i = 0; i < count && i < targets.size(); ++i) {
    const double ours = forest->predict(rows.subspan(i * feature_count, feature_count));
    if (std::abs(ours - library[i]) > 1e-4 * (1.0 + std::abs(library[i])))
      throw std::runtime_error(fmt::format(
          "the tree walk predicts {} for row {}, XGBoost {}: its model format is not the one "
          "this reader knows",
          ours, i, library[i]));
  }
  return std::move(*forest);
}

double RegressionForest::predict(std::span<const float> row) const {
  double sum = base_score_;
  for (std::uint32_t root : roots_) {
    const Node* node = &nodes_[root];
    while (node->left >= 0) {
      const float value = row[node->feature];
      const bool left = std::isnan(value) ? node->default_left : value < node->threshold;
      node = &nodes_[static_cast<std::size_t>(left ? node->left : node->right)];
    }
    sum += node->threshold;
  }
  return sum;
}

nlohmann::json RegressionForest::to_json() const {
  nlohmann::json trees = nlohmann::json::array();
  for (std::size_t t = 0; t < roots_.size(); ++t) {
    const std::size_t begin = roots_[t];
    const std::size_t end = t + 1 < roots_.size() ? roots_[t + 1] : nodes_.size();
    nlohmann::json left = nlohmann::json::array(), right = nlohmann::json::array(),
                   feature = nlohmann::json::array(), threshold = nlohmann::json::array(),
                   default_left = nlohmann::json::array();
    for (std::size_t n = begin; n < end; ++n) {  // children relative to the tree's first node
      const Node& node = nodes_[n];
      left.push_back(node.left < 0 ? -1 : node.left - static_cast<std::int32_t>(begin));
      right.push_back(node.right < 0 ? -1 : node.right - static_cast<std::int32_t>(begin));
      feature.push_back(node.feature);
      threshold.push_back(node.threshold);
      default_left.push_back(node.default_left ? 1 : 0);
    }
    trees.push_back({{"left", std::move(left)},
                     {"right", std::move(right)},
                     {"feature", std::move(feature)},
                     {"threshold", std::move(threshold)},
                     {"default_left", std::move(default_left)}});
  }
  return {
      {"base_score", base_score_}, {"feature_count", feature_count_}, {"trees", std::move(trees)}};
}

Expected<RegressionForest> RegressionForest::from_json(const nlohmann::json& json,
                                                       std::string_view where) {
  auto fail = [&](std::string_view what, std::string_view expected) {
    return failure(fmt::format("{}: {}: expected {}", where, what, expected));
  };
  RegressionForest forest;
  const auto* base = member(json, "base_score");
  if (base == nullptr || !base->is_number() || !std::isfinite(base->get<double>()))
    return fail("base_score", "a finite number");
  forest.base_score_ = base->get<double>();
  const auto* features = member(json, "feature_count");
  if (features == nullptr || !features->is_number_integer() || features->get<std::int64_t>() < 1 ||
      features->get<std::int64_t>() > 4096)
    return fail("feature_count", "a whole number from 1 to 4096");
  forest.feature_count_ = features->get<std::size_t>();
  const auto* trees = member(json, "trees");
  if (trees == nullptr || !trees->is_array()) return fail("trees", "a list of trees");
  std::vector<double> left, right, feature, threshold, default_left;
  for (std::size_t t = 0; t < trees->size(); ++t) {
    const nlohmann::json& tree = (*trees)[t];
    const std::string at = fmt::format("trees[{}]", t);
    const auto* l = member(tree, "left");
    if (l == nullptr || !l->is_array() || l->empty() || l->size() > (1u << 20))
      return fail(at + ".left", "a non-empty list of child indices");
    const std::size_t count = l->size();
    if (!numbers_of(l, count, left) || !numbers_of(member(tree, "right"), count, right) ||
        !numbers_of(member(tree, "feature"), count, feature) ||
        !numbers_of(member(tree, "threshold"), count, threshold) ||
        !numbers_of(member(tree, "default_left"), count, default_left))
      return fail(at, fmt::format("left, right, feature, threshold and default_left, each a list "
                                  "of {} finite numbers",
                                  count));
    const auto begin = static_cast<std::int32_t>(forest.nodes_.size());
    forest.roots_.push_back(static_cast<std::uint32_t>(begin));
    for (std::size_t n = 0; n < count; ++n) {
      Node node;
      const bool leaf = left[n] < 0;
      // A child lies after its parent (XGBoost numbers nodes breadth first), so every walk
      // ends at a leaf.
      auto child_ok = [&](double c) {
        return c > double(n) && c < double(count) && c == std::floor(c);
      };
      if (!leaf && (!child_ok(left[n]) || !child_ok(right[n])))
        return fail(fmt::format("{} node {}", at, n), "children after the node, within the tree");
      if (!leaf && (feature[n] < 0 || feature[n] >= double(forest.feature_count_) ||
                    feature[n] != std::floor(feature[n])))
        return fail(fmt::format("{} node {}", at, n),
                    fmt::format("a feature index below {}", forest.feature_count_));
      node.left = leaf ? -1 : begin + static_cast<std::int32_t>(left[n]);
      node.right = leaf ? -1 : begin + static_cast<std::int32_t>(right[n]);
      node.feature = leaf ? 0 : static_cast<std::uint32_t>(feature[n]);
      node.threshold = static_cast<float>(threshold[n]);
      node.default_left = default_left[n] != 0;
      forest.nodes_.push_back(node);
    }
  }
  return forest;
}

Expected<RegressionForest> RegressionForest::from_xgboost_json(std::string_view text,
                                                               std::size_t feature_count) {
  nlohmann::json model;
  try {
    model = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    return failure(fmt::format("not JSON ({})", e.what()));
  }
  const auto* learner = member(model, "learner");
  const auto* parameters = learner ? member(*learner, "learner_model_param") : nullptr;
  const auto* base = parameters ? member(*parameters, "base_score") : nullptr;
  const auto* booster = learner ? member(*learner, "gradient_booster") : nullptr;
  const auto* inner = booster ? member(*booster, "model") : nullptr;
  const auto* trees = inner ? member(*inner, "trees") : nullptr;
  if (base == nullptr || !base->is_string() || trees == nullptr || !trees->is_array())
    return failure("no learner.learner_model_param.base_score or gradient_booster.model.trees");
  double base_score = 0;
  try {
    base_score = std::stod(base->get<std::string>());
  } catch (const std::exception&) {
    return failure("base_score \"" + base->get<std::string>() + "\" is not a number");
  }
  nlohmann::json ours = {{"base_score", base_score},
                         {"feature_count", feature_count},
                         {"trees", nlohmann::json::array()}};
  for (const auto& tree : *trees) {
    const auto* left = member(tree, "left_children");
    const auto* right = member(tree, "right_children");
    const auto* split = member(tree, "split_indices");
    const auto* condition = member(tree, "split_conditions");
    const auto* default_left = member(tree, "default_left");
    if (!left || !right || !split || !condition || !default_left)
      return failure("a tree without children, split indices, conditions or default_left");
    ours["trees"].push_back({{"left", *left},
                             {"right", *right},
                             {"feature", *split},
                             {"threshold", *condition},
                             {"default_left", *default_left}});
  }
  return from_json(ours, "XGBoost's model");
}

}  // namespace hetsched
