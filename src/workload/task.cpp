#include "hetsched/workload/task.hpp"

#include "hetsched/core/closest_names.hpp"

namespace hetsched {

const std::vector<std::string>& kernel_class_names() {
  static const std::vector<std::string> names{"dense_matmul", "convolution", "attention",
                                              "elementwise",  "reduction",   "sparse",
                                              "branchy",      "io"};
  return names;
}

std::string_view to_string(KernelClass kernel) {
  return kernel_class_names()[static_cast<std::size_t>(kernel)];
}

std::optional<KernelClass> parse_kernel_class(std::string_view text) {
  const auto& names = kernel_class_names();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (equals_ignoring_case(names[i], text)) return static_cast<KernelClass>(i);
  return std::nullopt;
}

}  // namespace hetsched
