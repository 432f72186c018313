#define CL_TARGET_OPENCL_VERSION 120
#include "hetsched/runtime/opencl_device.hpp"

#include <CL/cl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

namespace hetsched {

bool opencl_disabled_by_environment() {
  const char* value = std::getenv("HETSCHED_DISABLE_OPENCL");
  return value != nullptr && *value != '\0' && std::string_view(value) != "0";
}

namespace {

std::string device_string(cl_device_id device, cl_device_info what) {
  std::size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  clGetDeviceInfo(device, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  std::size_t size = 0;
  if (clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return {};
  std::string text(size, '\0');
  clGetPlatformInfo(platform, what, size, text.data(), nullptr);
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return text;
}

template <class T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  clGetDeviceInfo(device, what, sizeof(T), &value, nullptr);
  return value;
}

constexpr std::size_t kTile = 16;

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

struct OpenClDevice::Impl {
  struct BufferCopy {
    cl_mem memory = nullptr;
    std::size_t bytes = 0;
    std::uint64_t version =
        0;  // 0: holds nothing valid; else the version uploaded or being uploaded
    cl_event upload = nullptr;  // the upload of `version` on the transfer queue, until known done
  };
  // A prefetch upload issued while a kernel ran, and that kernel's interval (device clock).
  struct OverlapProbe {
    cl_event upload = nullptr;
    cl_ulong kernel_start = 0;
    cl_ulong kernel_end = 0;
  };

  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;           // kernels and read-backs, in order
  cl_command_queue transfer_queue = nullptr;  // uploads, overlapping the kernels
  bool profiling = false;                     // both queues time their commands
  cl_program program = nullptr;
  std::string source{opencl_program_source()};
  std::optional<std::string> build_error;  // set once a build failed
  std::array<cl_kernel, 9> kernels{};
  std::uint64_t registry_serial = 0;
  std::vector<BufferCopy> copies;
  cl_mem scratch = nullptr;  // reduction partials, potrf status, bfs flag
  std::size_t scratch_bytes = 0;
  std::vector<OverlapProbe> probes;  // prefetches whose overlap is not measured yet
  cl_event first_kernel = nullptr, last_kernel = nullptr;  // of the task being run

  ~Impl() {
    if (transfer_queue) clFinish(transfer_queue);
    release_copies();
    for (OverlapProbe& p : probes) clReleaseEvent(p.upload);
    release_kernel_events();
    if (scratch) clReleaseMemObject(scratch);
    for (cl_kernel k : kernels)
      if (k) clReleaseKernel(k);
    if (program) clReleaseProgram(program);
    if (transfer_queue) clReleaseCommandQueue(transfer_queue);
    if (queue) clReleaseCommandQueue(queue);
    if (context) clReleaseContext(context);
  }
  void release_copies() {
    if (transfer_queue) clFinish(transfer_queue);
    for (BufferCopy& c : copies) {
      if (c.upload) clReleaseEvent(c.upload);
      if (c.memory) clReleaseMemObject(c.memory);
    }
    copies.clear();
  }
  void release_kernel_events() {
    if (first_kernel) clReleaseEvent(first_kernel);
    if (last_kernel) clReleaseEvent(last_kernel);
    first_kernel = last_kernel = nullptr;
  }
};

namespace {
enum KernelSlot : std::size_t {
  gemm_tiled,
  trsm_slot,
  potrf_slot,
  stencil_slot,
  reduce_partial_slot,
  reduce_final_slot,
  bitonic_slot,
  bfs_init_slot,
  bfs_level_slot
};
constexpr std::array<const char*, 9> kKernelNames{"gemm_tiled",     "trsm_right_lower_transposed",
                                                  "potrf_lower",    "stencil_5point",
                                                  "reduce_partial", "reduce_final",
                                                  "bitonic_step",   "bfs_init",
                                                  "bfs_level"};

std::string cl_error(const char* what, cl_int code) {
  return fmt::format("OpenCL {} failed with error {}", what, code);
}
}  // namespace

OpenClDevice::OpenClDevice(std::unique_ptr<Impl> impl, OpenClDeviceInfo info)
    : impl_(std::move(impl)), info_(std::move(info)) {}

OpenClDevice::~OpenClDevice() = default;

void OpenClDevice::set_program_source(std::string source) { impl_->source = std::move(source); }

std::vector<std::unique_ptr<OpenClDevice>> OpenClDevice::open_all(std::string& notice) {
  notice.clear();
  std::vector<std::unique_ptr<OpenClDevice>> devices;
  if (opencl_disabled_by_environment()) {
    notice = "OpenCL disabled by HETSCHED_DISABLE_OPENCL: running with CPU workers only";
    return devices;
  }
  cl_uint platform_count = 0;
  if (clGetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS || platform_count == 0) {
    notice = "no OpenCL platform found: running with CPU workers only";
    return devices;
  }
  std::vector<cl_platform_id> platforms(platform_count);
  clGetPlatformIDs(platform_count, platforms.data(), nullptr);
  for (cl_platform_id platform : platforms) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS) continue;
    std::vector<cl_device_id> ids(count);
    clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids.data(), nullptr);
    for (cl_device_id id : ids) {
      OpenClDeviceInfo info;
      info.platform = platform_string(platform, CL_PLATFORM_NAME);
      info.name = device_string(id, CL_DEVICE_NAME);
      info.vendor = device_string(id, CL_DEVICE_VENDOR);
      info.version = device_string(id, CL_DEVICE_VERSION);
      const auto type = device_value<cl_device_type>(id, CL_DEVICE_TYPE);
      info.type = (type & CL_DEVICE_TYPE_GPU)           ? "gpu"
                  : (type & CL_DEVICE_TYPE_CPU)         ? "cpu"
                  : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                        : "other";
      info.compute_units = device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS);
      info.global_memory_bytes = device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE);
      info.max_clock_mhz = device_value<cl_uint>(id, CL_DEVICE_MAX_CLOCK_FREQUENCY);
      info.max_work_group_size = device_value<std::size_t>(id, CL_DEVICE_MAX_WORK_GROUP_SIZE);
      info.fp64 = device_string(id, CL_DEVICE_EXTENSIONS).find("cl_khr_fp64") != std::string::npos;
      if (!info.fp64) continue;  // every kernel of the library is double precision
      auto impl = std::make_unique<Impl>();
      impl->device = id;
      cl_int err = CL_SUCCESS;
      impl->context = clCreateContext(nullptr, 1, &id, nullptr, nullptr, &err);
      if (err != CL_SUCCESS) continue;
      impl->queue = clCreateCommandQueue(impl->context, id, CL_QUEUE_PROFILING_ENABLE, &err);
      impl->profiling = err == CL_SUCCESS;
      if (err != CL_SUCCESS) impl->queue = clCreateCommandQueue(impl->context, id, 0, &err);
      if (err != CL_SUCCESS) continue;
      // A second in-order queue for uploads, so the next task's inputs move while the
      // current kernel runs; without one, uploads share the kernel queue (no overlap).
      impl->transfer_queue = clCreateCommandQueue(
          impl->context, id, impl->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &err);
      if (err != CL_SUCCESS) impl->transfer_queue = nullptr;
      devices.push_back(
          std::unique_ptr<OpenClDevice>(new OpenClDevice(std::move(impl), std::move(info))));
    }
  }
  if (devices.empty())
    notice = "no usable OpenCL device (with fp64) found: running with CPU workers only";
  return devices;
}

