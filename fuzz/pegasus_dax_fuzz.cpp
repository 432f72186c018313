// libFuzzer target for Pegasus DAX workflows (parse_pegasus_dax, XML read with pugixml).
// Bad input must surface as InputError only; any other exception, crash, leak or
// sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/pegasus_dax_importer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const hetsched::Job job = hetsched::parse_pegasus_dax(text, "fuzz.xml");
    (void)job;
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
