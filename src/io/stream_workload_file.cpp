// Reader for the stream workload file (format in stream_workload_file.hpp): the document is
// read by InputDocument and its maps by FieldReader; each job by read_stream_job, which
// the service's stream submissions share.
#include "hetsched/io/stream_workload_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>

#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/stream/gavel_job_generator.hpp"
#include "hetsched/stream/gavel_throughputs.hpp"
#include "hetsched/stream/gavel_trace.hpp"
#include "stream_job_reader.hpp"
#include "yaml_fields.hpp"

namespace hetsched {
namespace {

using io_detail::FieldReader;
using io_detail::InputNode;
using io_detail::NumberRange;

constexpr std::int64_t kLargestStreamInt = std::numeric_limits<int>::max();

// The `cluster:` section: device counts by catalog type and the shape of nodes and racks.
// Without one, the stream runs on a cluster file's nodes (simulate --cluster).
StreamCluster read_stream_cluster(const FieldReader& top) {
  const InputNode* section = top.find("cluster");
  if (section == nullptr) return make_stream_cluster({}, 4, 8);
  const std::string& file = top.file();
  const FieldReader cluster(*section, "cluster", file,
                            {"devices_per_node", "nodes_per_rack", "devices", "cpu_cores_per_node",
                             "mig_slices", "cpu_milli_per_node", "memory_mib_per_node"});
  const int per_node = static_cast<int>(
      cluster.optional_whole_number("devices_per_node", 1, kLargestStreamInt).value_or(4));
  const int per_rack = static_cast<int>(
      cluster.optional_whole_number("nodes_per_rack", 1, kLargestStreamInt).value_or(8));
  const InputNode& devices = cluster.required("devices");
  if (!devices.is_map() || devices.size() == 0)
    throw InputError(io_detail::position_of(devices, file),
                     fmt::format("field 'devices' expects {{MODEL: count, ...}}, got {}",
                                 io_detail::describe_value(devices)));
  std::vector<std::pair<std::string, int>> counts;
  std::int64_t total = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string model = io_detail::string_value(devices.key_at(i), "devices", file);
    const auto count =
        io_detail::whole_number_value(devices.value_at(i), model, 0, kLargestStreamInt, file);
    total += count;
    if (total > kMaxStreamDevices)
      throw InputError(io_detail::position_of(devices.value_at(i), file),
                       fmt::format("the cluster has more than {} devices in all; this is the limit",
                                   kMaxStreamDevices));
    counts.push_back({model, static_cast<int>(count)});
  }
  StreamCluster out;
  try {
    out = make_stream_cluster(counts, per_node, per_rack);
  } catch (const InputError& e) {
    throw InputError(io_detail::position_of(devices, file), e.message());
  }
  // CPU cores per node and MIG-like slices per device, for every type.
  if (auto cores = cluster.optional_whole_number("cpu_cores_per_node", 0, kLargestStreamInt))
    for (auto& type : out.types) type.cpu_cores_per_node = static_cast<int>(*cores);
  if (auto slices = cluster.optional_whole_number("mig_slices", 0, kLargestStreamInt))
    for (auto& type : out.types) type.mig_slices = static_cast<int>(*slices);
  // CPU (milli-cores) and memory (MiB) per node that jobs may request as quantities.
  if (auto cpu = cluster.optional_number("cpu_milli_per_node", NumberRange::non_negative))
    for (auto& type : out.types) type.cpu_milli_per_node = *cpu;
  if (auto memory = cluster.optional_number("memory_mib_per_node", NumberRange::non_negative))
    for (auto& type : out.types) type.memory_mib_per_node = *memory;
  return out;
}

// `generate:`: jobs drawn from the throughput table.
std::vector<StreamJob> read_generated_jobs(const FieldReader& top,
                                           const GavelThroughputTable& table) {
  const FieldReader generate(*top.find("generate"), "generate", top.file(),
                             {"jobs", "jobs_per_hour", "multi_gpu", "seed"});
  GavelGeneratorParams params;
  if (auto jobs =
          generate.optional_whole_number("jobs", 0, std::numeric_limits<std::int64_t>::max()))
    params.jobs = static_cast<std::size_t>(*jobs);
  if (auto rate = generate.optional_number("jobs_per_hour", NumberRange::any))
    params.jobs_per_hour = *rate;
  if (auto multi_gpu = generate.optional_boolean("multi_gpu")) params.multi_gpu = *multi_gpu;
  if (const InputNode* seed = generate.find("seed"))
    params.seed = io_detail::unsigned_whole_number_value(*seed, "seed", top.file());
  return generate_gavel_jobs(table, params);
}

}  // namespace

StreamWorkload load_stream_workload(const std::string& path) {
  const std::string directory = std::filesystem::path(path).parent_path().string();
  return parse_stream_workload(read_text_file(path), path, directory.empty() ? "." : directory);
}

StreamWorkload parse_stream_workload(const std::string& text, const std::string& file,
                                     const std::string& base_directory) {
  const io_detail::InputDocument document =
      io_detail::parse_document(text, file, "'kind: stream' and 'cluster' or 'jobs'");
  const FieldReader top(document.root(), "stream workload", file,
                        {"kind", "cluster", "throughputs", "gavel_trace", "generate", "jobs"});
  if (top.optional_string("kind") != "stream")
    throw InputError(top.position_of_field("kind"), "expected 'kind: stream'");
  StreamWorkload workload;
  workload.cluster = read_stream_cluster(top);

  const auto resolve = [&](std::string_view field) {
    const std::filesystem::path path(top.required_string(field));
    return path.is_absolute() ? path.string() : (base_directory / path).string();
  };
  GavelThroughputTable table;
  const bool have_table = top.has("throughputs");
  if (have_table) table = load_gavel_throughputs(resolve("throughputs"));
  const auto need_table = [&](std::string_view field) {
    if (!have_table)
      throw InputError(top.position_of_field(field),
                       "this needs 'throughputs: <Gavel simulation_throughputs.json>'");
  };
  if (top.has("gavel_trace")) {
    need_table("gavel_trace");
    for (auto& job : stream_jobs_from_gavel_trace(table, load_gavel_trace(resolve("gavel_trace"))))
      workload.jobs.push_back(std::move(job));
  }
  if (top.has("generate")) {
    need_table("generate");
    for (auto& job : read_generated_jobs(top, table)) workload.jobs.push_back(std::move(job));
  }
  if (const InputNode* jobs = top.find("jobs")) {
    const std::size_t count = io_detail::list_length(*jobs, "jobs", file);
    const io_detail::StreamJobList list{io_detail::StreamJobSource::workload_file,
                                        have_table ? &table : nullptr};
    for (std::size_t i = 0; i < count; ++i)
      workload.jobs.push_back(io_detail::read_stream_job(
          (*jobs)[i], file, list, "job-" + std::to_string(workload.jobs.size())));
  }
  std::stable_sort(
      workload.jobs.begin(), workload.jobs.end(),
      [](const StreamJob& a, const StreamJob& b) { return a.arrival_seconds < b.arrival_seconds; });
  return workload;
}

}  // namespace hetsched
