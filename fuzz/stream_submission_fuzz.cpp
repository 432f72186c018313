// libFuzzer target for stream jobs submitted to `hetsched serve` (parse_stream_submission, a
// REST request body): bad input must surface as InputError only; any other exception, crash,
// leak or sanitizer report is a finding. The parser reads no file (it refuses the fields that
// would), so every input is fed to it.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/stream_submission.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)hetsched::is_stream_submission(text);
    (void)hetsched::parse_stream_submission(text, 1000);
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
