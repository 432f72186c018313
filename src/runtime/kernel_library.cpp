#include "hetsched/runtime/kernel_library.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace hetsched {

namespace {
constexpr std::array<std::string_view, kKernelIdCount> kNames{
    "empty", "gemm", "gemm_nt", "syrk", "trsm", "potrf", "stencil", "reduction", "sort", "bfs"};
}

std::string_view to_string(KernelId kernel) { return kNames[static_cast<std::size_t>(kernel)]; }

std::optional<KernelId> parse_kernel_id(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == text) return static_cast<KernelId>(i);
  return std::nullopt;
}

const std::vector<std::string>& kernel_id_names() {
  static const std::vector<std::string> names(kNames.begin(), kNames.end());
  return names;
}

KernelClass kernel_class_of(KernelId kernel) {
  switch (kernel) {
    case KernelId::gemm:
    case KernelId::gemm_nt:
    case KernelId::syrk:
    case KernelId::trsm:
    case KernelId::potrf:
      return KernelClass::dense_matmul;
    case KernelId::stencil:
      return KernelClass::elementwise;
    case KernelId::reduction:
      return KernelClass::reduction;
    case KernelId::sort:
      return KernelClass::sparse;
    case KernelId::bfs:
      return KernelClass::branchy;
    case KernelId::empty:
      break;
  }
  return KernelClass::elementwise;
}

std::vector<Access> kernel_signature(KernelId kernel) {
  using enum Access;
  switch (kernel) {
    case KernelId::empty:
      return {};
    case KernelId::gemm:
    case KernelId::gemm_nt:
      return {read, read, read_write};
    case KernelId::syrk:
      return {read, read_write};
    case KernelId::trsm:
      return {read, read_write};
    case KernelId::potrf:
      return {read_write};
    case KernelId::stencil:
      return {read, write};
    case KernelId::reduction:
      return {read, write};
    case KernelId::sort:
      return {read_write};
    case KernelId::bfs:
      return {read, write};
  }
  return {};
}

double kernel_flops(KernelId kernel, std::uint32_t n, double graph_edges) {
  const double d = n;
  switch (kernel) {
    case KernelId::gemm:
    case KernelId::gemm_nt:
      return 2 * d * d * d;
    case KernelId::syrk:
    case KernelId::trsm:
      return d * d * d;
    case KernelId::potrf:
      return d * d * d / 3;
    case KernelId::stencil:
      return 5 * d * d;
    case KernelId::reduction:
      return d;
    case KernelId::sort:
      return d * std::max(1.0, std::log2(std::max(d, 2.0)));
    case KernelId::bfs:
      return d + graph_edges;
    case KernelId::empty:
      break;
  }
  return 0;
}

}  // namespace hetsched
