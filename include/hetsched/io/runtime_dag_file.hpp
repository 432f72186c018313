// Reading a DAG the local runtime executes for real from a workload file: the
// workload format (docs/file-formats.md: `jobs:`, each with `name`, `tasks` and
// optional `edges`; tasks with `name` and `after`), where a task names a kernel of the
// runtime's library (gemm, potrf, stencil, …) and its `size` instead of a kernel class
// and FLOP/byte counts, which follow from the kernel and size. Optional `data:` names
// the handle of each kernel argument, so that tasks share data and their
// dependencies are inferred from the accesses in file order (StarPU's implicit
// dependencies); `after:` and `edges:` add ordering edges. Format and examples:
// docs/local-runtime.md. Every problem is an InputError with file:line:column
// (an unknown kernel lists the closest names).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "hetsched/runtime/runtime_dag.hpp"

namespace hetsched {

struct RuntimeDagFileLimits {
  std::int64_t max_tasks = 1'000'000;
  std::int64_t max_total_bytes = std::int64_t{4} << 30;  // all data handles together
};

// Parses the text of a runtime DAG file; `file_name` is for error positions only.
// Data is filled from `seed` (matrices symmetric and diagonally dominant, so POTRF
// succeeds on an untouched one; random keys; random connected graphs).
std::unique_ptr<RuntimeDag> parse_runtime_dag(std::string_view text, const std::string& file_name,
                                              std::uint64_t seed,
                                              const RuntimeDagFileLimits& limits = {});

// Reads and parses a runtime DAG file; an unreadable file is an InputError naming it.
std::unique_ptr<RuntimeDag> load_runtime_dag_file(const std::string& path, std::uint64_t seed,
                                                  const RuntimeDagFileLimits& limits = {});

}  // namespace hetsched
