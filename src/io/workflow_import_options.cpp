#include "hetsched/io/workflow_import_options.hpp"

#include "hetsched/perf/roofline_model.hpp"

namespace hetsched {

KernelClass workflow_kernel_class(const WorkflowImportOptions& options, std::string_view category) {
  const auto it = options.kernel_by_category.find(category);
  return it == options.kernel_by_category.end() ? options.default_kernel : it->second;
}

double workflow_task_flops(double core_seconds, double core_peak_flops, KernelClass kernel) {
  const double cpu_efficiency =
      RooflineModel::default_efficiency()[static_cast<std::size_t>(kernel)]
                                         [static_cast<std::size_t>(DeviceKind::cpu)]
                                             .compute;
  return core_seconds * core_peak_flops * cpu_efficiency;
}

}  // namespace hetsched
