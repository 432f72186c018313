// LocalMachine: what this computer offers the runtime, found with hwloc (packages,
// NUMA nodes, cores, hardware threads, caches), OpenCL (every platform's
// devices) and, when built with them, CUDA (every GPU the driver sees). LocalDevices
// turns it into workers: one per CPU core used (pinned to that core), one per OpenCL
// device and one per CUDA device, and into the Cluster (one node) that the policies
// and performance models see.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/runtime/cuda_device.hpp"
#include "hetsched/runtime/opencl_device.hpp"

namespace hetsched {

struct CpuTopology {
  std::string model;  // the processor's name as the OS reports it
  unsigned packages = 0;
  unsigned numa_nodes = 0;
  unsigned cores = 0;
  unsigned hardware_threads = 0;
  std::uint64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  // per cache instance
  std::uint64_t memory_bytes = 0;
  std::vector<unsigned> core_first_pu;  // OS index of each core's first hardware thread
};

// The CPU topology through hwloc.
CpuTopology discover_cpu_topology();

struct LocalDevicesOptions {
  unsigned cpu_workers = 0;  // 0: one per core
  bool use_opencl = true;    // false, or HETSCHED_DISABLE_OPENCL set: CPU workers only
  bool pin_cpu_workers = true;
  bool use_cuda = true;  // false, HETSCHED_DISABLE_CUDA set, or not built: no CUDA workers
};

enum class WorkerKind : std::uint8_t { cpu, opencl, cuda };
std::string_view to_string(WorkerKind kind);

class LocalDevices {
 public:
  explicit LocalDevices(const LocalDevicesOptions& options = {});

  const CpuTopology& cpu() const { return cpu_; }
  const Cluster& cluster() const { return cluster_; }
  // One line when OpenCL or CUDA is unavailable or disabled (said once, here: the
  // OpenCL reason, then the CUDA one, joined by "; "); empty otherwise.
  const std::string& notice() const { return notice_; }
  // The OpenCL and the CUDA part of notice() alone.
  const std::string& opencl_notice() const { return opencl_notice_; }
  const std::string& cuda_notice() const { return cuda_notice_; }

  std::size_t worker_count() const { return kinds_.size(); }
  WorkerKind kind(DeviceId d) const { return kinds_[d]; }
  // For CPU workers: the OS index of the hardware thread to pin to; -1: do not pin.
  int pinned_pu(DeviceId d) const { return pinned_pu_[d]; }
  // What worker d runs its kernels on, whatever its kind.
  KernelDevice& kernel_device(DeviceId d) const { return *device_slot_[d]; }
  const std::vector<std::unique_ptr<OpenClDevice>>& opencl_devices() const { return opencl_; }
  const std::vector<std::unique_ptr<CudaDevice>>& cuda_devices() const { return cuda_; }

  // Runs one call on worker d's device from the calling thread (CPU kernels with the
  // caller's BLAS settings): what calibration measures.
  Status run_on(DeviceId d, const KernelCall& call, DataRegistry& data) const;

  // The distinct device models, sorted and joined: tells a calibration file made elsewhere.
  std::string fingerprint() const;

 private:
  CpuTopology cpu_;
  Cluster cluster_;
  std::string notice_;
  std::string opencl_notice_;
  std::string cuda_notice_;
  std::vector<WorkerKind> kinds_;
  std::vector<int> pinned_pu_;
  std::unique_ptr<CpuKernelDevice> cpu_kernels_ = std::make_unique<CpuKernelDevice>();
  std::vector<std::unique_ptr<OpenClDevice>> opencl_;
  std::vector<std::unique_ptr<CudaDevice>> cuda_;
  std::vector<KernelDevice*> device_slot_;  // per worker: one of the above
};

}  // namespace hetsched
