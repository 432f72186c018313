#include "hetsched/perf/runtime_measurement.hpp"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/perf/history_regression_model.hpp"

namespace hetsched {

namespace {

constexpr const char* kMeasurementsFormat = "hetsched-measurements";
constexpr int kVersion = 1;

}  // namespace

RuntimeMeasurement describe_execution(const Task& task, const Device& device,
                                      const PerfModel& roofline, double seconds) {
  const auto p = static_cast<std::size_t>(task.precision);
  RuntimeMeasurement m;
  m.kernel = HistoryRegressionModel::kernel_key(task);
  m.device_model = device.spec.model;
  m.kernel_class = task.kernel;
  m.precision = task.precision;
  m.device_kind = device.spec.kind;
  m.flops = task.flops;
  m.bytes = task.bytes;
  m.matrix_flops = device.spec.matrix_flops[p];
  m.vector_flops = device.spec.vector_flops[p];
  m.memory_bandwidth = device.spec.memory_bandwidth;
  if (task.cost_seconds.empty()) {
    m.roofline_seconds = roofline.task_seconds(task, device);
  } else {  // the model's own prediction, not the cost matrix's
    Task bare = task;
    bare.cost_seconds.clear();
    m.roofline_seconds = roofline.task_seconds(bare, device);
  }
  m.seconds = seconds;
  return m;
}

void write_measurements(const std::string& path, const std::string& machine,
                        const std::vector<RuntimeMeasurement>& measurements) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const RuntimeMeasurement& m : measurements)
    rows.push_back({{"kernel", m.kernel},
                    {"device_model", m.device_model},
                    {"kernel_class", to_string(m.kernel_class)},
                    {"precision", to_string(m.precision)},
                    {"device_kind", to_string(m.device_kind)},
                    {"flops", m.flops},
                    {"bytes", m.bytes},
                    {"matrix_flops", m.matrix_flops},
                    {"vector_flops", m.vector_flops},
                    {"memory_bandwidth", m.memory_bandwidth},
                    {"roofline_seconds", m.roofline_seconds},
                    {"seconds", m.seconds},
                    {"held_out", m.held_out}});
  nlohmann::ordered_json root;
  root["format"] = kMeasurementsFormat;
  root["version"] = kVersion;
  root["machine"] = machine;
  root["measurements"] = std::move(rows);
  std::ofstream out(path);
  if (!out) throw InputError(fmt::format("cannot write the measurement file '{}'", path));
  out << root.dump(1) << "\n";
  if (!out) throw InputError(fmt::format("cannot write the measurement file '{}'", path));
}

std::vector<RuntimeMeasurement> read_measurements(const std::string& path) {
  const std::string text = read_text_file(path, "measurement file");
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(SourcePosition{path},
                     fmt::format("byte {}: not a JSON measurement file", e.byte));
  }
  auto bad = [&](const std::string& where, const std::string& expected) {
    return InputError(SourcePosition{path}, fmt::format("{}: expected {}", where, expected));
  };
  if (!root.is_object() || root.value("format", "") != kMeasurementsFormat)
    throw bad("format", fmt::format("\"{}\" (written by hetsched calibrate --measurements)",
                                    kMeasurementsFormat));
  if (!root.contains("version") || root["version"] != kVersion)
    throw bad("version", std::to_string(kVersion));
  if (!root.contains("measurements") || !root["measurements"].is_array())
    throw bad("measurements", "a list of measurements");
  std::vector<RuntimeMeasurement> out;
  const auto& rows = root["measurements"];
  out.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json& row = rows[i];
    const std::string at = fmt::format("measurements[{}]", i);
    if (!row.is_object()) throw bad(at, "an object");
    auto text_of = [&](const char* name) {
      const auto it = row.find(name);
      if (it == row.end() || !it->is_string() || it->get<std::string>().empty())
        throw bad(at + "." + name, "a non-empty string");
      return it->get<std::string>();
    };
    auto number_of = [&](const char* name) {
      const auto it = row.find(name);
      if (it == row.end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
          it->get<double>() < 0)
        throw bad(at + "." + name, "a finite number, 0 or more");
      return it->get<double>();
    };
    auto named = [&](const char* name, auto parse, const std::vector<std::string>& names) {
      const std::string value = text_of(name);
      const auto parsed = parse(value);
      if (!parsed)
        throw InputError(
            SourcePosition{path},
            fmt::format("{}.{}: {}", at, name, unknown_name_message(name, value, names)));
      return *parsed;
    };
    RuntimeMeasurement m;
    m.kernel = text_of("kernel");
    m.device_model = text_of("device_model");
    m.kernel_class = named("kernel_class", parse_kernel_class, kernel_class_names());
    m.precision = named("precision", parse_precision, precision_names());
    m.device_kind = named("device_kind", parse_device_kind, device_kind_names());
    m.flops = number_of("flops");
    m.bytes = number_of("bytes");
    m.matrix_flops = number_of("matrix_flops");
    m.vector_flops = number_of("vector_flops");
    m.memory_bandwidth = number_of("memory_bandwidth");
    m.roofline_seconds = number_of("roofline_seconds");
    m.seconds = number_of("seconds");
    const auto held = row.find("held_out");
    if (held != row.end() && !held->is_boolean()) throw bad(at + ".held_out", "true or false");
    m.held_out = held != row.end() && held->get<bool>();
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace hetsched
