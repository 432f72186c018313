#include "hetsched/runtime/local_machine.hpp"

#include <fmt/format.h>
#include <hwloc.h>

#include <algorithm>
#include <fstream>

namespace hetsched {

namespace {

std::string processor_model_name() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) {
        auto name = line.substr(colon + 1);
        name.erase(0, name.find_first_not_of(' '));
        return name;
      }
    }
  return "unknown CPU";
}

std::uint64_t first_cache_size(hwloc_topology_t topology, hwloc_obj_type_t type) {
  hwloc_obj_t obj = hwloc_get_next_obj_by_type(topology, type, nullptr);
  return obj && obj->attr ? obj->attr->cache.size : 0;
}

}  // namespace

CpuTopology discover_cpu_topology() {
  CpuTopology cpu;
  cpu.model = processor_model_name();
  hwloc_topology_t topology;
  if (hwloc_topology_init(&topology) != 0) return cpu;
  if (hwloc_topology_load(topology) != 0) {
    hwloc_topology_destroy(topology);
    return cpu;
  }
  auto count = [&](hwloc_obj_type_t type) {
    const int n = hwloc_get_nbobjs_by_type(topology, type);
    return n > 0 ? unsigned(n) : 0u;
  };
  cpu.packages = count(HWLOC_OBJ_PACKAGE);
  cpu.numa_nodes = count(HWLOC_OBJ_NUMANODE);
  cpu.cores = count(HWLOC_OBJ_CORE);
  cpu.hardware_threads = count(HWLOC_OBJ_PU);
  cpu.l1d_bytes = first_cache_size(topology, HWLOC_OBJ_L1CACHE);
  cpu.l2_bytes = first_cache_size(topology, HWLOC_OBJ_L2CACHE);
  cpu.l3_bytes = first_cache_size(topology, HWLOC_OBJ_L3CACHE);
  hwloc_obj_t root = hwloc_get_root_obj(topology);
  cpu.memory_bytes = root ? root->total_memory : 0;
  for (unsigned c = 0; c < cpu.cores; ++c) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topology, HWLOC_OBJ_CORE, c);
    hwloc_obj_t pu =
        core ? hwloc_get_obj_inside_cpuset_by_type(topology, core->cpuset, HWLOC_OBJ_PU, 0)
             : nullptr;
    cpu.core_first_pu.push_back(pu ? pu->os_index : c);
  }
  if (cpu.cores == 0) {  // hwloc saw no cores (some containers): one per hardware thread
    cpu.cores = std::max(1u, cpu.hardware_threads);
    for (unsigned c = 0; c < cpu.cores; ++c) cpu.core_first_pu.push_back(c);
  }
  hwloc_topology_destroy(topology);
  return cpu;
}

