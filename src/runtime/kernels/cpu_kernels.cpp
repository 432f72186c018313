// CPU implementations of the kernel library: OpenBLAS (single-threaded per worker)
// and LAPACKE for the dense kernels, plain loops for the rest.
#include <cblas.h>
#include <fmt/format.h>
#include <lapacke.h>

#include <algorithm>
#include <cstring>
#include <deque>

#include "hetsched/runtime/kernel_library.hpp"

namespace hetsched {

void use_single_threaded_blas() { openblas_set_num_threads(1); }

std::string openblas_core_name() {
  const char* name = openblas_get_corename();
  return name ? name : "unknown";
}

namespace {

double* doubles(DataRegistry& data, HandleId h) { return data.view<double>(h).data(); }

void stencil_step(std::uint32_t n, const double* in, double* out) {
  for (std::uint32_t i = 0; i < n; ++i) {
    for (std::uint32_t j = 0; j < n; ++j) {
      const std::size_t c = std::size_t(i) * n + j;
      if (i == 0 || j == 0 || i + 1 == n || j + 1 == n) {
        out[c] = in[c];
      } else {
        out[c] = 0.2 * (in[c] + in[c - n] + in[c + n] + in[c - 1] + in[c + 1]);
      }
    }
  }
}

void breadth_first_levels(std::uint32_t n, const std::int32_t* graph, std::int32_t* level) {
  const std::int32_t* offsets = graph;
  const std::int32_t* columns = graph + n + 1;
  std::fill(level, level + n, -1);
  if (n == 0) return;
  std::vector<std::int32_t> frontier{0}, next;
  level[0] = 0;
  for (std::int32_t depth = 0; !frontier.empty(); ++depth) {
    next.clear();
    for (std::int32_t v : frontier)
      for (std::int32_t e = offsets[v]; e < offsets[v + 1]; ++e)
        if (level[columns[e]] == -1) {
          level[columns[e]] = depth + 1;
          next.push_back(columns[e]);
        }
    frontier.swap(next);
  }
}

}  // namespace

Status run_cpu_kernel(const KernelCall& call, DataRegistry& data) {
  const int n = static_cast<int>(call.n);
  const auto& h = call.handles;
  switch (call.kernel) {
    case KernelId::empty:
      return {};
    case KernelId::gemm:
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, doubles(data, h[0]), n,
                  doubles(data, h[1]), n, 1.0, doubles(data, h[2]), n);
      return {};
    case KernelId::gemm_nt:
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, doubles(data, h[0]), n,
                  doubles(data, h[1]), n, 1.0, doubles(data, h[2]), n);
      return {};
    case KernelId::syrk:
      cblas_dsyrk(CblasRowMajor, CblasLower, CblasNoTrans, n, n, -1.0, doubles(data, h[0]), n, 1.0,
                  doubles(data, h[1]), n);
      return {};
    case KernelId::trsm:
      cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, n, n, 1.0,
                  doubles(data, h[0]), n, doubles(data, h[1]), n);
      return {};
    case KernelId::potrf: {
      const lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, doubles(data, h[0]), n);
      if (info != 0)
        return failure(
            fmt::format("potrf: LAPACKE_dpotrf returned {} (matrix not positive definite)", info));
      return {};
    }
    case KernelId::stencil:
      stencil_step(call.n, doubles(data, h[0]), doubles(data, h[1]));
      return {};
    case KernelId::reduction: {
      const auto in = data.view<double>(h[0]);
      double sum = 0;
      for (std::uint32_t i = 0; i < call.n; ++i) sum += in[i];
      doubles(data, h[1])[0] = sum;
      return {};
    }
    case KernelId::sort: {
      auto keys = data.view<std::uint32_t>(h[0]);
      std::sort(keys.begin(), keys.begin() + call.n);
      return {};
    }
    case KernelId::bfs:
      breadth_first_levels(call.n, data.view<std::int32_t>(h[0]).data(),
                           data.view<std::int32_t>(h[1]).data());
      return {};
  }
  return failure("unknown kernel");
}

}  // namespace hetsched