Status OpenClDevice::upload(std::uint32_t handle, DataRegistry& data) {
  Impl& m = *impl_;
  Impl::BufferCopy& copy = m.copies[handle];
  cl_int err = CL_SUCCESS;
  if (!copy.memory) {
    copy.memory = clCreateBuffer(m.context, CL_MEM_READ_WRITE,
                                 std::max<std::size_t>(data.bytes(handle), 8), nullptr, &err);
    if (err != CL_SUCCESS) {
      copy.memory = nullptr;
      return failure(cl_error("clCreateBuffer", err));
    }
    copy.bytes = data.bytes(handle);
  }
  cl_event event = nullptr;
  err = clEnqueueWriteBuffer(m.transfer_queue ? m.transfer_queue : m.queue, copy.memory, CL_FALSE,
                             0, data.bytes(handle), data.data(handle), 0, nullptr, &event);
  if (err != CL_SUCCESS) return failure(cl_error("clEnqueueWriteBuffer", err));
  if (copy.upload) clReleaseEvent(copy.upload);
  copy.upload = event;
  copy.version = data.version(handle);
  bytes_to_device_ += data.bytes(handle);
  ++transfers_.uploads;
  return {};
}

void OpenClDevice::prefetch(const KernelCall& next, DataRegistry& data, bool kernel_in_flight) {
  Impl& m = *impl_;
  if (m.build_error || m.registry_serial != data.serial() || next.kernel == KernelId::empty) return;
  if (m.copies.size() < data.count()) m.copies.resize(data.count());
  for (std::size_t i = 0; i < next.handle_count; ++i) {
    const HandleId h = next.handles[i];
    if (next.access[i] == Access::write || m.copies[h].version == data.version(h)) continue;
    if (!upload(h, data)) continue;  // failed: run() tries again and reports it
    ++transfers_.prefetched;
    if (!kernel_in_flight) continue;
    ++transfers_.uploads_during_kernel;
    if (m.profiling && m.first_kernel && m.last_kernel) {
      Impl::OverlapProbe probe;
      probe.upload = m.copies[h].upload;
      clRetainEvent(probe.upload);
      m.probes.push_back(probe);  // the kernel's interval is filled in once it is known
    }
  }
}

