// Importer for Alibaba's cluster-trace-gpu-v2023 node and pod lists (CSV).
#include "hetsched/stream/alibaba_trace.hpp"

#include "hetsched/core/delimited_text.hpp"

namespace hetsched {
namespace {

template <typename Row>
std::vector<Row> parse_csv(const std::string& text, const std::string& file_name,
                           std::string_view expected_header,
                           Row (*make_row)(const std::vector<std::string_view>&, const std::string&,
                                           int)) {
  using namespace delimited_text;
  const auto all_lines = lines(text);
  if (all_lines.empty() || all_lines[0] != expected_header)
    throw InputError(SourcePosition{file_name, 1, 1},
                     "expected the header '" + std::string(expected_header) + "'");
  const std::size_t field_count = split(expected_header, ',').size();
  std::vector<Row> rows;
  rows.reserve(all_lines.size());
  for (std::size_t i = 1; i < all_lines.size(); ++i) {
    if (all_lines[i].empty()) continue;
    const auto fields = split(all_lines[i], ',');
    const int line_number = static_cast<int>(i) + 1;
    if (fields.size() != field_count)
      throw InputError(SourcePosition{file_name, line_number, 0},
                       "expected " + std::to_string(field_count) + " comma-separated fields (" +
                           std::string(expected_header) + "), got " +
                           std::to_string(fields.size()));
    rows.push_back(make_row(fields, file_name, line_number));
  }
  return rows;
}

AlibabaNode make_node(const std::vector<std::string_view>& f, const std::string& file, int line) {
  using namespace delimited_text;
  const SourcePosition at{file, line, 0};
  AlibabaNode node;
  node.name = std::string(f[0]);
  node.cpu_milli = parse_number(f[1], at, "cpu_milli");
  node.memory_mib = parse_number(f[2], at, "memory_mib");
  node.gpus = parse_integer(f[3], at, "gpu");
  node.gpu_model = std::string(f[4]);
  if (node.gpus < 0) throw InputError(at, "gpu must be >= 0");
  return node;
}

AlibabaPod make_pod(const std::vector<std::string_view>& f, const std::string& file, int line) {
  using namespace delimited_text;
  const SourcePosition at{file, line, 0};
  AlibabaPod pod;
  pod.line = line;
  pod.name = std::string(f[0]);
  pod.cpu_milli = parse_number(f[1], at, "cpu_milli");
  pod.memory_mib = parse_number(f[2], at, "memory_mib");
  pod.gpus = parse_integer(f[3], at, "num_gpu");
  pod.gpu_milli = parse_integer(f[4], at, "gpu_milli");
  pod.gpu_spec = std::string(f[5]);
  pod.qos = std::string(f[6]);
  pod.phase = std::string(f[7]);
  pod.creation_seconds = parse_number(f[8], at, "creation_time");
  pod.deletion_seconds = parse_number(f[9], at, "deletion_time");
  if (!f[10].empty()) pod.scheduled_seconds = parse_number(f[10], at, "scheduled_time");
  if (pod.gpus < 0 || pod.gpu_milli < 0 || pod.gpu_milli > 1000)
    throw InputError(at, "num_gpu must be >= 0 and gpu_milli within 0..1000");
  if (pod.gpus > 0 && pod.gpu_milli == 0)
    throw InputError(at, "a GPU pod must ask for some of its GPU (gpu_milli 1..1000)");
  if (pod.gpus > 1 && pod.gpu_milli != 1000)
    throw InputError(at, "a multi-GPU pod must ask for whole GPUs (gpu_milli 1000)");
  if (pod.deletion_seconds < pod.creation_seconds)
    throw InputError(at, "deletion_time before creation_time");
  return pod;
}

}  // namespace

std::vector<AlibabaNode> parse_alibaba_nodes(const std::string& text,
                                             const std::string& file_name) {
  return parse_csv<AlibabaNode>(text, file_name, "sn,cpu_milli,memory_mib,gpu,model", &make_node);
}

std::vector<AlibabaPod> parse_alibaba_pods(const std::string& text, const std::string& file_name) {
  return parse_csv<AlibabaPod>(text, file_name,
                               "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_"
                               "phase,creation_time,deletion_time,scheduled_time",
                               &make_pod);
}

std::vector<AlibabaNode> load_alibaba_nodes(const std::string& path) {
  return parse_alibaba_nodes(read_text_file(path), path);
}

std::vector<AlibabaPod> load_alibaba_pods(const std::string& path) {
  return parse_alibaba_pods(read_text_file(path), path);
}

}  // namespace hetsched
