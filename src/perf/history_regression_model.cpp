#include "hetsched/perf/history_regression_model.hpp"

#include <fmt/format.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"

namespace hetsched {

namespace {
constexpr std::string_view kRuntimeKernelNames[] = {
    "gemm_nt", "gemm", "syrk", "trsm", "potrf", "stencil", "empty", "reduction", "sort", "bfs"};
constexpr int kConstantGridSteps = 24;
}  // namespace

double PowerLawFit::evaluate(double n) const { return a * std::pow(std::max(n, 1.0), b) + c; }

std::optional<PowerLawFit> fit_power_law(const std::vector<std::pair<double, double>>& points) {
  if (points.size() < 2) return std::nullopt;
  double min_seconds = points.front().second;
  for (const auto& [n, t] : points) min_seconds = std::min(min_seconds, t);
  if (!(min_seconds > 0)) return std::nullopt;
  const int steps = points.size() >= 3 ? kConstantGridSteps : 1;  // two points: c = 0
  std::optional<PowerLawFit> best;
  double best_error = std::numeric_limits<double>::infinity();
  const auto rows = static_cast<Eigen::Index>(points.size());
  for (int step = 0; step < steps; ++step) {
    const double c = min_seconds * step / kConstantGridSteps;
    Eigen::MatrixXd design(rows, 2);
    Eigen::VectorXd target(rows);
    for (Eigen::Index i = 0; i < rows; ++i) {
      design(i, 0) = 1.0;
      design(i, 1) = std::log(std::max(points[i].first, 1.0));
      target(i) = std::log(points[i].second - c);
    }
    const Eigen::Vector2d solution = design.colPivHouseholderQr().solve(target);
    const PowerLawFit fit{std::exp(solution(0)), solution(1), c};
    double error = 0;
    for (const auto& [n, t] : points) {
      const double relative = (fit.evaluate(n) - t) / t;
      error += relative * relative;
    }
    if (std::isfinite(error) && error < best_error) {
      best_error = error;
      best = fit;
    }
  }
  return best;
}

HistoryRegressionModel::HistoryRegressionModel(const Cluster& cluster, const PerfModel& fallback)
    : PerfModel(cluster), fallback_(fallback) {}

std::string HistoryRegressionModel::kernel_key(const Task& task) {
  for (std::string_view name : kRuntimeKernelNames)  // gemm_nt before gemm: longest first
    if (task.name.size() >= name.size() && task.name.compare(0, name.size(), name) == 0 &&
        (task.name.size() == name.size() || task.name[name.size()] == '_'))
      return std::string(name);
  return std::string(to_string(task.kernel));
}

void HistoryRegressionModel::record(const Task& task, const Device& device, double seconds) {
  record(kernel_key(task), device.spec.model, task.bytes, seconds);
}

void HistoryRegressionModel::record(const std::string& kernel, const std::string& device_model,
                                    double size_bytes, double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds)) return;
  Entry& entry = entries_[{kernel, device_model}];
  Sample& sample = entry.history[size_bytes];
  const std::size_t sizes_before = entry.history.size();
  ++sample.count;
  const double delta = seconds - sample.mean;
  sample.mean += delta / double(sample.count);
  sample.m2 += delta * (seconds - sample.mean);
  (void)sizes_before;
  refit(entry);
}

void HistoryRegressionModel::refit(Entry& entry) {
  std::vector<std::pair<double, double>> points;
  for (const auto& [size, sample] : entry.history)
    if (sample.mean > 0) points.emplace_back(size, sample.mean);
  entry.regression = fit_power_law(points);
}

std::size_t HistoryRegressionModel::sample_count() const {
  std::size_t total = 0;
  for (const auto& [key, entry] : entries_)
    for (const auto& [size, sample] : entry.history) total += sample.count;
  return total;
}

std::optional<double> HistoryRegressionModel::history_seconds(const std::string& kernel,
                                                              const std::string& device_model,
                                                              double size_bytes) const {
  const auto it = entries_.find({kernel, device_model});
  if (it == entries_.end()) return std::nullopt;
  const auto sample = it->second.history.find(size_bytes);
  if (sample == it->second.history.end()) return std::nullopt;
  return sample->second.mean;
}

std::optional<double> HistoryRegressionModel::regression_seconds(const std::string& kernel,
                                                                 const std::string& device_model,
                                                                 double size_bytes) const {
  const auto it = entries_.find({kernel, device_model});
  if (it == entries_.end() || !it->second.regression) return std::nullopt;
  return std::max(0.0, it->second.regression->evaluate(size_bytes));
}

double HistoryRegressionModel::predict_seconds(const Task& task, const Device& device,
                                               std::size_t pstate) const {
  const std::string kernel = kernel_key(task);
  if (auto seconds = history_seconds(kernel, device.spec.model, task.bytes)) return *seconds;
  if (auto seconds = regression_seconds(kernel, device.spec.model, task.bytes)) return *seconds;
  // A single measured size and no regression: scale it linearly with the bytes.
  const auto it = entries_.find({kernel, device.spec.model});
  if (it != entries_.end() && !it->second.history.empty()) {
    const auto& [size, sample] = *it->second.history.begin();
    if (size > 0) return sample.mean * task.bytes / size;
  }
  return fallback_.task_seconds(task, device, pstate);
}

