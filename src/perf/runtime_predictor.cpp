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

constexpr const char* kPredictorFormat = "hetsched-runtime-predictor";
constexpr double kInterval95 = 1.959963984540054;
// A floor under the learned spread, so that no interval collapses to a point.
constexpr double kSmallestLogSigma = 0.01;

float log_scale(double x) { return static_cast<float>(std::log10(1.0 + std::max(0.0, x))); }

// The key of a (kernel, device model) pair in the predictor's tables.
std::string pair_key(std::string_view kernel, std::string_view device_model) {
  return fmt::format("{}\t{}", kernel, device_model);
}

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
  static const std::array<std::string_view, kFeatureCount> names = {"kernel",
                                                                    "device_model",
                                                                    "kernel_class",
                                                                    "precision",
                                                                    "device_kind",
                                                                    "log10_flops",
                                                                    "log10_bytes",
                                                                    "log10_intensity",
                                                                    "log10_matrix_flops",
                                                                    "log10_vector_flops",
                                                                    "log10_memory_bandwidth",
                                                                    "log10_roofline_seconds",
                                                                    "log10_regression_seconds"};
  return names;
}

double RuntimePredictor::regression_seconds(const Regressions& regressions,
                                            const RuntimeMeasurement& m) {
  const auto law = regressions.find(pair_key(m.kernel, m.device_model));
  if (law == regressions.end()) return NAN;
  const double seconds = law->second.evaluate(m.bytes);
  return seconds > 0 && std::isfinite(seconds) ? seconds : NAN;
}

std::array<float, RuntimePredictor::kFeatureCount> RuntimePredictor::features(
    const RuntimeMeasurement& m, const Regressions& regressions) const {
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
          static_cast<float>(std::log10(std::max(m.roofline_seconds, 1e-12))),
          static_cast<float>(std::log10(regression_seconds(regressions, m)))};  // NaN: none
}

namespace {

using Rows = std::vector<const RuntimeMeasurement*>;

// The power law of each pair with two sizes or more, fitted to its mean time per size.
std::map<std::string, PowerLawFit> fit_regressions(const Rows& rows, const std::vector<bool>& use) {
  std::map<std::string, std::map<double, std::pair<double, std::size_t>>> sums;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (use[i]) {
      auto& [sum, count] = sums[pair_key(rows[i]->kernel, rows[i]->device_model)][rows[i]->bytes];
      sum += rows[i]->seconds;
      ++count;
    }
  std::map<std::string, PowerLawFit> laws;
  for (const auto& [pair, by_size] : sums) {
    std::vector<std::pair<double, double>> points;
    for (const auto& [bytes, sum_count] : by_size)
      points.emplace_back(bytes, sum_count.first / double(sum_count.second));
    if (auto law = fit_power_law(points)) laws.emplace(pair, *law);
  }
  return laws;
}

// Each group's fold: groups shuffled with the seed, then dealt out in turn.
std::vector<std::size_t> deal_folds(std::size_t groups, std::size_t folds, std::uint64_t seed) {
  std::vector<std::size_t> order(groups);
  for (std::size_t g = 0; g < groups; ++g) order[g] = g;
  Rng rng(seed);
  for (std::size_t g = groups; g > 1; --g) std::swap(order[g - 1], order[rng.below(g)]);
  std::vector<std::size_t> fold(groups);
  for (std::size_t position = 0; position < groups; ++position)
    fold[order[position]] = position % folds;
  return fold;
}

}  // namespace

