#include "hetsched/runtime/kernel_traits.hpp"

#include <algorithm>
#include <cmath>

namespace hetsched {
namespace {

using enum ArgumentKind;
using enum Access;

// Calibration sizes: dense kernels by matrix side, the others by element or vertex count
// (sort's are powers of two, which the OpenCL bitonic sort needs).
constexpr std::uint32_t kDenseTraining[]{32, 64, 128, 256}, kDenseHeldOut[]{48, 96, 192},
    kDenseQuickTraining[]{16, 32, 64}, kDenseQuickHeldOut[]{24, 48};
constexpr std::uint32_t kStencilTraining[]{64, 128, 256, 512}, kStencilHeldOut[]{96, 192, 384},
    kStencilQuickTraining[]{32, 64, 128}, kStencilQuickHeldOut[]{48, 96};
constexpr std::uint32_t kReductionTraining[]{16384, 65536, 262144, 1048576},
    kReductionHeldOut[]{32768, 131072, 524288}, kReductionQuickTraining[]{4096, 16384, 65536},
    kReductionQuickHeldOut[]{8192, 32768};
constexpr std::uint32_t kSortTraining[]{1024, 4096, 16384, 65536},
    kSortHeldOut[]{2048, 8192, 32768}, kSortQuickTraining[]{1024, 4096, 16384},
    kSortQuickHeldOut[]{2048, 8192};
constexpr std::uint32_t kBfsTraining[]{1024, 4096, 16384, 65536}, kBfsHeldOut[]{2048, 8192, 32768},
    kBfsQuickTraining[]{512, 2048, 8192}, kBfsQuickHeldOut[]{1024, 4096};
constexpr CalibrationSizes kDense{kDenseTraining, kDenseHeldOut, kDenseQuickTraining,
                                  kDenseQuickHeldOut};
constexpr CalibrationSizes kStencil{kStencilTraining, kStencilHeldOut, kStencilQuickTraining,
                                    kStencilQuickHeldOut};
constexpr CalibrationSizes kReduction{kReductionTraining, kReductionHeldOut,
                                      kReductionQuickTraining, kReductionQuickHeldOut};
constexpr CalibrationSizes kSort{kSortTraining, kSortHeldOut, kSortQuickTraining,
                                 kSortQuickHeldOut};
constexpr CalibrationSizes kBfs{kBfsTraining, kBfsHeldOut, kBfsQuickTraining, kBfsQuickHeldOut};

constexpr std::int64_t kLargestMatrixSide = 16384;
constexpr std::int64_t kLargestElementCount = std::int64_t{1} << 26;

const std::array<KernelTraits, kKernelIdCount> kTraits{{
    {"empty",
     KernelClass::elementwise,
     0,
     {},
     kLargestElementCount,
     [](double, double) { return 0.0; },
     {}},
    {"gemm",
     KernelClass::dense_matmul,
     3,
     {{{matrix, read}, {matrix, read}, {matrix, read_write}}},
     kLargestMatrixSide,
     [](double n, double) { return 2 * n * n * n; },
     kDense},
    {"gemm_nt",
     KernelClass::dense_matmul,
     3,
     {{{matrix, read}, {matrix, read}, {matrix, read_write}}},
     kLargestMatrixSide,
     [](double n, double) { return 2 * n * n * n; },
     kDense},
    {"syrk",
     KernelClass::dense_matmul,
     2,
     {{{matrix, read}, {matrix, read_write}}},
     kLargestMatrixSide,
     [](double n, double) { return n * n * n; },
     kDense},
    {"trsm",
     KernelClass::dense_matmul,
     2,
     {{{matrix, read}, {matrix, read_write}}},
     kLargestMatrixSide,
     [](double n, double) { return n * n * n; },
     kDense},
    {"potrf",
     KernelClass::dense_matmul,
     1,
     {{{matrix, read_write}}},
     kLargestMatrixSide,
     [](double n, double) { return n * n * n / 3; },
     kDense},
    {"stencil",
     KernelClass::elementwise,
     2,
     {{{matrix, read}, {matrix, write}}},
     kLargestMatrixSide,
     [](double n, double) { return 5 * n * n; },
     kStencil},
    {"reduction",
     KernelClass::reduction,
     2,
     {{{vector, read}, {scalar, write}}},
     kLargestElementCount,
     [](double n, double) { return n; },
     kReduction},
    {"sort",
     KernelClass::sparse,
     1,
     {{{keys, read_write}}},
     kLargestElementCount,
     [](double n, double) { return n * std::max(1.0, std::log2(std::max(n, 2.0))); },
     kSort},
    {"bfs",
     KernelClass::branchy,
     2,
     {{{graph, read}, {levels, write}}},
     kLargestElementCount,
     [](double n, double graph_edges) { return n + graph_edges; },
     kBfs},
}};

}  // namespace

const KernelTraits& kernel_traits(KernelId kernel) {
  return kTraits[static_cast<std::size_t>(kernel)];
}

std::string_view to_string(ArgumentKind kind) {
  switch (kind) {
    case matrix:
      return "matrix";
    case vector:
      return "vector";
    case scalar:
      return "scalar";
    case keys:
      return "key array";
    case graph:
      return "graph";
    case levels:
      return "level array";
  }
  return "data";
}

std::int64_t argument_bytes(ArgumentKind kind, std::int64_t n) {
  switch (kind) {
    case matrix:
      return n * n * std::int64_t(sizeof(double));
    case vector:
      return n * std::int64_t(sizeof(double));
    case scalar:
      return std::int64_t(sizeof(double));
    case keys:
      return n * std::int64_t(sizeof(std::uint32_t));
    case graph:
      return (n + 1 + n * (1 + kExtraEdgesPerVertex)) * std::int64_t(sizeof(std::int32_t));
    case levels:
      return n * std::int64_t(sizeof(std::int32_t));
  }
  return 0;
}

}  // namespace hetsched
