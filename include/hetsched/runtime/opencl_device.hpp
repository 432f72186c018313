// OpenClDevice: one OpenCL device (PoCL's CPU device in tests and CI, a GPU where
// one is installed) with its context, two in-order command queues (kernels and
// read-backs on one, uploads on the other), the kernel library's program (built once,
// on first use) and a cache of device buffers, one per data handle, tagged with the
// handle version they hold. run() moves stale inputs host → device, enqueues the
// kernel and reads written handles back to the host.
//
// Transfers overlap compute: given the next task, run() enqueues that task's stale
// inputs as non-blocking writes on the upload queue while the current kernel runs
// (the double buffering of StarPU's prefetch and of CUDA streams); the next run()
// makes its kernels wait for those uploads through their events (a barrier on the
// kernel queue), not for the whole device. With profiling, each such upload's
// overlap with the kernel it was issued under is measured on the device's clock.
// Only the worker that owns the device calls run(); discovery may be called anywhere.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/runtime/kernel_device.hpp"

struct _cl_mem;  // OpenCL's buffer object, cl_mem is a pointer to it

namespace hetsched {

struct OpenClDeviceInfo {
  std::string platform;
  std::string name;
  std::string vendor;
  std::string version;
  std::string type;  // "cpu", "gpu", "accelerator", "other"
  unsigned compute_units = 0;
  std::uint64_t global_memory_bytes = 0;
  unsigned max_clock_mhz = 0;
  std::size_t max_work_group_size = 0;
  bool fp64 = false;
};

// True when HETSCHED_DISABLE_OPENCL is set to a non-empty value other than "0".
bool opencl_disabled_by_environment();

// What the overlap of transfers with compute achieved on one device.
struct OpenClTransferStats {
  std::uint64_t uploads = 0;                // host → device writes enqueued
  std::uint64_t prefetched = 0;             // of those, issued ahead for the next task
  std::uint64_t uploads_during_kernel = 0;  // prefetches issued while a kernel was in flight
  std::uint64_t timed_uploads = 0;          // prefetches timed by device profiling
  std::uint64_t uploads_overlapped = 0;     // timed prefetches that ran while the kernel ran
  double overlap_seconds = 0;               // their time spent under the kernel (device clock)
  double timed_upload_seconds = 0;          // their total time
};

class OpenClDevice final : public KernelDevice {
 public:
  // Every OpenCL device of every platform. When none is found (no ICD, no
  // platform, or OpenCL disabled), returns none and sets `notice` to one line
  // saying why; `notice` is left empty otherwise.
  static std::vector<std::unique_ptr<OpenClDevice>> open_all(std::string& notice);

  ~OpenClDevice() override;
  OpenClDevice(const OpenClDevice&) = delete;
  OpenClDevice& operator=(const OpenClDevice&) = delete;

  const OpenClDeviceInfo& info() const { return info_; }

  // Runs the call, moving data as needed. Returns an error message (build log,
  // OpenCL error code) when it cannot; the host copies are then untouched. With
  // `next` (the task this device runs after it, its inputs already current on the
  // host), that task's stale inputs are uploaded while this call's kernel runs.
  Status run(const KernelCall& call, DataRegistry& data, const KernelCall* next = nullptr) override;
  KernelDeviceTransfers transfers() override;

  // The overlap achieved so far (waits for outstanding uploads to time them).
  const OpenClTransferStats& transfer_stats();

  // Replaces the program source before first use (fault injection in tests; users
  // bringing their own kernels). A source that fails to build makes run() fail.
  void set_program_source(std::string source);

  std::uint64_t bytes_to_device() const { return bytes_to_device_; }
  std::uint64_t bytes_to_host() const { return bytes_to_host_; }

 private:
  struct Impl;
  explicit OpenClDevice(std::unique_ptr<Impl> impl, OpenClDeviceInfo info);
  // A call's device buffers, by argument (OpenCL's cl_mem).
  using KernelBuffers = std::array<_cl_mem*, 3>;
  // The steps of run(): the program (built once; a failed build fails every run), the
  // inputs on the device, the kernels enqueued, the outputs back.
  Status build_program();
  Status stage_inputs(const KernelCall& call, DataRegistry& data, KernelBuffers& buffers);
  Status enqueue_kernels(const KernelCall& call, const KernelBuffers& buffers);
  Status complete(const KernelCall& call, DataRegistry& data, const KernelBuffers& buffers,
                  const KernelCall* next);
  Status upload(std::uint32_t handle, DataRegistry& data);
  void prefetch(const KernelCall& next, DataRegistry& data, bool kernel_in_flight);
  void measure_overlaps(bool wait);
  std::unique_ptr<Impl> impl_;
  OpenClDeviceInfo info_;
  std::uint64_t bytes_to_device_ = 0;
  std::uint64_t bytes_to_host_ = 0;
  OpenClTransferStats transfers_;
};

}  // namespace hetsched
