// The kernel library: real workloads the local runtime executes, each with a CPU
// implementation and an OpenCL implementation, so that placement matters (dense
// algebra favours OpenBLAS on a core, wide data-parallel kernels favour a
// vectorising OpenCL device, branchy graph search favours a plain core).
//
//   gemm     C += A·B           (n×n doubles; CPU: OpenBLAS dgemm; OpenCL: 16×16 tiled kernel)
//   gemm_nt  C -= A·Bᵀ          (the Cholesky update; same kernels)
//   syrk     C -= A·Aᵀ, lower   (CPU: dsyrk; OpenCL: the tiled kernel, lower triangle only)
//   trsm     B := B·L⁻ᵀ         (CPU: dtrsm; OpenCL: one work-item per row)
//   potrf    A := chol(A), lower (CPU: LAPACKE dpotrf; OpenCL: one work-group, right-looking)
//   stencil  out := 5-point Jacobi step of in (n×n doubles)
//   reduction out[0] := Σ in     (n doubles; OpenCL: work-group tree then one final group)
//   sort     ascending sort of n uint32 keys (CPU: std::sort; OpenCL: bitonic, n a power of 2)
//   bfs      levels of a CSR graph from vertex 0 (CPU: queue; OpenCL: level-synchronous)
//   empty    does nothing (runtime overhead measurements)
//
// The tiled algorithms (tiled GEMM and tiled Cholesky, as in StarPU's examples) are
// DAGs of these kernels; see runtime_dag.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/core/expected.hpp"
#include "hetsched/runtime/data_registry.hpp"
#include "hetsched/runtime/kernel_traits.hpp"
#include "hetsched/workload/task.hpp"

namespace hetsched {

std::string_view to_string(KernelId kernel);
std::optional<KernelId> parse_kernel_id(std::string_view text);
const std::vector<std::string>& kernel_id_names();
// The kernel class the scheduler's models know the kernel by.
KernelClass kernel_class_of(KernelId kernel);

// One kernel invocation: which kernel, on which handles (in the kernel's argument
// order, see above) and its size `n` (matrix/grid side, element or vertex count).
struct KernelCall {
  KernelId kernel = KernelId::empty;
  std::uint8_t handle_count = 0;
  std::array<HandleId, 3> handles{};
  std::array<Access, 3> access{};
  std::uint32_t n = 0;
};

// The argument layout each kernel expects: the access of each handle, in order.
std::vector<Access> kernel_signature(KernelId kernel);

// Floating-point work and bytes touched of one call, for the Task the scheduler sees.
double kernel_flops(KernelId kernel, std::uint32_t n, double graph_edges = 0);

// Runs the call on the calling thread with OpenBLAS single-threaded; fails when the
// kernel does (a matrix that is not positive definite).
Status run_cpu_kernel(const KernelCall& call, DataRegistry& data);

// Makes OpenBLAS use one thread per caller (each CPU worker runs one kernel at a time).
void use_single_threaded_blas();

// The core type OpenBLAS picked for its kernels ("Haswell", "SkylakeX", …; "Prescott"
// means it fell back to generic code: set OPENBLAS_CORETYPE for benchmarks then).
std::string openblas_core_name();

// The OpenCL C program holding every kernel of the library.
std::string_view opencl_program_source();

}  // namespace hetsched
