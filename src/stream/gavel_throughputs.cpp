// Importer for Gavel's throughput table (simulation_throughputs.json). Keys are
// Python tuple strings "('<model>', <scale>)"; each maps "null" to the steps/s of
// the job alone and "('<other>', <scale>)" to [own, other] steps/s when sharing.
#include "hetsched/stream/gavel_throughputs.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "hetsched/core/closest_names.hpp"
#include "hetsched/core/delimited_text.hpp"

namespace hetsched {
namespace {

struct TupleKey {
  std::string model;
  int scale = 1;
};

std::optional<TupleKey> parse_tuple_key(const std::string& key) {
  // ('<model>', <scale>)
  if (key.size() < 7 || key.rfind("('", 0) != 0 || key.back() != ')') return std::nullopt;
  const std::size_t quote = key.rfind("', ");
  if (quote == std::string::npos || quote < 2) return std::nullopt;
  TupleKey parsed;
  parsed.model = key.substr(2, quote - 2);
  const std::string number = key.substr(quote + 3, key.size() - quote - 4);
  try {
    std::size_t used = 0;
    parsed.scale = std::stoi(number, &used);
    if (used != number.size() || parsed.scale < 1) return std::nullopt;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return parsed;
}

std::string upper(std::string text) {
  for (char& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::optional<std::size_t> GavelThroughputTable::find(const std::string& model,
                                                      int scale_factor) const {
  for (std::size_t i = 0; i < job_types.size(); ++i)
    if (job_types[i].model == model && job_types[i].scale_factor == scale_factor) return i;
  return std::nullopt;
}

std::optional<std::size_t> GavelThroughputTable::device_index(const std::string& name) const {
  for (std::size_t i = 0; i < device_types.size(); ++i)
    if (equals_ignoring_case(device_types[i], name)) return i;
  return std::nullopt;
}

std::vector<std::string> GavelThroughputTable::models() const {
  std::set<std::string> names;
  for (const auto& type : job_types) names.insert(type.model);
  return {names.begin(), names.end()};
}

std::vector<std::string> GavelThroughputTable::models_with_scale(int scale_factor) const {
  std::set<std::string> names;
  for (const auto& type : job_types)
    if (type.scale_factor == scale_factor) names.insert(type.model);
  return {names.begin(), names.end()};
}

std::optional<std::pair<double, double>> GavelThroughputTable::colocated_rates(
    std::size_t a, std::size_t b, std::size_t device) const {
  const auto it = colocated.find({a, b, device});
  if (it == colocated.end()) return std::nullopt;
  return it->second;
}

GavelThroughputTable load_gavel_throughputs(const std::string& path) {
  const std::string text = read_text_file(path);
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(SourcePosition{path, 0, 0}, std::string("invalid JSON: ") + e.what());
  }
  if (!root.is_object()) throw InputError(SourcePosition{path, 1, 1}, "expected a JSON object");
  const SourcePosition at{path, 0, 0};

  GavelThroughputTable table;
  std::set<std::pair<std::string, int>> keys;
  for (const auto& [gpu, entries] : root.items()) {
    if (gpu.find("_unconsolidated") == std::string::npos) table.device_types.push_back(upper(gpu));
    if (!entries.is_object()) throw InputError(at, "'" + gpu + "': expected an object");
    for (const auto& [key, value] : entries.items()) {
      const auto parsed = parse_tuple_key(key);
      if (!parsed)
        throw InputError(at, "'" + gpu + "': key '" + key + "' is not ('<model>', <scale>)");
      keys.insert({parsed->model, parsed->scale});
      (void)value;
    }
  }
  std::sort(table.device_types.begin(), table.device_types.end());
  for (const auto& [model, scale] : keys) {
    GavelJobType type;
    type.model = model;
    type.scale_factor = scale;
    type.alone.assign(table.device_types.size(), 0.0);
    type.unconsolidated.assign(table.device_types.size(), 0.0);
    table.job_types.push_back(std::move(type));
  }
  for (const auto& [gpu, entries] : root.items()) {
    const bool spread = gpu.find("_unconsolidated") != std::string::npos;
    const std::string base = upper(spread ? gpu.substr(0, gpu.find("_unconsolidated")) : gpu);
    const auto device = table.device_index(base);
    if (!device) throw InputError(at, "'" + gpu + "' has no consolidated table '" + base + "'");
    for (const auto& [key, value] : entries.items()) {
      const auto parsed = parse_tuple_key(key);
      const std::size_t index = *table.find(parsed->model, parsed->scale);
      if (!value.is_object() || !value.contains("null") || !value["null"].is_number())
        throw InputError(at,
                         "'" + gpu + "' / '" + key + "': expected {\"null\": steps_per_second}");
      const double alone = value["null"].get<double>();
      (spread ? table.job_types[index].unconsolidated : table.job_types[index].alone)[*device] =
          alone;
      if (spread) continue;
      for (const auto& [other_key, rates] : value.items()) {
        if (other_key == "null") continue;
        const auto other = parse_tuple_key(other_key);
        if (!other || !rates.is_array() || rates.size() != 2 || !rates[0].is_number() ||
            !rates[1].is_number())
          throw InputError(at, "'" + gpu + "' / '" + key + "' / '" + other_key +
                                   "': expected [own, other] steps per second");
        const auto other_index = table.find(other->model, other->scale);
        if (!other_index) continue;  // a partner measured on no device alone
        table.colocated[{index, *other_index, *device}] = {rates[0].get<double>(),
                                                           rates[1].get<double>()};
      }
    }
  }
  return table;
}

}  // namespace hetsched
