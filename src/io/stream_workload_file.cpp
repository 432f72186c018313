// Reader for the stream workload file (format in stream_workload_file.hpp).
#include "hetsched/io/stream_workload_file.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "hetsched/core/delimited_text.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/stream/gavel_job_generator.hpp"
#include "hetsched/stream/gavel_throughputs.hpp"
#include "hetsched/stream/gavel_trace.hpp"
#include "yaml_cpp_error.hpp"

namespace hetsched {
namespace {

SourcePosition position(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  return SourcePosition{file, mark.line + 1, mark.column + 1};
}

template <typename T>
T read(const std::string& file, const YAML::Node& node, const std::string& what) {
  try {
    return node.as<T>();
  } catch (const YAML::Exception&) {
    throw InputError(position(file, node), what + ": expected " +
                                               (std::is_same_v<T, std::string> ? "a string"
                                                : std::is_same_v<T, bool>      ? "true or false"
                                                                               : "a number"));
  }
}

// A map's key as a name: YAML allows a list or a map as a key, which names nothing here.
std::string key_name(const std::string& file, const YAML::Node& key, const std::string& what) {
  if (!key.IsScalar() && !key.IsNull())
    throw InputError(position(file, key), what + ": a key must be a name, not a list or a map");
  return key.as<std::string>();
}

void check_keys(const std::string& file, const YAML::Node& map,
                const std::vector<std::string>& allowed, const std::string& what) {
  if (!map.IsMap()) throw InputError(position(file, map), what + ": expected a mapping");
  for (const auto& entry : map) {
    const std::string key = key_name(file, entry.first, what);
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string list;
      for (const auto& name : allowed) list += (list.empty() ? "" : ", ") + name;
      throw InputError(position(file, entry.first),
                       what + ": unknown key '" + key + "' (expected one of: " + list + ")");
    }
  }
}

std::map<std::string, double> read_rates(const std::string& file, const YAML::Node& node) {
  if (!node.IsMap()) throw InputError(position(file, node), "rates: expected {TYPE: steps_per_s}");
  std::map<std::string, double> rates;
  for (const auto& entry : node) {
    const double rate = read<double>(file, entry.second, "rate");
    if (rate < 0) throw InputError(position(file, entry.second), "rate must be >= 0");
    rates[key_name(file, entry.first, "rates")] = rate;
  }
  return rates;
}

}  // namespace

StreamWorkload load_stream_workload(const std::string& path) {
  const std::string directory = std::filesystem::path(path).parent_path().string();
  return parse_stream_workload(read_text_file(path), path, directory.empty() ? "." : directory);
}

