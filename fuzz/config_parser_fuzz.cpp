// libFuzzer target for the input boundary: feeds arbitrary bytes to parse_cluster and to
// parse_workload (against a small fixed cluster). Bad input must surface as InputError
// only; any other exception, crash, leak or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/workload_file.hpp"

namespace {

// Tighter than the defaults so that every input parses in milliseconds under the
// sanitizers; the code paths are the same.
constexpr hetsched::ClusterFileLimits kClusterLimits{1000, 256, 10'000};
constexpr hetsched::WorkloadFileLimits kWorkloadLimits{1000, 10'000, 100'000, 100'000, 1'000'000};

const hetsched::Cluster& fixed_cluster() {
  static const hetsched::Cluster cluster = hetsched::parse_cluster(R"(
nodes:
  - {name: gpu, rack: rack0, devices: [{model: H100-SXM, count: 2}]}
  - {name: cpu, rack: rack1, devices: [{model: EPYC-9654}]}
  - {name: tpu, rack: rack1, devices: [{model: TPU-v5e, count: 2}]}
)",
                                                                   "fuzz-cluster.yaml");
  return cluster;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const hetsched::Cluster cluster = hetsched::parse_cluster(text, "fuzz.yaml", kClusterLimits);
    (void)cluster;
  } catch (const hetsched::InputError&) {
  }
  try {
    const hetsched::Workload workload =
        hetsched::parse_workload(text, "fuzz.yaml", fixed_cluster(), kWorkloadLimits);
    (void)workload;
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
