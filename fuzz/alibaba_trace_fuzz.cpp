// libFuzzer target for the Alibaba GPU cluster trace (2023) CSV files: the same bytes as a
// node list (parse_alibaba_nodes) and as a pod list (parse_alibaba_pods). Bad input must
// surface as InputError only; any other exception, crash, leak or sanitizer report is a
// finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/stream/alibaba_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)hetsched::parse_alibaba_nodes(text, "fuzz_node_list.csv");
  } catch (const hetsched::InputError&) {
  }
  try {
    (void)hetsched::parse_alibaba_pods(text, "fuzz_pod_list.csv");
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
