#include "hetsched/runtime/kernel_device.hpp"

namespace hetsched {

std::optional<std::string> CpuKernelDevice::run(const KernelCall& call, DataRegistry& data,
                                                const KernelCall* /*next*/) {
  auto error = run_cpu_kernel(call, data);
  if (!error)
    for (std::size_t i = 0; i < call.handle_count; ++i)
      if (call.access[i] != Access::read) data.bump_version(call.handles[i]);
  return error;
}

}  // namespace hetsched
