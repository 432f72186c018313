// CudaDevice: one NVIDIA GPU driven through the CUDA driver API, behind the same
// interface as OpenClDevice: discovery, a device buffer per data handle tagged with
// the handle version it holds, explicit host → device uploads of stale inputs and
// read-back of written handles, and the kernel library.
//
// The kernels are the OpenCL kernel library's own text (kernel_library.hpp), put
// behind a short prelude that maps OpenCL C's qualifiers and work-item functions to
// CUDA's (__kernel → extern "C" __global__, __local → __shared__, get_global_id →
// blockIdx·blockDim + threadIdx, barrier → __syncthreads) and compiled at run time
// with NVRTC for the device's compute capability; the PTX is loaded with
// cuModuleLoadData. One text, two back ends: a kernel fixed for one is fixed for both.
//
// Transfers overlap compute as on OpenCL devices (StarPU's prefetch, CUDA's usual
// two-stream double buffering): uploads go on a copy stream, each recorded by an
// event that the compute stream waits for; while a task's kernels run, the next
// task's stale inputs are enqueued on the copy stream. Host blocks are not page-locked
// (a registry's blocks may be freed while a device still caches them), so the driver
// stages each copy through its own pinned buffer: the host thread waits for that staging,
// the GPU's kernel keeps running meanwhile.
//
// The driver and NVRTC are loaded with dlopen (cuda_driver_api.hpp): a machine
// without them gets no CUDA device and one notice saying why. CUDA workers are part of
// the build when HETSCHED_CUDA is ON, or AUTO (the default) and CMake finds a CUDA
// toolkit; otherwise open_all says they were not built.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/runtime/kernel_device.hpp"

namespace hetsched {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  unsigned multiprocessors = 0;
  unsigned clock_mhz = 0;
  std::uint64_t global_memory_bytes = 0;
  double memory_bandwidth = 0;  // bytes/s, from the memory clock and bus width
  unsigned max_threads_per_block = 0;
  unsigned copy_engines = 0;  // asynchronous engines: copies that overlap kernels
};

// True when CUDA workers were compiled in (HETSCHED_CUDA ON, or AUTO with a toolkit).
bool cuda_workers_built();
// True when HETSCHED_DISABLE_CUDA is set to a non-empty value other than "0".
bool cuda_disabled_by_environment();

// The CUDA C++ text of the kernel library: the prelude, then the OpenCL library's text.
std::string cuda_program_source();
// The kernel entry points every CUDA program of the library must define.
const std::vector<std::string>& cuda_kernel_names();

// Compiles CUDA C++ to PTX with NVRTC for a virtual architecture such as "compute_90".
// Needs NVRTC only (no driver, no GPU). Returns the PTX, or an error (NVRTC missing, or
// the first lines of the compile log).
struct CudaCompileResult {
  std::string ptx;
  std::optional<std::string> error;
};
CudaCompileResult compile_cuda_program(const std::string& source, const std::string& architecture);

struct CudaTransferStats {
  std::uint64_t uploads = 0;     // host → device copies enqueued
  std::uint64_t prefetched = 0;  // of those, enqueued for the next task behind this one's kernels
};

class CudaDevice final : public KernelDevice {
 public:
  // Every CUDA device. When none can be used (not built, disabled, no driver, driver
  // without devices), returns none and sets `notice` to one line saying why.
  static std::vector<std::unique_ptr<CudaDevice>> open_all(std::string& notice);

  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  const CudaDeviceInfo& info() const { return info_; }

  // Runs the call, moving data as needed; an error message when it cannot (the host
  // copies are then untouched). With `next`, its stale inputs are uploaded while this
  // call's kernels run. Only the worker owning the device calls run().
  Status run(const KernelCall& call, DataRegistry& data, const KernelCall* next = nullptr) override;
  KernelDeviceTransfers transfers() override;

  // Replaces the program source before first use (fault injection; own kernels).
  void set_program_source(std::string source);

  std::uint64_t bytes_to_device() const { return bytes_to_device_; }
  std::uint64_t bytes_to_host() const { return bytes_to_host_; }
  const CudaTransferStats& transfer_stats() const { return transfers_; }

 private:
  struct Impl;
  CudaDevice(std::unique_ptr<Impl> impl, CudaDeviceInfo info);
  Status upload(std::uint32_t handle, DataRegistry& data);
  Status build();
  std::unique_ptr<Impl> impl_;
  CudaDeviceInfo info_;
  std::uint64_t bytes_to_device_ = 0;
  std::uint64_t bytes_to_host_ = 0;
  CudaTransferStats transfers_;
};

}  // namespace hetsched
