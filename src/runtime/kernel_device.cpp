#include "hetsched/runtime/kernel_device.hpp"

namespace hetsched {

Status CpuKernelDevice::run(const KernelCall& call, DataRegistry& data,
                            const KernelCall* /*next*/) {
  Status ran = run_cpu_kernel(call, data);
  if (ran)
    for (std::size_t i = 0; i < call.handle_count; ++i)
      if (call.access[i] != Access::read) data.bump_version(call.handles[i]);
  return ran;
}

}  // namespace hetsched