void OpenClDevice::measure_overlaps(bool wait) {
  Impl& m = *impl_;
  std::size_t kept = 0;
  for (Impl::OverlapProbe& p : m.probes) {
    cl_int status = CL_QUEUED;
    clGetEventInfo(p.upload, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr);
    if (status > CL_COMPLETE && wait) {
      clWaitForEvents(1, &p.upload);
      status = CL_COMPLETE;
    }
    if (status > CL_COMPLETE || p.kernel_end == 0) {  // still running, or kernel not timed yet
      m.probes[kept++] = p;
      continue;
    }
    cl_ulong start = 0, end = 0;
    if (status == CL_COMPLETE &&
        clGetEventProfilingInfo(p.upload, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                nullptr) == CL_SUCCESS &&
        clGetEventProfilingInfo(p.upload, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr) ==
            CL_SUCCESS) {
      const cl_ulong from = std::max(start, p.kernel_start), to = std::min(end, p.kernel_end);
      if (to > from) {
        transfers_.overlap_seconds += double(to - from) * 1e-9;
        ++transfers_.uploads_overlapped;
      }
      transfers_.timed_upload_seconds += end > start ? double(end - start) * 1e-9 : 0.0;
      ++transfers_.timed_uploads;
    }
    clReleaseEvent(p.upload);
  }
  m.probes.resize(kept);
}

const OpenClTransferStats& OpenClDevice::transfer_stats() {
  measure_overlaps(true);
  return transfers_;
}

KernelDeviceTransfers OpenClDevice::transfers() {
  const OpenClTransferStats& stats = transfer_stats();
  return {bytes_to_device_,         bytes_to_host_,
          stats.prefetched,         stats.uploads_during_kernel,
          stats.uploads_overlapped, stats.overlap_seconds};
}

