// libFuzzer target for Gavel's job trace files (parse_gavel_trace, the tab-separated
// `.trace` of OSDI 2020's artifact): bad input must surface as InputError only; any other
// exception, crash, leak or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/stream/gavel_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)hetsched::parse_gavel_trace(text, "fuzz.trace");
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
