// libFuzzer target for the stream workload file (parse_stream_workload): bad input must
// surface as InputError only; any other exception, crash, leak or sanitizer report is a
// finding. A stream file may name a Gavel throughput table and trace to read from disk;
// the target skips inputs that might (with no table, `generate:` and `model:` jobs are
// InputErrors), so it never reads a file the fuzzer names.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/stream_workload_file.hpp"

namespace {

// True when the parser might open a file named in the text: it does only for the fields
// `throughputs` and `gavel_trace`, so a text naming either is skipped, and so is one with
// a backslash (an escaped key could spell either name without its letters appearing).
bool names_a_file(const std::string& text) {
  return text.find("throughputs") != std::string::npos ||
         text.find("gavel_trace") != std::string::npos || text.find('\\') != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (names_a_file(text)) return 0;
  try {
    const hetsched::StreamWorkload workload =
        hetsched::parse_stream_workload(text, "fuzz.yaml", "/nonexistent-hetsched-fuzz");
    (void)workload;
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
