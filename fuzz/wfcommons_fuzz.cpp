// libFuzzer target for WfCommons JSON instances (parse_wfcommons, schema 1.4 to 1.6).
// Bad input must surface as InputError only; any other exception, crash, leak or
// sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/wfcommons_importer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const hetsched::Job job = hetsched::parse_wfcommons(text, "fuzz.json");
    (void)job;
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