RuntimePredictor RuntimePredictor::fit(const std::vector<RuntimeMeasurement>& measurements,
                                       const RuntimePredictorOptions& options) {
  Rows rows;
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
    pairs.push_back(pair_key(m->kernel, m->device_model));
  }
  predictor.kernels_ = sorted_unique(std::move(kernels));
  predictor.device_models_ = sorted_unique(std::move(devices));
  predictor.pairs_ = sorted_unique(std::move(pairs));
  predictor.measurement_count_ = rows.size();
  const std::size_t n = rows.size();
  auto key = [](const RuntimeMeasurement& m) { return pair_key(m.kernel, m.device_model); };

  // Tables of features and targets (ln(measured / roofline seconds)).
  struct Table {
    std::vector<float> x, y;
    std::span<const float> row(std::size_t i) const {
      return std::span(x).subspan(i * kFeatureCount, kFeatureCount);
    }
  };
  auto add = [&](Table& table, const Regressions& regressions, std::size_t i) {
    const auto f = predictor.features(*rows[i], regressions);
    table.x.insert(table.x.end(), f.begin(), f.end());
    table.y.push_back(static_cast<float>(std::log(rows[i]->seconds / rows[i]->roofline_seconds)));
  };
  // Every row is learned twice, with its pair's regression (where there is one) and without,
  // so that the trees also know how to correct the roofline on pairs never measured.
  const Regressions none;
  auto add_twice = [&](Table& table, const Regressions& regressions, std::size_t i) {
    add(table, regressions, i);
    if (regressions.count(key(*rows[i]))) add(table, none, i);
  };

  // Out-of-fold predictions over folds of whole groups: each fold's regressions and trees are
  // fitted on the other folds. The held-out rows' features and absolute log errors go to
  // `spread`.
  Table spread;
  auto out_of_fold = [&](const std::vector<std::size_t>& group, std::size_t groups,
                         std::uint64_t seed, PredictionErrors& errors) {
    const std::vector<std::size_t> fold_of = deal_folds(groups, folds, seed);
    std::vector<double> relative;
    for (std::size_t fold = 0; fold < std::min(folds, groups); ++fold) {
      std::vector<bool> train(n);
      for (std::size_t i = 0; i < n; ++i) train[i] = fold_of[group[i]] != fold;
      const Regressions regressions = fit_regressions(rows, train);
      Table fitted, held;
      std::vector<std::size_t> held_rows;
      for (std::size_t i = 0; i < n; ++i) {
        if (train[i]) {
          add_twice(fitted, regressions, i);
        } else {
          add(held, regressions, i);
          held_rows.push_back(i);
        }
      }
      if (fitted.y.empty() || held.y.empty()) continue;
      ForestOptions fold_options = options.mean;
      fold_options.seed = seed + fold;
      const RegressionForest forest =
          RegressionForest::fit(fitted.x, kFeatureCount, fitted.y, fold_options);
      for (std::size_t k = 0; k < held_rows.size(); ++k) {
        const std::size_t i = held_rows[k];
        const double predicted = forest.predict(held.row(k));
        spread.x.insert(spread.x.end(), held.row(k).begin(), held.row(k).end());
        spread.y.push_back(static_cast<float>(std::abs(held.y[k] - predicted)));
        const double seconds = rows[i]->roofline_seconds * std::exp(predicted);
        relative.push_back(std::abs(seconds - rows[i]->seconds) / rows[i]->seconds);
      }
    }
    errors = summarize_errors(std::move(relative), 0);  // coverage: once the spread is fitted
  };
  std::map<std::tuple<std::string, std::string, double>, std::size_t> size_groups;
  std::map<std::string, std::size_t> pair_groups;
  std::vector<std::size_t> by_size(n), by_pair(n);
  for (std::size_t i = 0; i < n; ++i) {
    by_size[i] = size_groups
                     .try_emplace({rows[i]->kernel, rows[i]->device_model, rows[i]->bytes},
                                  size_groups.size())
                     .first->second;
    by_pair[i] = pair_groups.try_emplace(key(*rows[i]), pair_groups.size()).first->second;
  }
  out_of_fold(by_size, size_groups.size(), options.seed + 1, predictor.cross_validation_);
  const std::size_t size_rows = spread.y.size();
  out_of_fold(by_pair, pair_groups.size(), options.seed + 1001,
              predictor.unseen_pair_cross_validation_);

  ForestOptions spread_options = options.spread;
  spread_options.seed = options.seed;
  if (spread.y.empty())  // a single group: no fold to hold out
    for (std::size_t i = 0; i < n; ++i) add(spread, none, i), spread.y.back() = 0;
  predictor.spread_ = RegressionForest::fit(spread.x, kFeatureCount, spread.y, spread_options);
  // How often the out-of-fold errors fall inside the spread forest's 95 % intervals.
  auto coverage = [&](std::size_t begin, std::size_t end) {
    std::size_t inside = 0;
    for (std::size_t i = begin; i < end; ++i)
      inside +=
          spread.y[i] <= kInterval95 * std::sqrt(std::numbers::pi / 2) *
                             std::max(kSmallestLogSigma, predictor.spread_.predict(spread.row(i)));
    return end > begin ? double(inside) / double(end - begin) : 0.0;
  };
  predictor.cross_validation_.interval_coverage = coverage(0, size_rows);
  predictor.unseen_pair_cross_validation_.interval_coverage = coverage(size_rows, spread.y.size());

  // The trees and the regressions kept are fitted on every row.
  predictor.regressions_ = fit_regressions(rows, std::vector<bool>(n, true));
  Table table;
  for (std::size_t i = 0; i < n; ++i) add_twice(table, predictor.regressions_, i);
  ForestOptions mean_options = options.mean;
  mean_options.seed = options.seed;
  predictor.mean_ = RegressionForest::fit(table.x, kFeatureCount, table.y, mean_options);
  return predictor;
}

