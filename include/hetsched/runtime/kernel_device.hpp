// KernelDevice: what a local worker runs its tasks on — a CPU core (kernels through
// OpenBLAS/LAPACKE), an OpenCL device or a CUDA device — behind one interface, so the
// local runtime and calibration never ask which kind they hold.
#pragma once

#include <cstdint>

#include "hetsched/core/expected.hpp"
#include "hetsched/runtime/kernel_library.hpp"

namespace hetsched {

// Data moved between the host and a device so far, and how much of it was overlapped
// with kernels (zero where the device does not measure it, and for CPU cores).
struct KernelDeviceTransfers {
  std::uint64_t bytes_to_device = 0;
  std::uint64_t bytes_to_host = 0;
  std::uint64_t prefetched_uploads = 0;     // uploads issued ahead for the next task
  std::uint64_t uploads_during_kernel = 0;  // of those, issued while a kernel was in flight
  std::uint64_t uploads_overlapped = 0;     // timed ones that ran while the kernel ran
  double overlap_seconds = 0;               // their time spent under the kernel
};

class KernelDevice {
 public:
  virtual ~KernelDevice() = default;

  // Runs the call, moving data as needed, and bumps the versions of what it wrote; fails
  // with a message when it cannot (the host copies are then untouched). With `next`
  // (the call this device runs after it, its inputs current on the host), a device
  // with memory of its own uploads that call's stale inputs while this kernel runs.
  virtual Status run(const KernelCall& call, DataRegistry& data, const KernelCall* next) = 0;
  // The totals so far (a device may wait for outstanding uploads to time them).
  virtual KernelDeviceTransfers transfers() = 0;
};

// A CPU core: kernels run on the calling thread, on the host's copies.
class CpuKernelDevice final : public KernelDevice {
 public:
  Status run(const KernelCall& call, DataRegistry& data, const KernelCall* next) override;
  KernelDeviceTransfers transfers() override { return {}; }
};

}  // namespace hetsched
