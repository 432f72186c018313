// KernelTraits: what hetsched knows about each kernel of the library, one row per KernelId —
// its name, the class the scheduler's models know it by, its arguments (what each holds
// and how the kernel accesses it), the largest size it accepts, its work, and the sizes
// calibration measures it at. The runtime, the DAG file reader, calibration and the
// models read this one table; only the kernels' implementations (CPU, OpenCL, CUDA) are
// written per kernel.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "hetsched/workload/dataflow_job.hpp"
#include "hetsched/workload/task.hpp"

namespace hetsched {

enum class KernelId : std::uint8_t {
  empty,
  gemm,
  gemm_nt,
  syrk,
  trsm,
  potrf,
  stencil,
  reduction,
  sort,
  bfs
};
inline constexpr std::size_t kKernelIdCount = 10;

// What one kernel argument holds.
enum class ArgumentKind : std::uint8_t {
  matrix,  // n×n doubles
  vector,  // n doubles
  scalar,  // one double
  keys,    // n uint32 keys
  graph,   // a CSR graph of n vertices (ring plus random extra edges)
  levels,  // n int32 BFS levels
};

struct KernelArgument {
  ArgumentKind kind;
  Access access;
};

// Sizes calibration measures a kernel at: fitted on `training`, checked on `held_out`;
// smaller ones for a quick calibration.
struct CalibrationSizes {
  std::span<const std::uint32_t> training, held_out, quick_training, quick_held_out;
};

struct KernelTraits {
  std::string_view name;
  KernelClass kernel_class;  // how the scheduler's models know it
  std::uint8_t argument_count;
  std::array<KernelArgument, 3> arguments;
  std::int64_t max_size;  // the largest n it accepts (matrix side, else element count)
  // Floating-point work of one call of size n (a graph's extra edges for bfs).
  double (*flops)(double n, double graph_edges);
  CalibrationSizes calibration;

  std::span<const KernelArgument> argument_list() const {
    return {arguments.data(), argument_count};
  }
};

const KernelTraits& kernel_traits(KernelId kernel);

// An argument kind's name for messages ("matrix", "key array", ...).
std::string_view to_string(ArgumentKind kind);
// Bytes of one argument of size n (a graph: its CSR with the ring and the extra edges).
std::int64_t argument_bytes(ArgumentKind kind, std::int64_t n);
// Random graphs for bfs have this many extra edges per vertex beside the ring.
inline constexpr std::uint32_t kExtraEdgesPerVertex = 4;

}  // namespace hetsched