void HistoryRegressionModel::save(const std::string& path,
                                  const std::string& machine_fingerprint) const {
  nlohmann::ordered_json root;
  root["format"] = "hetsched-perf-model";
  root["version"] = kFormatVersion;
  root["machine"] = machine_fingerprint;
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const auto& [key, entry] : entries_) {
    nlohmann::ordered_json model;
    model["kernel"] = key.first;
    model["device"] = key.second;
    nlohmann::ordered_json history = nlohmann::ordered_json::array();
    for (const auto& [size, sample] : entry.history)
      history.push_back({{"bytes", size},
                         {"count", sample.count},
                         {"mean_seconds", sample.mean},
                         {"m2", sample.m2}});
    model["history"] = std::move(history);
    if (entry.regression)
      model["regression"] = {
          {"a", entry.regression->a}, {"b", entry.regression->b}, {"c", entry.regression->c}};
    models.push_back(std::move(model));
  }
  root["models"] = std::move(models);
  std::ofstream out(path);
  if (!out) throw InputError(fmt::format("cannot write calibration file '{}'", path));
  out << root.dump(2) << '\n';
  if (!out) throw InputError(fmt::format("cannot write calibration file '{}'", path));
}

void HistoryRegressionModel::load(const std::string& path, const std::string& machine_fingerprint) {
  const std::string advice = "run `hetsched calibrate` to recalibrate";
  std::string text;
  try {
    text = read_text_file(path, "calibration file");
  } catch (const InputError& e) {
    throw InputError(e.where(), fmt::format("{}; {}", e.message(), advice));
  }
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(
        SourcePosition{path},
        fmt::format("corrupt calibration file (not JSON: byte {}); {}", e.byte, advice));
  }
  auto corrupt = [&](const std::string& what) {
    return InputError(SourcePosition{path},
                      fmt::format("corrupt calibration file ({}); {}", what, advice));
  };
  if (!root.is_object() || root.value("format", "") != "hetsched-perf-model")
    throw corrupt("not a hetsched performance model");
  if (!root.contains("version") || !root["version"].is_number_integer() ||
      root["version"].get<int>() != kFormatVersion)
    throw InputError(SourcePosition{path},
                     fmt::format("stale calibration file (format version {}, expected {}); {}",
                                 root.contains("version") ? root["version"].dump() : "missing",
                                 kFormatVersion, advice));
  if (!root.contains("machine") || !root["machine"].is_string())
    throw corrupt("no machine fingerprint");
  // Stale when this machine has a device model the file was not made on.
  auto split = [](const std::string& text) {
    std::vector<std::string> parts;
    std::size_t begin = 0;
    for (std::size_t end; (end = text.find(';', begin)) != std::string::npos; begin = end + 1)
      parts.push_back(text.substr(begin, end - begin));
    if (begin < text.size()) parts.push_back(text.substr(begin));
    return parts;
  };
  const auto file_models = split(root["machine"].get<std::string>());
  bool covered = true;
  for (const std::string& model : split(machine_fingerprint))
    covered =
        covered && std::find(file_models.begin(), file_models.end(), model) != file_models.end();
  if (!covered)
    throw InputError(SourcePosition{path},
                     fmt::format("stale calibration file: made for devices '{}', this machine "
                                 "has '{}'; {}",
                                 root["machine"].get<std::string>(), machine_fingerprint, advice));
  if (!root.contains("models") || !root["models"].is_array()) throw corrupt("no models array");
  std::map<std::pair<std::string, std::string>, Entry> entries;
  for (const auto& model : root["models"]) {
    if (!model.is_object() || !model.contains("kernel") || !model["kernel"].is_string() ||
        !model.contains("device") || !model["device"].is_string() || !model.contains("history") ||
        !model["history"].is_array())
      throw corrupt("a model lacks kernel, device or history");
    Entry& entry =
        entries[{model["kernel"].get<std::string>(), model["device"].get<std::string>()}];
    for (const auto& row : model["history"]) {
      if (!row.is_object() || !row.contains("bytes") || !row["bytes"].is_number() ||
          !row.contains("count") || !row["count"].is_number_unsigned() ||
          !row.contains("mean_seconds") || !row["mean_seconds"].is_number() ||
          !row.contains("m2") || !row["m2"].is_number())
        throw corrupt("a history row lacks bytes, count, mean_seconds or m2");
      const double mean = row["mean_seconds"].get<double>();
      const double bytes = row["bytes"].get<double>();
      if (!std::isfinite(mean) || mean < 0 || !std::isfinite(bytes) || bytes < 0 ||
          row["count"].get<std::uint64_t>() == 0)
        throw corrupt("a history row has a negative, zero-count or non-finite value");
      entry.history[bytes] =
          Sample{row["count"].get<std::uint64_t>(), mean, row["m2"].get<double>()};
    }
    refit(entry);
  }
  entries_ = std::move(entries);
}

}  // namespace hetsched