LocalDevices::LocalDevices(const LocalDevicesOptions& options) : cpu_(discover_cpu_topology()) {
  const unsigned cpu_workers = options.cpu_workers ? options.cpu_workers : cpu_.cores;
  Node node;
  node.name = "local";
  node.host_memory_bytes = double(cpu_.memory_bytes);
  node.link.kind = "host-memory";
  node.link.bandwidth = 10e9;  // a memcpy-class figure; the learned model measures real ones
  node.link.latency_seconds = 5e-6;
  std::vector<DeviceSpec> specs;
  for (unsigned w = 0; w < cpu_workers; ++w) {
    DeviceSpec spec;
    spec.model = "cpu-core:" + cpu_.model;
    spec.kind = DeviceKind::cpu;
    // Nominal figures for one core (3 GHz, two 256-bit FMA pipes); calibration replaces them.
    spec.vector_flops = {48e9, 96e9, 96e9, 192e9};
    spec.matrix_flops = spec.vector_flops;
    spec.compute_units = 1;
    spec.memory_bytes = double(cpu_.memory_bytes);
    spec.memory_bandwidth = 20e9;
    spec.idle_watts = 2;
    spec.peak_watts = 10;
    specs.push_back(spec);
    kinds_.push_back(WorkerKind::cpu);
    pinned_pu_.push_back(options.pin_cpu_workers && !cpu_.core_first_pu.empty()
                             ? int(cpu_.core_first_pu[w % cpu_.core_first_pu.size()])
                             : -1);
    device_slot_.push_back(cpu_kernels_.get());
  }
  if (options.use_opencl) {
    opencl_ = OpenClDevice::open_all(notice_);
  } else {
    notice_ = "OpenCL not requested: running with CPU workers only";
  }
  for (const auto& device : opencl_) {
    const OpenClDeviceInfo& info = device->info();
    DeviceSpec spec;
    spec.model = "opencl:" + info.name;
    spec.kind = info.type == "gpu" ? DeviceKind::gpu : DeviceKind::cpu;
    const double clock = (info.max_clock_mhz ? info.max_clock_mhz : 2000) * 1e6;
    const double per_unit = info.type == "gpu" ? 128 : 16;  // fp64 flop per cycle, nominal
    spec.vector_flops = {clock * per_unit * info.compute_units,
                         2 * clock * per_unit * info.compute_units,
                         2 * clock * per_unit * info.compute_units, 0};
    spec.matrix_flops = spec.vector_flops;
    spec.compute_units = int(info.compute_units);
    spec.memory_bytes = double(info.global_memory_bytes);
    spec.memory_bandwidth = info.type == "gpu" ? 300e9 : 20e9;
    spec.idle_watts = 5;
    spec.peak_watts = 50;
    spec.launch_overhead_seconds = 20e-6;
    specs.push_back(spec);
    kinds_.push_back(WorkerKind::opencl);
    pinned_pu_.push_back(-1);
    device_slot_.push_back(device.get());
  }
  opencl_notice_ = notice_;
  if (options.use_cuda) {
    cuda_ = CudaDevice::open_all(cuda_notice_);
  } else {
    cuda_notice_ = "CUDA not requested";
  }
  for (const auto& device : cuda_) {
    const CudaDeviceInfo& info = device->info();
    DeviceSpec spec;
    spec.model = "cuda:" + info.name;
    spec.kind = DeviceKind::gpu;
    // Nominal: 64 fp64 flop per cycle per multiprocessor (fused multiply-adds of the data-centre
    // parts), half that without FMA; calibration replaces it with measured times.
    const double clock = (info.clock_mhz ? info.clock_mhz : 1500) * 1e6;
    const double fp64 = clock * 64.0 * info.multiprocessors;
    spec.vector_flops = {fp64 / 2, fp64, fp64, 0};
    spec.matrix_flops = spec.vector_flops;
    spec.compute_units = int(info.multiprocessors);
    spec.memory_bytes = double(info.global_memory_bytes);
    spec.memory_bandwidth = info.memory_bandwidth > 0 ? info.memory_bandwidth : 500e9;
    spec.idle_watts = 30;
    spec.peak_watts = 300;
    spec.launch_overhead_seconds = 10e-6;
    specs.push_back(spec);
    kinds_.push_back(WorkerKind::cuda);
    pinned_pu_.push_back(-1);
    device_slot_.push_back(device.get());
  }
  if (!cuda_notice_.empty() && options.use_cuda && cuda_workers_built())
    notice_ += (notice_.empty() ? "" : "; ") + cuda_notice_;
  cluster_.add_node(std::move(node), specs);
}

std::string_view to_string(WorkerKind kind) {
  switch (kind) {
    case WorkerKind::cpu:
      return "cpu";
    case WorkerKind::opencl:
      return "opencl";
    case WorkerKind::cuda:
      return "cuda";
  }
  return "cpu";
}

Status LocalDevices::run_on(DeviceId d, const KernelCall& call, DataRegistry& data) const {
  return device_slot_[d]->run(call, data, nullptr);
}

std::string LocalDevices::fingerprint() const {
  std::vector<std::string> models;
  for (const Device& d : cluster_.devices()) models.push_back(d.spec.model);
  std::sort(models.begin(), models.end());
  models.erase(std::unique(models.begin(), models.end()), models.end());
  std::string text;
  for (const auto& m : models) text += m + ";";
  return text;
}

}  // namespace hetsched
