#include "hetsched/runtime/kernel_library.hpp"

namespace hetsched {

std::string_view to_string(KernelId kernel) { return kernel_traits(kernel).name; }

std::optional<KernelId> parse_kernel_id(std::string_view text) {
  for (std::size_t i = 0; i < kKernelIdCount; ++i)
    if (kernel_traits(static_cast<KernelId>(i)).name == text) return static_cast<KernelId>(i);
  return std::nullopt;
}

const std::vector<std::string>& kernel_id_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (std::size_t i = 0; i < kKernelIdCount; ++i)
      all.emplace_back(kernel_traits(static_cast<KernelId>(i)).name);
    return all;
  }();
  return names;
}

KernelClass kernel_class_of(KernelId kernel) { return kernel_traits(kernel).kernel_class; }

std::vector<Access> kernel_signature(KernelId kernel) {
  std::vector<Access> accesses;
  for (const KernelArgument& argument : kernel_traits(kernel).argument_list())
    accesses.push_back(argument.access);
  return accesses;
}

double kernel_flops(KernelId kernel, std::uint32_t n, double graph_edges) {
  return kernel_traits(kernel).flops(n, graph_edges);
}

}  // namespace hetsched
