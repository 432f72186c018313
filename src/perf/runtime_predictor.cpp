#include "hetsched/perf/runtime_predictor.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/quantile.hpp"
#include "hetsched/core/rng.hpp"
#include "hetsched/core/text_file.hpp"

namespace hetsched {

namespace {

constexpr const char* kFormat = "hetsched-runtime-predictor";
constexpr double kInterval95 = 1.959963984540054;
// A floor under the learned spread, so that no interval collapses to a point.
constexpr double kSmallestLogSigma = 0.01;

float log_scale(double x) { return static_cast<float>(std::log10(1.0 + std::max(0.0, x))); }

bool usable(const RuntimeMeasurement& m) {
  return m.seconds > 0 && std::isfinite(m.seconds) && m.roofline_seconds > 0 &&
         std::isfinite(m.roofline_seconds);
}

float index_in(const std::vector<std::string>& sorted, std::string_view name) {
  const auto it = std::lower_bound(sorted.begin(), sorted.end(), name);
  return it != sorted.end() && *it == name ? static_cast<float>(it - sorted.begin()) : NAN;
}

std::vector<std::string> sorted_unique(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

const std::array<std::string_view, RuntimePredictor::kFeatureCount>&
RuntimePredictor::feature_names() {
  static const std::array<std::string_view, kFeatureCount> names = {
      "kernel",       "device_model",      "kernel_class",      "precision",
      "device_kind",  "log10_flops",       "log10_bytes",       "log10_intensity",
      "log10_matrix_flops", "log10_vector_flops", "log10_memory_bandwidth",
      "log10_roofline_seconds"};
  return names;
}

std::string RuntimePredictor::pair_key(std::string_view kernel,
                                       std::string_view device_model) const {
  return fmt::format("{}\t{}", kernel, device_model);
}

std::array<float, RuntimePredictor::kFeatureCount> RuntimePredictor::features(
    const RuntimeMeasurement& m) const {
  return {index_in(kernels_, m.kernel),
          index_in(device_models_, m.device_model),
          static_cast<float>(m.kernel_class),
          static_cast<float>(m.precision),
          static_cast<float>(m.device_kind),
          log_scale(m.flops),
          log_scale(m.bytes),
          static_cast<float>(std::log10((1.0 + m.flops) / (1.0 + m.bytes))),
          log_scale(m.matrix_flops),
          log_scale(m.vector_flops),
          log_scale(m.memory_bandwidth),
          static_cast<float>(std::log10(std::max(m.roofline_seconds, 1e-12)))};
}

RuntimePredictor RuntimePredictor::fit(const std::vector<RuntimeMeasurement>& measurements,
                                       const RuntimePredictorOptions& options) {
  std::vector<const RuntimeMeasurement*> rows;
  for (const RuntimeMeasurement& m : measurements)
    if (usable(m)) rows.push_back(&m);
  const std::size_t folds = std::max(2u, options.folds);
  if (rows.size() < 2 * folds)
    throw InputError(fmt::format(
        "{} measurements with a run time and a roofline prediction above 0; fitting a run-time "
        "predictor needs at least {}",
        rows.size(), 2 * folds));
  RuntimePredictor predictor;
  std::vector<std::string> kernels, devices, pairs;
  for (const RuntimeMeasurement* m : rows) {
    kernels.push_back(m->kernel);
    devices.push_back(m->device_model);
  }
  predictor.kernels_ = sorted_unique(std::move(kernels));
  predictor.device_models_ = sorted_unique(std::move(devices));
  for (const RuntimeMeasurement* m : rows) pairs.push_back(predictor.pair_key(m->kernel, m->device_model));
  predictor.pairs_ = sorted_unique(std::move(pairs));
  predictor.measurement_count_ = rows.size();

  const std::size_t n = rows.size();
  std::vector<float> x(n * kFeatureCount), y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto f = predictor.features(*rows[i]);
    std::copy(f.begin(), f.end(), x.begin() + static_cast<std::ptrdiff_t>(i * kFeatureCount));
    y[i] = static_cast<float>(std::log(rows[i]->seconds / rows[i]->roofline_seconds));
  }

  // Folds of whole sizes: every repetition of a (kernel, device model, size) in one fold.
  std::map<std::tuple<std::string, std::string, double>, std::size_t> group_of;
  std::vector<std::size_t> group(n);
  for (std::size_t i = 0; i < n; ++i)
    group[i] = group_of.try_emplace({rows[i]->kernel, rows[i]->device_model, rows[i]->bytes},
                                    group_of.size())
                   .first->second;
  std::vector<std::size_t> order(group_of.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  Rng rng(options.seed);
  for (std::size_t g = order.size(); g > 1; --g) std::swap(order[g - 1], order[rng.below(g)]);
  std::vector<std::size_t> fold_of_group(order.size());
  for (std::size_t position = 0; position < order.size(); ++position)
    fold_of_group[order[position]] = position % folds;

  std::vector<float> out_of_fold(n, 0.0f);
  for (std::size_t fold = 0; fold < folds; ++fold) {
    std::vector<float> train_x, train_y;
    for (std::size_t i = 0; i < n; ++i)
      if (fold_of_group[group[i]] != fold) {
        train_x.insert(train_x.end(), x.begin() + static_cast<std::ptrdiff_t>(i * kFeatureCount),
                       x.begin() + static_cast<std::ptrdiff_t>((i + 1) * kFeatureCount));
        train_y.push_back(y[i]);
      }
    if (train_y.empty() || train_y.size() == n) continue;  // fewer groups than folds
    ForestOptions fold_options = options.mean;
    fold_options.seed = options.seed + fold + 1;
    const RegressionForest forest =
        RegressionForest::fit(train_x, kFeatureCount, train_y, fold_options);
    for (std::size_t i = 0; i < n; ++i)
      if (fold_of_group[group[i]] == fold)
        out_of_fold[i] = static_cast<float>(
            forest.predict(std::span(x).subspan(i * kFeatureCount, kFeatureCount)));
  }
  std::vector<float> absolute_error(n);
  for (std::size_t i = 0; i < n; ++i) absolute_error[i] = std::abs(y[i] - out_of_fold[i]);

  ForestOptions mean_options = options.mean, spread_options = options.spread;
  mean_options.seed = spread_options.seed = options.seed;
  predictor.mean_ = RegressionForest::fit(x, kFeatureCount, y, mean_options);
  predictor.spread_ = RegressionForest::fit(x, kFeatureCount, absolute_error, spread_options);

  std::vector<double> relative;
  std::size_t inside = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double predicted = rows[i]->roofline_seconds * std::exp(double(out_of_fold[i]));
    relative.push_back(std::abs(predicted - rows[i]->seconds) / rows[i]->seconds);
    const double sigma =
        std::sqrt(std::numbers::pi / 2) *
        std::max(kSmallestLogSigma,
                 predictor.spread_.predict(std::span(x).subspan(i * kFeatureCount, kFeatureCount)));
    inside += std::abs(y[i] - out_of_fold[i]) <= kInterval95 * sigma;
  }
  predictor.cross_validation_ = {n, nearest_rank_quantile(relative, 0.5),
                                 nearest_rank_quantile(relative, 0.95), double(inside) / double(n)};
  return predictor;
}

RuntimePrediction RuntimePredictor::predict(const RuntimeMeasurement& execution) const {
  const auto f = features(execution);
  const double log_ratio = mean_.predict(f);
  const double sigma =
      std::sqrt(std::numbers::pi / 2) * std::max(kSmallestLogSigma, spread_.predict(f));
  const double seconds = execution.roofline_seconds * std::exp(log_ratio);
  return {seconds, sigma, seconds * std::exp(-kInterval95 * sigma),
          seconds * std::exp(kInterval95 * sigma)};
}

bool RuntimePredictor::knows(std::string_view kernel, std::string_view device_model) const {
  return std::binary_search(pairs_.begin(), pairs_.end(), pair_key(kernel, device_model));
}

PredictionErrors RuntimePredictor::errors_on(
    const std::vector<RuntimeMeasurement>& measurements) const {
  std::vector<double> relative;
  std::size_t inside = 0;
  for (const RuntimeMeasurement& m : measurements) {
    if (!usable(m)) continue;
    const RuntimePrediction p = predict(m);
    relative.push_back(std::abs(p.seconds - m.seconds) / m.seconds);
    inside += m.seconds >= p.low_seconds && m.seconds <= p.high_seconds;
  }
  if (relative.empty()) return {};
  return {relative.size(), nearest_rank_quantile(relative, 0.5),
          nearest_rank_quantile(relative, 0.95), double(inside) / double(relative.size())};
}

void RuntimePredictor::save(const std::string& path) const {
  nlohmann::ordered_json root;
  root["format"] = kFormat;
  root["version"] = kFormatVersion;
  root["features"] = feature_names();
  root["kernels"] = kernels_;
  root["device_models"] = device_models_;
  root["pairs"] = pairs_;
  root["measurements"] = measurement_count_;
  root["cross_validation"] = {{"count", cross_validation_.count},
                              {"median_relative_error", cross_validation_.median},
                              {"p95_relative_error", cross_validation_.p95},
                              {"interval_coverage", cross_validation_.interval_coverage}};
  root["mean"] = mean_.to_json();
  root["spread"] = spread_.to_json();
  std::ofstream out(path);
  if (!out) throw InputError(fmt::format("cannot write the predictor file '{}'", path));
  out << root.dump() << "\n";
  if (!out) throw InputError(fmt::format("cannot write the predictor file '{}'", path));
}

RuntimePredictor RuntimePredictor::load(const std::string& path) {
  const std::string advice = "fit it again (hetsched fit-predictor)";
  const std::string text = read_text_file(path, "predictor file");
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(SourcePosition{path},
                     fmt::format("byte {}: not a JSON predictor file; {}", e.byte, advice));
  }
  auto bad = [&](const std::string& where, const std::string& expected) {
    return InputError(SourcePosition{path},
                      fmt::format("{}: expected {}; {}", where, expected, advice));
  };
  if (!root.is_object() || root.value("format", "") != kFormat)
    throw bad("format", fmt::format("\"{}\" (written by hetsched fit-predictor)", kFormat));
  if (!root.contains("version") || root["version"] != kFormatVersion)
    throw bad("version", std::to_string(kFormatVersion));
  auto strings = [&](const char* name) {
    const auto it = root.find(name);
    if (it == root.end() || !it->is_array()) throw bad(name, "a list of names");
    std::vector<std::string> out;
    for (const auto& v : *it) {
      if (!v.is_string()) throw bad(name, "a list of names");
      out.push_back(v.get<std::string>());
    }
    return out;
  };
  const std::vector<std::string> features = strings("features");
  const auto& expected = feature_names();
  if (!std::equal(features.begin(), features.end(), expected.begin(), expected.end()))
    throw InputError(SourcePosition{path},
                     fmt::format("the predictor was fitted on the features [{}], this build reads "
                                 "[{}]; {}",
                                 fmt::join(features, ", "), fmt::join(expected, ", "), advice));
  RuntimePredictor predictor;
  auto sorted_names = [&](const char* name) {
    std::vector<std::string> names = strings(name);
    if (std::adjacent_find(names.begin(), names.end(), std::greater_equal<>()) != names.end())
      throw bad(name, "names in sorted order, each once");
    return names;
  };
  predictor.kernels_ = sorted_names("kernels");
  predictor.device_models_ = sorted_names("device_models");
  predictor.pairs_ = sorted_names("pairs");
  const auto count = root.find("measurements");
  if (count == root.end() || !count->is_number_unsigned())
    throw bad("measurements", "the number of measurements fitted");
  predictor.measurement_count_ = count->get<std::size_t>();
  const auto cv = root.find("cross_validation");
  if (cv == root.end() || !cv->is_object()) throw bad("cross_validation", "an object");
  try {
    predictor.cross_validation_ = {cv->at("count").get<std::size_t>(),
                                   cv->at("median_relative_error").get<double>(),
                                   cv->at("p95_relative_error").get<double>(),
                                   cv->at("interval_coverage").get<double>()};
  } catch (const nlohmann::json::exception&) {
    throw bad("cross_validation",
              "count, median_relative_error, p95_relative_error and interval_coverage");
  }
  for (const auto& [name, forest] :
       {std::pair{"mean", &predictor.mean_}, std::pair{"spread", &predictor.spread_}}) {
    const auto it = root.find(name);
    if (it == root.end()) throw bad(name, "a forest");
    auto read = RegressionForest::from_json(*it, fmt::format("{}: {}", path, name));
    if (!read) throw InputError(SourcePosition{}, read.error() + "; " + advice);
    if (read->feature_count() != kFeatureCount)
      throw bad(fmt::format("{}.feature_count", name), std::to_string(kFeatureCount));
    *forest = std::move(*read);
  }
  return predictor;
}

}  // namespace hetsched
