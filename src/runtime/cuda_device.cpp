// CUDA workers through the driver API and NVRTC, both loaded with dlopen (see
// cuda_device.hpp for the design: one kernel text shared with OpenCL, two streams,
// uploads of the next task's inputs overlapped with the current kernels).
#include "hetsched/runtime/cuda_device.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

#include "cuda_driver_api.hpp"

namespace hetsched {

bool cuda_workers_built() {
#ifdef HETSCHED_CUDA_WORKERS
  return true;
#else
  return false;
#endif
}

bool cuda_disabled_by_environment() {
  const char* value = std::getenv("HETSCHED_DISABLE_CUDA");
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

namespace {

// OpenCL C → CUDA C++: the qualifiers and work-item functions the library uses.
constexpr std::string_view kPrelude = R"CUDA(
#define HETSCHED_CUDA 1
typedef unsigned int uint;
#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define CLK_LOCAL_MEM_FENCE 0
#define CLK_GLOBAL_MEM_FENCE 0
#define barrier(fence) __syncthreads()
#define LOCAL_SCRATCH_PARAMETER
#define LOCAL_SCRATCH_DECLARATION extern __shared__ double scratch[];
#define HETSCHED_DIM(v, d) ((int)((d) == 0 ? (v).x : (d) == 1 ? (v).y : (v).z))
#define get_local_id(d) HETSCHED_DIM(threadIdx, d)
#define get_group_id(d) HETSCHED_DIM(blockIdx, d)
#define get_local_size(d) HETSCHED_DIM(blockDim, d)
#define get_num_groups(d) HETSCHED_DIM(gridDim, d)
#define get_global_id(d) (get_group_id(d) * get_local_size(d) + get_local_id(d))
#define get_global_size(d) (get_num_groups(d) * get_local_size(d))
)CUDA";

enum KernelSlot : std::size_t {
  gemm_slot,
  trsm_slot,
  potrf_slot,
  stencil_slot,
  reduce_partial_slot,
  reduce_final_slot,
  bitonic_slot,
  bfs_init_slot,
  bfs_level_slot,
  slot_count
};

struct DeviceBuffer {
  cuda::DevicePointer memory = 0;
  std::uint64_t version = 0;     // 0: nothing valid; else the version uploaded or uploading
  cuda::Event upload = nullptr;  // recorded on the copy stream after the upload
};

std::uint32_t blocks_for(std::uint32_t n, std::uint32_t block) {
  return std::max<std::uint32_t>(1, (n + block - 1) / block);
}

}  // namespace

const std::vector<std::string>& cuda_kernel_names() {
  static const std::vector<std::string> names{"gemm_tiled",     "trsm_right_lower_transposed",
                                              "potrf_lower",    "stencil_5point",
                                              "reduce_partial", "reduce_final",
                                              "bitonic_step",   "bfs_init",
                                              "bfs_level"};
  return names;
}

std::string cuda_program_source() {
  return std::string(kPrelude) + std::string(opencl_program_source());
}

CudaCompileResult compile_cuda_program(const std::string& source, const std::string& architecture) {
  CudaCompileResult result;
  std::string why;
  const cuda::NvrtcApi* nvrtc = cuda::nvrtc_api(why);
  if (!nvrtc) {
    result.error = why;
    return result;
  }
  cuda::NvrtcProgram program = nullptr;
  int status =
      nvrtc->create_program(&program, source.c_str(), "hetsched_kernels.cu", 0, nullptr, nullptr);
  if (status != 0) {
    result.error = fmt::format("nvrtcCreateProgram failed: {}", nvrtc->get_error_string(status));
    return result;
  }
  const std::string arch_option = "--gpu-architecture=" + architecture;
  const std::array<const char*, 2> options{arch_option.c_str(), "--std=c++17"};
  status = nvrtc->compile_program(program, int(options.size()), options.data());
  if (status != 0) {
    std::size_t log_size = 0;
    nvrtc->get_log_size(program, &log_size);
    std::string log(log_size, '\0');
    if (log_size) nvrtc->get_log(program, log.data());
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    result.error = fmt::format("NVRTC could not compile the kernels for {}: {}", architecture,
                               log.substr(0, std::min(log.find('\n'), std::size_t{300})));
  } else {
    std::size_t ptx_size = 0;
    nvrtc->get_ptx_size(program, &ptx_size);
    result.ptx.assign(ptx_size, '\0');
    nvrtc->get_ptx(program, result.ptx.data());
    while (!result.ptx.empty() && result.ptx.back() == '\0') result.ptx.pop_back();
  }
  nvrtc->destroy_program(&program);
  return result;
}

struct CudaDevice::Impl {
  const cuda::DriverApi* api = nullptr;
  cuda::Device device = 0;
  cuda::Context context = nullptr;
  cuda::Stream compute = nullptr;  // kernels and read-backs, in order
  cuda::Stream copies = nullptr;   // uploads, overlapping the kernels
  cuda::Module module = nullptr;
  std::array<cuda::Function, slot_count> functions{};
  std::string source = cuda_program_source();
  std::optional<std::string> build_error;
  std::uint64_t registry_serial = 0;
  std::vector<DeviceBuffer> buffers;
  cuda::DevicePointer scratch = 0;  // reduction partials, potrf status, bfs flag
  int host_zero = 0;
  int host_flag = 0;