StreamWorkload parse_stream_workload(const std::string& text, const std::string& file,
                                     const std::string& base_directory) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(SourcePosition{file, e.mark.line + 1, e.mark.column + 1},
                     io_detail::yaml_cpp_error_message(e));
  }
  check_keys(file, root, {"kind", "cluster", "throughputs", "gavel_trace", "generate", "jobs"},
             "stream workload");
  if (!root["kind"] || read<std::string>(file, root["kind"], "kind") != "stream")
    throw InputError(SourcePosition{file, 1, 1}, "expected 'kind: stream'");
  StreamWorkload workload;

  // Without a cluster the stream runs on a cluster file's nodes (simulate --cluster).
  const YAML::Node cluster = root["cluster"] ? root["cluster"] : YAML::Node(YAML::NodeType::Map);
  if (root["cluster"])
    check_keys(
        file, cluster,
        {"devices_per_node", "nodes_per_rack", "devices", "cpu_cores_per_node", "mig_slices"},
        "cluster");
  const int per_node = cluster["devices_per_node"]
                           ? read<int>(file, cluster["devices_per_node"], "devices_per_node")
                           : 4;
  const int per_rack =
      cluster["nodes_per_rack"] ? read<int>(file, cluster["nodes_per_rack"], "nodes_per_rack") : 8;
  if (per_node < 1 || per_rack < 1)
    throw InputError(position(file, cluster), "devices_per_node and nodes_per_rack must be >= 1");
  const YAML::Node devices = cluster["devices"];
  if (root["cluster"] && (!devices || !devices.IsMap() || devices.size() == 0))
    throw InputError(position(file, cluster), "cluster.devices: expected {MODEL: count, ...}");
  std::vector<std::pair<std::string, int>> counts;
  std::int64_t total = 0;
  for (const auto& entry : cluster["devices"]) {
    const int count = read<int>(file, entry.second, "device count");
    if (count < 0) throw InputError(position(file, entry.second), "device count must be >= 0");
    total += count;
    if (total > kMaxStreamDevices)
      throw InputError(position(file, entry.second),
                       fmt::format("the cluster has more than {} devices in all; this is the limit",
                                   kMaxStreamDevices));
    counts.push_back({key_name(file, entry.first, "cluster.devices"), count});
  }
  try {
    workload.cluster = make_stream_cluster(counts, per_node, per_rack);
  } catch (const InputError& e) {
    throw InputError(position(file, devices), e.message());
  }
  // CPU cores per node and MIG-like slices per device, for every type.
  for (const char* key : {"cpu_cores_per_node", "mig_slices"}) {
    if (!cluster[key]) continue;
    const int value = read<int>(file, cluster[key], key);
    if (value < 0)
      throw InputError(position(file, cluster[key]), std::string(key) + " must be >= 0");
    for (auto& type : workload.cluster.types)
      (std::string(key) == "mig_slices" ? type.mig_slices : type.cpu_cores_per_node) = value;
  }

  auto resolve = [&](const YAML::Node& node) {
    const std::filesystem::path path(read<std::string>(file, node, "path"));
    return path.is_absolute() ? path.string() : (base_directory / path).string();
  };
  GavelThroughputTable table;
  const bool have_table = static_cast<bool>(root["throughputs"]);
  if (have_table) table = load_gavel_throughputs(resolve(root["throughputs"]));
  auto need_table = [&](const YAML::Node& where) {
    if (!have_table)
      throw InputError(position(file, where),
                       "this needs 'throughputs: <Gavel simulation_throughputs.json>'");
  };
  if (const YAML::Node trace = root["gavel_trace"]) {
    need_table(trace);
    for (auto& job : stream_jobs_from_gavel_trace(table, load_gavel_trace(resolve(trace))))
      workload.jobs.push_back(std::move(job));
  }
  if (const YAML::Node generate = root["generate"]) {
    need_table(generate);
    check_keys(file, generate, {"jobs", "jobs_per_hour", "multi_gpu", "seed"}, "generate");
    GavelGeneratorParams params;
    if (generate["jobs"]) params.jobs = read<std::size_t>(file, generate["jobs"], "jobs");
    if (generate["jobs_per_hour"])
      params.jobs_per_hour = read<double>(file, generate["jobs_per_hour"], "jobs_per_hour");
    if (generate["multi_gpu"])
      params.multi_gpu = read<bool>(file, generate["multi_gpu"], "multi_gpu");
    if (generate["seed"]) params.seed = read<std::uint64_t>(file, generate["seed"], "seed");
    for (auto& job : generate_gavel_jobs(table, params)) workload.jobs.push_back(std::move(job));
  }
  if (const YAML::Node jobs = root["jobs"]) {
    if (!jobs.IsSequence()) throw InputError(position(file, jobs), "jobs: expected a list");
    for (const YAML::Node& node : jobs) {
      check_keys(
          file, node,
          {"name", "model", "user", "gang", "steps", "arrival", "weight", "deadline", "rates",
           "spread_rates", "preemptible", "gpu_milli", "gpu_memory_gb", "cpu_cores"},
          "job");
      if (!node["steps"]) throw InputError(position(file, node), "job: missing 'steps'");
      const int gang = node["gang"] ? read<int>(file, node["gang"], "gang") : 1;
      const double steps = read<double>(file, node["steps"], "steps");
      const double arrival = node["arrival"] ? read<double>(file, node["arrival"], "arrival") : 0;
      if (steps <= 0) throw InputError(position(file, node["steps"]), "steps must be > 0");
      if (arrival < 0) throw InputError(position(file, node["arrival"]), "arrival must be >= 0");
      StreamJob job;
      if (node["model"]) {
        need_table(node["model"]);
        const std::string model = read<std::string>(file, node["model"], "model");
        if (!table.find(model, gang))
          throw InputError(position(file, node["model"]), "the throughput table has no ('" + model +
                                                              "', " + std::to_string(gang) + ")");
        job = make_gavel_stream_job(table, model, gang, steps, arrival);
      } else {
        if (!node["rates"])
          throw InputError(position(file, node), "job: give 'rates' or a 'model' of the table");
        job.gang_size = gang;
        job.total_steps = steps;
        job.arrival_seconds = arrival;
      }
      if (node["rates"]) job.steps_per_second = read_rates(file, node["rates"]);
      if (node["spread_rates"])
        job.spread_steps_per_second = read_rates(file, node["spread_rates"]);
      job.name = node["name"] ? read<std::string>(file, node["name"], "name")
                              : "job-" + std::to_string(workload.jobs.size());
      if (node["user"]) job.user = read<std::string>(file, node["user"], "user");
      if (node["weight"]) {
        job.priority_weight = read<double>(file, node["weight"], "weight");
        if (job.priority_weight <= 0)
          throw InputError(position(file, node["weight"]), "weight must be > 0");
      }
      if (node["deadline"]) job.deadline_seconds = read<double>(file, node["deadline"], "deadline");
      if (node["preemptible"])
        job.preemptible = read<bool>(file, node["preemptible"], "preemptible");
      // Out-of-range requests are the simulator's to reject, with a reason, per job.
      if (node["gpu_milli"]) job.gpu_milli = read<int>(file, node["gpu_milli"], "gpu_milli");
      if (node["gpu_memory_gb"])
        job.gpu_memory_gb = read<double>(file, node["gpu_memory_gb"], "gpu_memory_gb");
      if (node["cpu_cores"]) job.cpu_cores = read<int>(file, node["cpu_cores"], "cpu_cores");
      workload.jobs.push_back(std::move(job));
    }
  }
  std::stable_sort(
      workload.jobs.begin(), workload.jobs.end(),
      [](const StreamJob& a, const StreamJob& b) { return a.arrival_seconds < b.arrival_seconds; });
  return workload;
}

}  // namespace hetsched
