// libFuzzer target for cost-matrix files (parse_cost_matrix), and for the job and
// cluster a valid matrix becomes. Bad input must surface as InputError only; any other
// exception, crash, leak or sanitizer report is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/io/cost_matrix_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const hetsched::CostMatrix matrix = hetsched::parse_cost_matrix(text, "fuzz.yaml");
    const hetsched::Job job = hetsched::cost_matrix_job(matrix);
    const hetsched::Cluster cluster = hetsched::cost_matrix_cluster(matrix);
    (void)job;
    (void)cluster;
  } catch (const hetsched::InputError&) {
  }
  return 0;
}
