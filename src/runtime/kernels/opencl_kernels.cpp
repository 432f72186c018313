// OpenCL C implementations of the kernel library, compiled at run time by each
// OpenCL device (PoCL on the CPU in tests and CI). Written for this project:
//  - gemm_tiled: the classic 16×16 local-memory tiling (each work-group stages a
//    tile of A and of B in local memory, then accumulates their product);
//  - trsm_right_lower_transposed: one work-item per row, forward substitution;
//  - potrf_lower: right-looking Cholesky inside one work-group, barriers between
//    the pivot, the column scaling and the trailing update;
//  - stencil_5point, reduce_partial/reduce_final (tree in local memory),
//    bitonic_step (Batcher's bitonic sorting network, one pass per launch),
//    bfs_init/bfs_level (level-synchronous breadth-first search).
// The same text is the CUDA workers' kernel library: cuda_device.cpp puts a prelude in
// front (HETSCHED_CUDA defined, OpenCL's qualifiers and work-item functions mapped to
// CUDA's) and compiles it with NVRTC; the only OpenCL-only construct, a __local
// pointer argument, is behind LOCAL_SCRATCH_* (CUDA: dynamic shared memory).
#include "hetsched/runtime/kernel_library.hpp"

namespace hetsched {

std::string_view opencl_program_source() {
  static constexpr std::string_view source = R"CLC(
#ifndef HETSCHED_CUDA
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define LOCAL_SCRATCH_PARAMETER , __local double* scratch
#define LOCAL_SCRATCH_DECLARATION
#endif
#define TS 16

__kernel void gemm_tiled(const int n, const double alpha, const int trans_b, const int lower_only,
                         __global const double* a, __global const double* b, __global double* c) {
  const int col = get_global_id(0), row = get_global_id(1);
  const int lc = get_local_id(0), lr = get_local_id(1);
  __local double as[TS][TS];
  __local double bs[TS][TS];
  double acc = 0.0;
  for (int t = 0; t < n; t += TS) {
    as[lr][lc] = (row < n && t + lc < n) ? a[row * n + t + lc] : 0.0;
    const int k = t + lr;
    bs[lr][lc] = (k < n && col < n) ? (trans_b ? b[col * n + k] : b[k * n + col]) : 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int q = 0; q < TS; ++q) acc += as[lr][q] * bs[q][lc];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < n && col < n && (!lower_only || col <= row)) c[row * n + col] += alpha * acc;
}

__kernel void trsm_right_lower_transposed(const int n, __global const double* l,
                                          __global double* b) {
  const int r = get_global_id(0);
  if (r >= n) return;
  __global double* x = b + r * n;
  for (int j = 0; j < n; ++j) {
    double s = x[j];
    for (int m = 0; m < j; ++m) s -= x[m] * l[j * n + m];
    x[j] = s / l[j * n + j];
  }
}

__kernel void potrf_lower(const int n, __global double* a, __global int* status) {
  const int lid = get_local_id(0), ls = get_local_size(0);
  for (int k = 0; k < n; ++k) {
    if (lid == 0) {
      const double pivot = a[k * n + k];
      if (pivot <= 0.0 && status[0] == 0) status[0] = k + 1;
      a[k * n + k] = sqrt(fabs(pivot));
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    const double d = a[k * n + k];
    for (int i = k + 1 + lid; i < n; i += ls) a[i * n + k] /= d;
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (int i = k + 1 + lid; i < n; i += ls) {
      const double lik = a[i * n + k];
      for (int j = k + 1; j <= i; ++j) a[i * n + j] -= lik * a[j * n + k];
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}

__kernel void stencil_5point(const int n, __global const double* in, __global double* out) {
  const int j = get_global_id(0), i = get_global_id(1);
  if (i >= n || j >= n) return;
  const int c = i * n + j;
  if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
    out[c] = in[c];
  } else {
    out[c] = 0.2 * (in[c] + in[c - n] + in[c + n] + in[c - 1] + in[c + 1]);
  }
}

__kernel void reduce_partial(const int n, __global const double* in, __global double* partial
                             LOCAL_SCRATCH_PARAMETER) {
  LOCAL_SCRATCH_DECLARATION
  const int lid = get_local_id(0), ls = get_local_size(0);
  double sum = 0.0;
  for (int i = get_global_id(0); i < n; i += get_global_size(0)) sum += in[i];
  scratch[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = ls / 2; s > 0; s >>= 1) {
    if (lid < s) scratch[lid] += scratch[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) partial[get_group_id(0)] = scratch[0];
}

__kernel void reduce_final(const int count, __global const double* partial, __global double* out) {
  if (get_global_id(0) != 0) return;
  double sum = 0.0;
  for (int i = 0; i < count; ++i) sum += partial[i];
  out[0] = sum;
}

__kernel void bitonic_step(__global uint* keys, const uint j, const uint k) {
  const uint i = get_global_id(0);
  const uint partner = i ^ j;
  if (partner <= i) return;
  const uint ki = keys[i], kp = keys[partner];
  const int ascending = (i & k) == 0;
  if ((ascending && ki > kp) || (!ascending && ki < kp)) {
    keys[i] = kp;
    keys[partner] = ki;
  }
}

__kernel void bfs_init(const int n, __global int* level) {
  const int v = get_global_id(0);
  if (v < n) level[v] = v == 0 ? 0 : -1;
}

__kernel void bfs_level(const int n, const int depth, __global const int* graph,
                        __global int* level, __global int* changed) {
  const int v = get_global_id(0);
  if (v >= n || level[v] != depth) return;
  __global const int* offsets = graph;
  __global const int* columns = graph + n + 1;
  for (int e = offsets[v]; e < offsets[v + 1]; ++e) {
    const int u = columns[e];
    if (level[u] == -1) {
      level[u] = depth + 1;
      changed[0] = 1;
    }
  }
}
)CLC";
  return source;
}

}  // namespace hetsched