RuntimePrediction RuntimePredictor::predict(const RuntimeMeasurement& execution) const {
  const auto f = features(execution, regressions_);
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
  return summarize_errors(std::move(relative), inside);
}

PredictionErrors summarize_errors(std::vector<double> relative, std::size_t inside_interval) {
  if (relative.empty()) return {};
  return {relative.size(), nearest_rank_quantile(relative, 0.5),
          nearest_rank_quantile(relative, 0.95), double(inside_interval) / double(relative.size())};
}

void RuntimePredictor::save(const std::string& path) const {
  nlohmann::ordered_json root;
  root["format"] = kPredictorFormat;
  root["version"] = kFormatVersion;
  root["features"] = feature_names();
  root["kernels"] = kernels_;
  root["device_models"] = device_models_;
  root["pairs"] = pairs_;
  root["measurements"] = measurement_count_;
  auto errors = [](const PredictionErrors& e) {
    return nlohmann::ordered_json{{"count", e.count},
                                  {"median_relative_error", e.median},
                                  {"p95_relative_error", e.p95},
                                  {"interval_coverage", e.interval_coverage}};
  };
  root["cross_validation"] = errors(cross_validation_);
  root["unseen_pair_cross_validation"] = errors(unseen_pair_cross_validation_);
  nlohmann::ordered_json regressions = nlohmann::ordered_json::array();
  for (const auto& [pair, law] : regressions_)
    regressions.push_back({{"pair", pair}, {"a", law.a}, {"b", law.b}, {"c", law.c}});
  root["regressions"] = std::move(regressions);
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
  if (!root.is_object() || root.value("format", "") != kPredictorFormat)
    throw bad("format",
              fmt::format("\"{}\" (written by hetsched fit-predictor)", kPredictorFormat));
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
  for (const auto& [name, errors] :
       {std::pair{"cross_validation", &predictor.cross_validation_},
        std::pair{"unseen_pair_cross_validation", &predictor.unseen_pair_cross_validation_}}) {
    const auto cv = root.find(name);
    try {
      if (cv == root.end()) throw std::out_of_range(name);
      *errors = {cv->at("count").get<std::size_t>(), cv->at("median_relative_error").get<double>(),
                 cv->at("p95_relative_error").get<double>(),
                 cv->at("interval_coverage").get<double>()};
    } catch (const std::exception&) {
      throw bad(name,
                "an object of count, median_relative_error, p95_relative_error and "
                "interval_coverage");
    }
  }
  const auto regressions = root.find("regressions");
  if (regressions == root.end() || !regressions->is_array()) throw bad("regressions", "a list");
  for (std::size_t k = 0; k < regressions->size(); ++k) {
    const nlohmann::json& b = (*regressions)[k];
    const std::string at = fmt::format("regressions[{}]", k);
    auto number = [&](const char* name) {
      if (!b.is_object() || !b.contains(name) || !b[name].is_number() ||
          !std::isfinite(b[name].get<double>()))
        throw bad(at + "." + name, "a finite number");
      return b[name].get<double>();
    };
    if (!b.is_object() || !b.contains("pair") || !b["pair"].is_string())
      throw bad(at + ".pair", "a kernel and a device model");
    const std::string pair = b["pair"].get<std::string>();
    if (!std::binary_search(predictor.pairs_.begin(), predictor.pairs_.end(), pair))
      throw bad(at + ".pair", "one of the pairs");
    predictor.regressions_[pair] = PowerLawFit{number("a"), number("b"), number("c")};
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
