// libFuzzer target for fault files (parse_fault_yaml), against the default cluster (the
// device and node names of the documented example). Bad input must surface as
// InputError only; any other exception, crash, leak or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/io/fault_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const hetsched::Cluster cluster = hetsched::default_cluster();
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const hetsched::FaultOptions options = hetsched::parse_fault_yaml(text, "fuzz.yaml", cluster);
    (void)options;
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