  void release_buffers() {
    if (copies) api->stream_synchronize(copies);
    if (compute) api->stream_synchronize(compute);
    for (DeviceBuffer& b : buffers) {
      if (b.upload) api->event_destroy(b.upload);
      if (b.memory) api->memory_free(b.memory);
    }
    buffers.clear();
  }
  ~Impl() {
    if (!api) return;
    api->context_set_current(context);
    release_buffers();
    if (scratch) api->memory_free(scratch);
    if (module) api->module_unload(module);
    if (copies) api->stream_destroy(copies);
    if (compute) api->stream_destroy(compute);
    if (context) api->primary_context_release(device);
  }
};

CudaDevice::CudaDevice(std::unique_ptr<Impl> impl, CudaDeviceInfo info)
    : impl_(std::move(impl)), info_(std::move(info)) {}

CudaDevice::~CudaDevice() = default;

KernelDeviceTransfers CudaDevice::transfers() {
  return {bytes_to_device_, bytes_to_host_, transfers_.prefetched, 0, 0, 0.0};
}

void CudaDevice::set_program_source(std::string source) { impl_->source = std::move(source); }

std::vector<std::unique_ptr<CudaDevice>> CudaDevice::open_all(std::string& notice) {
  notice.clear();
  std::vector<std::unique_ptr<CudaDevice>> devices;
  if (!cuda_workers_built()) {
    notice = "CUDA workers not built (configure with -DHETSCHED_CUDA=ON or a CUDA toolkit)";
    return devices;
  }
  if (cuda_disabled_by_environment()) {
    notice = "CUDA disabled by HETSCHED_DISABLE_CUDA";
    return devices;
  }
  std::string why;
  const cuda::DriverApi* api = cuda::driver_api(why);
  if (!api) {
    notice = why + ": no CUDA workers";
    return devices;
  }
  int count = 0;
  if (const cuda::Result r = api->device_get_count(&count); r != cuda::kSuccess || count == 0) {
    notice = r != cuda::kSuccess ? api->error("cuDeviceGetCount", r) + ": no CUDA workers"
                                 : "the CUDA driver sees no device: no CUDA workers";
    return devices;
  }
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    auto impl = std::make_unique<Impl>();
    impl->api = api;
    if (api->device_get(&impl->device, ordinal) != cuda::kSuccess) continue;
    CudaDeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    api->device_get_name(name, int(sizeof name) - 1, impl->device);
    info.name = name;
    auto attribute = [&](int which) {
      int value = 0;
      api->device_get_attribute(&value, which, impl->device);
      return value;
    };
    info.compute_capability_major = attribute(cuda::kAttributeComputeCapabilityMajor);
    info.compute_capability_minor = attribute(cuda::kAttributeComputeCapabilityMinor);
    info.multiprocessors = unsigned(attribute(cuda::kAttributeMultiprocessorCount));
    info.clock_mhz = unsigned(attribute(cuda::kAttributeClockRateKhz) / 1000);
    info.max_threads_per_block = unsigned(attribute(cuda::kAttributeMaxThreadsPerBlock));
    info.copy_engines = unsigned(attribute(cuda::kAttributeAsyncEngineCount));
    // Double data rate: two transfers per memory clock, bus width in bits.
    info.memory_bandwidth = 2.0 * attribute(cuda::kAttributeMemoryClockRateKhz) * 1e3 *
                            attribute(cuda::kAttributeGlobalMemoryBusWidthBits) / 8.0;
    std::size_t memory = 0;
    api->device_total_memory(&memory, impl->device);
    info.global_memory_bytes = memory;
    if (api->primary_context_retain(&impl->context, impl->device) != cuda::kSuccess) {
      impl->context = nullptr;
      continue;
    }
    api->context_set_current(impl->context);
    if (api->stream_create(&impl->compute, cuda::kStreamNonBlocking) != cuda::kSuccess ||
        api->stream_create(&impl->copies, cuda::kStreamNonBlocking) != cuda::kSuccess)
      continue;  // Impl's destructor releases what was made
    devices.push_back(
        std::unique_ptr<CudaDevice>(new CudaDevice(std::move(impl), std::move(info))));
  }
  if (devices.empty()) notice = "no usable CUDA device (context or stream creation failed)";
  return devices;
}

