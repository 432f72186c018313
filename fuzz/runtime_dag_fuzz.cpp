// libFuzzer target for runtime DAG files (parse_runtime_dag), the workload format with
// the local runtime's kernels. Bad input must surface as InputError only; any other
// exception, crash, leak or sanitizer report is a finding. The limits are tighter than
// the defaults (a file may ask for gigabytes of matrices) so that every input is read
// in milliseconds; the checks are the same.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/runtime_dag_file.hpp"

namespace {

constexpr hetsched::RuntimeDagFileLimits kLimits{1000, std::int64_t{4} << 20};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::unique_ptr<hetsched::RuntimeDag> dag =
        hetsched::parse_runtime_dag(text, "fuzz.yaml", 1, kLimits);
    (void)dag;
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