Status OpenClDevice::build_program() {
  Impl& m = *impl_;
  if (m.build_error) return failure(*m.build_error);
  if (m.program) return {};
  cl_int err = CL_SUCCESS;
  const char* text = m.source.c_str();
  const std::size_t length = m.source.size();
  m.program = clCreateProgramWithSource(m.context, 1, &text, &length, &err);
  if (err != CL_SUCCESS)
    return failure(*(m.build_error = cl_error("clCreateProgramWithSource", err)));
  err = clBuildProgram(m.program, 1, &m.device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::size_t size = 0;
    clGetProgramBuildInfo(m.program, m.device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
    std::string log(size, '\0');
    clGetProgramBuildInfo(m.program, m.device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    const auto first_line = log.substr(0, std::min(log.find('\n'), std::size_t{200}));
    return failure(*(m.build_error = fmt::format("OpenCL program failed to build on '{}': {}",
                                                 info_.name, first_line)));
  }
  for (std::size_t i = 0; i < kKernelNames.size(); ++i) {
    m.kernels[i] = clCreateKernel(m.program, kKernelNames[i], &err);
    if (err != CL_SUCCESS)
      return failure(*(m.build_error = fmt::format("OpenCL kernel '{}' missing on '{}' (error {})",
                                                   kKernelNames[i], info_.name, err)));
  }
  return {};
}

// Inputs: upload what this device does not hold in its current version (unless a
// prefetch already did, while the previous kernel ran), on the transfer queue; the
// kernels wait for those uploads through a barrier on the kernel queue.
Status OpenClDevice::stage_inputs(const KernelCall& call, DataRegistry& data,
                                  KernelBuffers& buffers) {
  Impl& m = *impl_;
  if (m.registry_serial != data.serial()) {
    m.release_copies();
    m.registry_serial = data.serial();
  }
  if (m.copies.size() < data.count()) m.copies.resize(data.count());
  cl_int err = CL_SUCCESS;
  std::array<cl_event, 3> waits{};
  cl_uint wait_count = 0;
  for (std::size_t i = 0; i < call.handle_count; ++i) {
    const HandleId h = call.handles[i];
    if (call.access[i] != Access::write && m.copies[h].version != data.version(h))
      if (Status uploaded = upload(h, data); !uploaded) return uploaded;
    Impl::BufferCopy& copy = m.copies[h];
    if (!copy.memory) {
      copy.memory = clCreateBuffer(m.context, CL_MEM_READ_WRITE,
                                   std::max<std::size_t>(data.bytes(h), 8), nullptr, &err);
      if (err != CL_SUCCESS) {
        copy.memory = nullptr;
        return failure(cl_error("clCreateBuffer", err));
      }
      copy.bytes = data.bytes(h);
    }
    if (copy.upload && m.transfer_queue &&
        std::find(waits.begin(), waits.begin() + wait_count, copy.upload) ==
            waits.begin() + wait_count)
      waits[wait_count++] = copy.upload;
    buffers[i] = copy.memory;
  }
  if (wait_count > 0) {
    clFlush(m.transfer_queue);
    err = clEnqueueBarrierWithWaitList(m.queue, wait_count, waits.data(), nullptr);
    if (err != CL_SUCCESS) return failure(cl_error("clEnqueueBarrierWithWaitList", err));
  }
  m.release_kernel_events();
  const std::size_t scratch_needed = 4096 * sizeof(double);
  if (!m.scratch) {
    m.scratch = clCreateBuffer(m.context, CL_MEM_READ_WRITE, scratch_needed, nullptr, &err);
    if (err != CL_SUCCESS) {
      m.scratch = nullptr;
      return failure(cl_error("clCreateBuffer", err));
    }
    m.scratch_bytes = scratch_needed;
  }
  return {};
}

// The call's kernels, in order on the kernel queue (some kernels are several launches).
Status OpenClDevice::enqueue_kernels(const KernelCall& call, const KernelBuffers& buffers) {
  Impl& m = *impl_;
  cl_int err = CL_SUCCESS;
  const cl_int n = static_cast<cl_int>(call.n);
  auto set = [&](cl_kernel k, cl_uint index, std::size_t size, const void* value) {
    if (err == CL_SUCCESS) err = clSetKernelArg(k, index, size, value);
  };
  auto launch = [&](cl_kernel k, cl_uint dims, const std::size_t* global,
                    const std::size_t* local) {
    if (err != CL_SUCCESS) return;
    cl_event event = nullptr;
    err = clEnqueueNDRangeKernel(m.queue, k, dims, nullptr, global, local, 0, nullptr,
                                 m.profiling ? &event : nullptr);
    if (!event) return;
    if (!m.first_kernel) {
      m.first_kernel = event;
      return;
    }
    if (m.last_kernel) clReleaseEvent(m.last_kernel);
    m.last_kernel = event;
  };
  const cl_int zero = 0;
  switch (call.kernel) {
    case KernelId::gemm:
    case KernelId::gemm_nt:
    case KernelId::syrk: {
      cl_kernel k = m.kernels[gemm_tiled];
      const bool syrk = call.kernel == KernelId::syrk;
      const cl_double alpha = call.kernel == KernelId::gemm ? 1.0 : -1.0;
      const cl_int trans_b = call.kernel == KernelId::gemm ? 0 : 1;
      const cl_int lower_only = syrk ? 1 : 0;
      set(k, 0, sizeof n, &n);
      set(k, 1, sizeof alpha, &alpha);
      set(k, 2, sizeof trans_b, &trans_b);
      set(k, 3, sizeof lower_only, &lower_only);
      set(k, 4, sizeof(cl_mem), &buffers[0]);
      set(k, 5, sizeof(cl_mem), syrk ? &buffers[0] : &buffers[1]);
      set(k, 6, sizeof(cl_mem), syrk ? &buffers[1] : &buffers[2]);
      const std::size_t global[2] = {round_up(call.n, kTile), round_up(call.n, kTile)};
      const std::size_t local[2] = {kTile, kTile};
      launch(k, 2, global, local);
      break;
    }
    case KernelId::trsm: {
      cl_kernel k = m.kernels[trsm_slot];
      set(k, 0, sizeof n, &n);
      set(k, 1, sizeof(cl_mem), &buffers[0]);
      set(k, 2, sizeof(cl_mem), &buffers[1]);
      const std::size_t global[1] = {call.n};
      launch(k, 1, global, nullptr);
      break;
    }
    case KernelId::potrf: {
      cl_kernel k = m.kernels[potrf_slot];
      err = clEnqueueWriteBuffer(m.queue, m.scratch, CL_FALSE, 0, sizeof zero, &zero, 0, nullptr,
                                 nullptr);
      set(k, 0, sizeof n, &n);
      set(k, 1, sizeof(cl_mem), &buffers[0]);
      set(k, 2, sizeof(cl_mem), &m.scratch);
      const std::size_t group = std::min<std::size_t>(
          std::max<std::size_t>(1, info_.max_work_group_size), std::max<std::uint32_t>(call.n, 1));
      const std::size_t global[1] = {group};
      launch(k, 1, global, global);
      cl_int status = 0;
      if (err == CL_SUCCESS)
        err = clEnqueueReadBuffer(m.queue, m.scratch, CL_TRUE, 0, sizeof status, &status, 0,
                                  nullptr, nullptr);
      if (err == CL_SUCCESS && status != 0) {
        m.copies[call.handles[0]].version = 0;  // the device copy is now garbage
        return failure(fmt::format("potrf: matrix not positive definite at column {}", status));
      }
      break;
    }
    case KernelId::stencil: {
      cl_kernel k = m.kernels[stencil_slot];
      set(k, 0, sizeof n, &n);
      set(k, 1, sizeof(cl_mem), &buffers[0]);
      set(k, 2, sizeof(cl_mem), &buffers[1]);
      const std::size_t global[2] = {round_up(call.n, kTile), round_up(call.n, kTile)};
      launch(k, 2, global, nullptr);
      break;
    }
    case KernelId::reduction: {
      const std::size_t group =
          std::min<std::size_t>(64, std::max<std::size_t>(1, info_.max_work_group_size));
      std::size_t group_size = 1;
      while (group_size * 2 <= group) group_size *= 2;
      const std::size_t groups = std::min<std::size_t>(
          256, std::max<std::size_t>(1, (call.n + group_size - 1) / group_size));
      cl_kernel partial = m.kernels[reduce_partial_slot];
      set(partial, 0, sizeof n, &n);
      set(partial, 1, sizeof(cl_mem), &buffers[0]);
      set(partial, 2, sizeof(cl_mem), &m.scratch);
      set(partial, 3, group_size * sizeof(double), nullptr);
      const std::size_t global[1] = {groups * group_size};
      const std::size_t local[1] = {group_size};
      launch(partial, 1, global, local);
      cl_kernel final_kernel = m.kernels[reduce_final_slot];
      const cl_int count = static_cast<cl_int>(groups);
      set(final_kernel, 0, sizeof count, &count);
      set(final_kernel, 1, sizeof(cl_mem), &m.scratch);
      set(final_kernel, 2, sizeof(cl_mem), &buffers[1]);
      const std::size_t one[1] = {1};
      launch(final_kernel, 1, one, one);
      break;
    }
    case KernelId::sort: {
      if (call.n & (call.n - 1))
        return failure("sort: OpenCL bitonic sort needs a power-of-two size");
      cl_kernel k = m.kernels[bitonic_slot];
      set(k, 0, sizeof(cl_mem), &buffers[0]);
      const std::size_t global[1] = {call.n};
      for (cl_uint size = 2; size <= call.n && err == CL_SUCCESS; size <<= 1)
        for (cl_uint stride = size >> 1; stride > 0 && err == CL_SUCCESS; stride >>= 1) {
          set(k, 1, sizeof stride, &stride);
          set(k, 2, sizeof size, &size);
          launch(k, 1, global, nullptr);
        }
      break;
    }
    case KernelId::bfs: {
      cl_kernel init = m.kernels[bfs_init_slot];
      set(init, 0, sizeof n, &n);
      set(init, 1, sizeof(cl_mem), &buffers[1]);
      const std::size_t global[1] = {std::max<std::uint32_t>(call.n, 1)};
      launch(init, 1, global, nullptr);
      cl_kernel level = m.kernels[bfs_level_slot];
      set(level, 0, sizeof n, &n);
      set(level, 2, sizeof(cl_mem), &buffers[0]);
      set(level, 3, sizeof(cl_mem), &buffers[1]);
      set(level, 4, sizeof(cl_mem), &m.scratch);
      for (cl_int depth = 0; err == CL_SUCCESS && depth < n; ++depth) {
        if (err == CL_SUCCESS)
          err = clEnqueueWriteBuffer(m.queue, m.scratch, CL_FALSE, 0, sizeof zero, &zero, 0,
                                     nullptr, nullptr);
        set(level, 1, sizeof depth, &depth);
        launch(level, 1, global, nullptr);
        cl_int changed = 0;
        if (err == CL_SUCCESS)
          err = clEnqueueReadBuffer(m.queue, m.scratch, CL_TRUE, 0, sizeof changed, &changed, 0,
                                    nullptr, nullptr);
        if (!changed) break;
      }
      break;
    }
    case KernelId::empty:
      break;
  }
  if (err != CL_SUCCESS) {
    for (std::size_t i = 0; i < call.handle_count; ++i)
      if (call.access[i] != Access::read) m.copies[call.handles[i]].version = 0;
    return failure(cl_error(
        fmt::format("kernel {} on '{}'", to_string(call.kernel), info_.name).c_str(), err));
  }
  return {};
}

// Outputs back to the host (write-back) while the next call's inputs go up, then the
// versions move on together.
Status OpenClDevice::complete(const KernelCall& call, DataRegistry& data,
                              const KernelBuffers& buffers, const KernelCall* next) {
  Impl& m = *impl_;
  cl_int err = CL_SUCCESS;
  for (std::size_t i = 0; i < call.handle_count; ++i) {
    if (call.access[i] == Access::read) continue;
    const HandleId h = call.handles[i];
    err = clEnqueueReadBuffer(m.queue, buffers[i], CL_FALSE, 0, data.bytes(h), data.data(h), 0,
                              nullptr, nullptr);
    if (err != CL_SUCCESS) return failure(cl_error("clEnqueueReadBuffer", err));
    bytes_to_host_ += data.bytes(h);
  }
  if (m.first_kernel && !m.last_kernel) {
    m.last_kernel = m.first_kernel;
    clRetainEvent(m.last_kernel);
  }
  // The kernel runs; meanwhile the next task's inputs go up on the transfer queue.
  clFlush(m.queue);
  const std::size_t probes_before = m.probes.size();
  if (next && m.transfer_queue) prefetch(*next, data, true);
  err = clFinish(m.queue);
  if (err != CL_SUCCESS) return failure(cl_error("clFinish", err));
  cl_ulong kernel_start = 0, kernel_end = 0;
  if (m.first_kernel &&
      clGetEventProfilingInfo(m.first_kernel, CL_PROFILING_COMMAND_START, sizeof kernel_start,
                              &kernel_start, nullptr) == CL_SUCCESS &&
      clGetEventProfilingInfo(m.last_kernel, CL_PROFILING_COMMAND_END, sizeof kernel_end,
                              &kernel_end, nullptr) == CL_SUCCESS)
    for (std::size_t i = probes_before; i < m.probes.size(); ++i) {
      m.probes[i].kernel_start = kernel_start;
      m.probes[i].kernel_end = kernel_end;
    }
  else
    for (std::size_t i = probes_before; i < m.probes.size(); ++i) m.probes[i].kernel_end = 1;
  m.release_kernel_events();
  measure_overlaps(false);
  for (std::size_t i = 0; i < call.handle_count; ++i) {
    const HandleId h = call.handles[i];
    Impl::BufferCopy& copy = m.copies[h];
    if (call.access[i] != Access::read) {
      data.bump_version(h);
      copy.version = data.version(h);
      if (copy.upload) {  // the kernel waited for it; it is done
        clReleaseEvent(copy.upload);
        copy.upload = nullptr;
      }
    }
  }
  return {};
}

Status OpenClDevice::run(const KernelCall& call, DataRegistry& data, const KernelCall* next) {
  if (call.kernel == KernelId::empty) return {};
  KernelBuffers buffers{};
  if (Status built = build_program(); !built) return built;
  if (Status staged = stage_inputs(call, data, buffers); !staged) return staged;
  if (Status enqueued = enqueue_kernels(call, buffers); !enqueued) return enqueued;
  return complete(call, data, buffers, next);
}

}  // namespace hetsched