Status CudaDevice::build() {
  Impl& m = *impl_;
  const std::string arch =
      fmt::format("compute_{}{}", info_.compute_capability_major, info_.compute_capability_minor);
  CudaCompileResult compiled = compile_cuda_program(m.source, arch);
  if (compiled.error)
    return failure(*(m.build_error = *compiled.error + fmt::format(" ('{}')", info_.name)));
  if (const cuda::Result r = m.api->module_load_data(&m.module, compiled.ptx.c_str());
      r != cuda::kSuccess) {
    m.module = nullptr;
    return failure(*(m.build_error = m.api->error("cuModuleLoadData", r)));
  }
  for (std::size_t i = 0; i < slot_count; ++i)
    if (const cuda::Result r =
            m.api->module_get_function(&m.functions[i], m.module, cuda_kernel_names()[i].c_str());
        r != cuda::kSuccess)
      return failure(*(m.build_error = fmt::format("CUDA kernel '{}' missing on '{}' ({})",
                                                   cuda_kernel_names()[i], info_.name, r)));
  if (const cuda::Result r = m.api->memory_allocate(&m.scratch, 4096 * sizeof(double));
      r != cuda::kSuccess) {
    m.scratch = 0;
    return failure(*(m.build_error = m.api->error("cuMemAlloc", r)));
  }
  return {};
}

Status CudaDevice::upload(std::uint32_t handle, DataRegistry& data) {
  Impl& m = *impl_;
  DeviceBuffer& buffer = m.buffers[handle];
  const std::size_t bytes = data.bytes(handle);
  if (!buffer.memory) {
    if (const cuda::Result r =
            m.api->memory_allocate(&buffer.memory, std::max<std::size_t>(bytes, 8));
        r != cuda::kSuccess) {
      buffer.memory = 0;
      return failure(m.api->error("cuMemAlloc", r));
    }
  }
  if (const cuda::Result r =
          m.api->copy_host_to_device_async(buffer.memory, data.data(handle), bytes, m.copies);
      r != cuda::kSuccess)
    return failure(m.api->error("cuMemcpyHtoDAsync", r));
  if (!buffer.upload &&
      m.api->event_create(&buffer.upload, cuda::kEventDisableTiming) != cuda::kSuccess) {
    buffer.upload = nullptr;
    return failure("cuEventCreate failed");
  }
  m.api->event_record(buffer.upload, m.copies);
  buffer.version = data.version(handle);
  bytes_to_device_ += bytes;
  ++transfers_.uploads;
  return {};
}

Status CudaDevice::run(const KernelCall& call, DataRegistry& data, const KernelCall* next) {
  Impl& m = *impl_;
  if (call.kernel == KernelId::empty) return {};
  m.api->context_set_current(m.context);
  if (m.build_error) return failure(*m.build_error);
  if (!m.module)
    if (Status built = build(); !built) return built;
  if (m.registry_serial != data.serial()) {
    m.release_buffers();
    m.registry_serial = data.serial();
  }
  if (m.buffers.size() < data.count()) m.buffers.resize(data.count());

  // Inputs: upload the stale ones (unless a prefetch did, under the previous kernel);
  // the compute stream waits for exactly those uploads.
  std::array<cuda::DevicePointer, 3> pointers{};
  for (std::size_t i = 0; i < call.handle_count; ++i) {
    const HandleId h = call.handles[i];
    DeviceBuffer& buffer = m.buffers[h];
    if (call.access[i] != Access::write && buffer.version != data.version(h))
      if (Status uploaded = upload(h, data); !uploaded) return uploaded;
    if (!buffer.memory) {
      if (const cuda::Result r =
              m.api->memory_allocate(&buffer.memory, std::max<std::size_t>(data.bytes(h), 8));
          r != cuda::kSuccess) {
        buffer.memory = 0;
        return failure(m.api->error("cuMemAlloc", r));
      }
    }
    if (buffer.upload) m.api->stream_wait_event(m.compute, buffer.upload, 0);
    pointers[i] = buffer.memory;
  }

  cuda::Result status = cuda::kSuccess;
  auto launch = [&](KernelSlot slot, std::uint32_t grid_x, std::uint32_t grid_y,
                    std::uint32_t block_x, std::uint32_t block_y, std::uint32_t shared_bytes,
                    std::initializer_list<void*> arguments) {
    if (status != cuda::kSuccess) return;
    std::array<void*, 8> parameters{};
    std::copy(arguments.begin(), arguments.end(), parameters.begin());
    status = m.api->launch_kernel(m.functions[slot], grid_x, grid_y, 1, block_x, block_y, 1,
                                  shared_bytes, m.compute, parameters.data(), nullptr);
  };
  auto to_device = [&](cuda::DevicePointer target, const int* value) {
    if (status == cuda::kSuccess)
      status = m.api->copy_host_to_device_async(target, value, sizeof(int), m.compute);
  };
  auto read_flag = [&]() {
    m.host_flag = 0;
    if (status == cuda::kSuccess)
      status = m.api->copy_device_to_host_async(&m.host_flag, m.scratch, sizeof(int), m.compute);
    if (status == cuda::kSuccess) status = m.api->stream_synchronize(m.compute);
    return m.host_flag;
  };
  int n = static_cast<int>(call.n);
  const std::uint32_t max_block = std::max(1u, info_.max_threads_per_block);
  switch (call.kernel) {
    case KernelId::gemm:
    case KernelId::gemm_nt:
    case KernelId::syrk: {
      const bool syrk = call.kernel == KernelId::syrk;
      double alpha = call.kernel == KernelId::gemm ? 1.0 : -1.0;
      int trans_b = call.kernel == KernelId::gemm ? 0 : 1;
      int lower_only = syrk ? 1 : 0;
      cuda::DevicePointer& b = syrk ? pointers[0] : pointers[1];
      cuda::DevicePointer& c = syrk ? pointers[1] : pointers[2];
      const std::uint32_t tiles = blocks_for(call.n, 16);
      launch(gemm_slot, tiles, tiles, 16, 16, 0,
             {&n, &alpha, &trans_b, &lower_only, &pointers[0], &b, &c});
      break;
    }
    case KernelId::trsm:
      launch(trsm_slot, blocks_for(call.n, 128), 1, 128, 1, 0, {&n, &pointers[0], &pointers[1]});
      break;
    case KernelId::potrf: {
      to_device(m.scratch, &m.host_zero);
      const std::uint32_t group = std::min(max_block, std::max<std::uint32_t>(call.n, 1));
      launch(potrf_slot, 1, 1, group, 1, 0, {&n, &pointers[0], &m.scratch});
      if (const int failed_at = read_flag(); status == cuda::kSuccess && failed_at != 0) {
        m.buffers[call.handles[0]].version = 0;  // the device copy is now garbage
        return failure(fmt::format("potrf: matrix not positive definite at column {}", failed_at));
      }
      break;
    }
    case KernelId::stencil: {
      const std::uint32_t tiles = blocks_for(call.n, 16);
      launch(stencil_slot, tiles, tiles, 16, 16, 0, {&n, &pointers[0], &pointers[1]});
      break;
    }
    case KernelId::reduction: {
      constexpr std::uint32_t group = 64;  // a power of two: the tree halves it
      int groups = int(std::min<std::uint32_t>(256, blocks_for(call.n, group)));
      launch(reduce_partial_slot, std::uint32_t(groups), 1, group, 1, group * sizeof(double),
             {&n, &pointers[0], &m.scratch});
      launch(reduce_final_slot, 1, 1, 1, 1, 0, {&groups, &m.scratch, &pointers[1]});
      break;
    }
    case KernelId::sort: {
      if (call.n & (call.n - 1))
        return failure("sort: CUDA bitonic sort needs a power-of-two size");
      const std::uint32_t block = std::min<std::uint32_t>(std::max(call.n, 1u), 256);
      for (unsigned size = 2; size <= call.n; size <<= 1)
        for (unsigned stride = size >> 1; stride > 0; stride >>= 1)
          launch(bitonic_slot, call.n / block, 1, block, 1, 0, {&pointers[0], &stride, &size});
      break;
    }
    case KernelId::bfs: {
      launch(bfs_init_slot, blocks_for(call.n, 256), 1, 256, 1, 0, {&n, &pointers[1]});
      for (int depth = 0; status == cuda::kSuccess && depth < n; ++depth) {
        to_device(m.scratch, &m.host_zero);
        launch(bfs_level_slot, blocks_for(call.n, 256), 1, 256, 1, 0,
               {&n, &depth, &pointers[0], &pointers[1], &m.scratch});
        if (!read_flag()) break;
      }
      break;
    }
    case KernelId::empty:
      break;
  }
  if (status != cuda::kSuccess) {
    for (std::size_t i = 0; i < call.handle_count; ++i)
      if (call.access[i] != Access::read) m.buffers[call.handles[i]].version = 0;
    return failure(m.api->error(
        fmt::format("kernel {} on '{}'", to_string(call.kernel), info_.name).c_str(), status));
  }
  // Outputs back to the host after the kernels (same stream), then the next task's
  // inputs go up on the copy stream while all of that runs.
  for (std::size_t i = 0; i < call.handle_count; ++i) {
    if (call.access[i] == Access::read) continue;
    const HandleId h = call.handles[i];
    if (const cuda::Result r =
            m.api->copy_device_to_host_async(data.data(h), pointers[i], data.bytes(h), m.compute);
        r != cuda::kSuccess)
      return failure(m.api->error("cuMemcpyDtoHAsync", r));
    bytes_to_host_ += data.bytes(h);
  }
  if (next && next->kernel != KernelId::empty) {
    for (std::size_t i = 0; i < next->handle_count; ++i) {
      const HandleId h = next->handles[i];
      if (next->access[i] == Access::write || h >= m.buffers.size() ||
          m.buffers[h].version == data.version(h))
        continue;
      // A handle this task writes is not current on the host yet; the next task cannot
      // read it (it would depend on this one), so it is never prefetched here.
      if (!upload(h, data)) continue;  // failed: the next run() tries again and reports it
      ++transfers_.prefetched;  // enqueued behind this task's kernels, before waiting for them
    }
  }
  if (const cuda::Result r = m.api->stream_synchronize(m.compute); r != cuda::kSuccess)
    return failure(m.api->error("cuStreamSynchronize", r));
  for (std::size_t i = 0; i < call.handle_count; ++i) {
    if (call.access[i] == Access::read) continue;
    const HandleId h = call.handles[i];
    data.bump_version(h);
    m.buffers[h].version = data.version(h);
  }
  return {};
}

}  // namespace hetsched
