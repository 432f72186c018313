// CUDA workers without a GPU: the kernel library's CUDA text compiles with NVRTC to PTX
// holding every entry point (where NVRTC is installed), a compile error comes back as
// NVRTC's log, a missing driver or HETSCHED_DISABLE_CUDA leaves CPU/OpenCL workers only
// with one notice, and a DAG still runs. With a toolkit at build time, our hand-written
// driver/NVRTC declarations are checked against NVIDIA's headers. (Kernels on a real CUDA
// device run in kernel_library_test's "cuda" cases, skipped where no GPU is present.)
#include "hetsched/runtime/cuda_device.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "hetsched/perf/roofline_model.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/runtime/local_backend.hpp"
#include "runtime/cuda_driver_api.hpp"

#ifdef HETSCHED_CUDA_TOOLKIT_HEADERS
#include <cuda.h>
#include <nvrtc.h>

#include <array>
#include <type_traits>
#endif

namespace hetsched {
namespace {

// Sets an environment variable for one scope, restoring the previous value.
class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) previous_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnvironment() {
    if (previous_)
      ::setenv(name_, previous_->c_str(), 1);
    else
      ::unsetenv(name_);
  }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  const char* name_;
  std::optional<std::string> previous_;
};

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1))
    ++count;
  return count;
}

// With a toolkit at build time its NVRTC must load and compile the kernel library.
#ifdef HETSCHED_CUDA_TOOLKIT_HEADERS
TEST(CudaProgramTest, KernelLibraryCompilesToPtxWithEveryEntryPoint) {
  const CudaCompileResult compiled = compile_cuda_program(cuda_program_source(), "compute_80");
  ASSERT_FALSE(compiled.error) << *compiled.error;
  for (const std::string& name : cuda_kernel_names())
    EXPECT_NE(compiled.ptx.find(".entry " + name + "("), std::string::npos) << name;
  // Double precision throughout, and the reduction's tree in dynamic shared memory.
  EXPECT_NE(compiled.ptx.find(".f64"), std::string::npos);
  EXPECT_NE(compiled.ptx.find(".extern .shared"), std::string::npos);
}

TEST(CudaProgramTest, CompileErrorComesBackWithNvrtcLog) {
  const CudaCompileResult compiled = compile_cuda_program(
      cuda_program_source() + "\n__kernel void broken() { undeclared; }\n", "compute_80");
  ASSERT_TRUE(compiled.error);
  EXPECT_NE(compiled.error->find("NVRTC could not compile the kernels for compute_80"),
            std::string::npos)
      << *compiled.error;
  EXPECT_NE(compiled.error->find("undeclared"), std::string::npos) << *compiled.error;
  EXPECT_TRUE(compiled.ptx.empty());
}
#endif

TEST(CudaProgramTest, CudaTextIsThePreludeAndTheOpenClLibrary) {
  const std::string source = cuda_program_source();
  EXPECT_NE(source.find(std::string(opencl_program_source())), std::string::npos);
  EXPECT_LT(source.find("#define __kernel extern \"C\" __global__"),
            source.find(std::string(opencl_program_source())));
}

TEST(CudaDeviceTest, MissingDriverLeavesCpuWorkersAndSaysSoOnce) {
  ScopedEnvironment no_driver("HETSCHED_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
  std::string notice;
  const auto devices = CudaDevice::open_all(notice);
  EXPECT_TRUE(devices.empty());
  if (cuda_workers_built()) {
    EXPECT_NE(notice.find("no CUDA driver"), std::string::npos) << notice;
    EXPECT_NE(notice.find("/nonexistent/libcuda.so.1"), std::string::npos) << notice;
    EXPECT_NE(notice.find("no CUDA workers"), std::string::npos) << notice;
  } else {
    EXPECT_NE(notice.find("CUDA workers not built"), std::string::npos) << notice;
  }

  LocalDevices local(LocalDevicesOptions{2, false, false, true});
  ASSERT_EQ(local.worker_count(), 2u);
  for (DeviceId d = 0; d < local.worker_count(); ++d) EXPECT_EQ(local.kind(d), WorkerKind::cpu);
  EXPECT_TRUE(local.cuda_devices().empty());
  EXPECT_EQ(local.cuda_notice(), notice);
  if (cuda_workers_built()) {
    EXPECT_EQ(occurrences(local.notice(), notice), 1u) << local.notice();
  }

  // The run goes on with what there is.
  TiledGemm gemm = make_tiled_gemm(2, 16, 4);
  RooflineModel roofline(local.cluster());
  auto policy = make_policy("greedy-eft", PolicyOptions{});
  LocalBackend backend(local, *gemm.dag, roofline, *policy);
  const LocalRunReport report = backend.run();
  EXPECT_EQ(report.report.tasks_completed, 8u);
  EXPECT_TRUE(report.failures.empty());
}

TEST(CudaDeviceTest, DisabledByEnvironmentOrNotRequested) {
  {
    ScopedEnvironment disabled("HETSCHED_DISABLE_CUDA", "1");
    EXPECT_TRUE(cuda_disabled_by_environment());
    std::string notice;
    EXPECT_TRUE(CudaDevice::open_all(notice).empty());
    EXPECT_NE(notice.find(cuda_workers_built() ? "HETSCHED_DISABLE_CUDA" : "not built"),
              std::string::npos)
        << notice;
  }
  {
    ScopedEnvironment enabled("HETSCHED_DISABLE_CUDA", "0");
    EXPECT_FALSE(cuda_disabled_by_environment());
  }
  LocalDevices local(LocalDevicesOptions{1, false, false, false});
  EXPECT_TRUE(local.cuda_devices().empty());
  EXPECT_EQ(local.cuda_notice(), "CUDA not requested");
  EXPECT_EQ(local.notice().find("CUDA"), std::string::npos) << local.notice();
}

#ifdef HETSCHED_CUDA_TOOLKIT_HEADERS
// A function pointer's shape: the size of its result and of each parameter, and whether
// each is a pointer. Our declarations must have NVIDIA's shape exactly.
template <class T>
constexpr int shape_of() {
  return int(sizeof(T)) * 2 + (std::is_pointer_v<T> ? 1 : 0);
}
template <class R, class... A>
constexpr auto shape(R (*)(A...)) {
  return std::array<int, sizeof...(A) + 1>{shape_of<R>(), shape_of<A>()...};
}
#define HETSCHED_SAME_SHAPE(ours, theirs) \
  static_assert(shape(decltype(ours){}) == shape(&theirs), #theirs)

using cuda::DriverApi;
using cuda::NvrtcApi;
HETSCHED_SAME_SHAPE(DriverApi::init, cuInit);
HETSCHED_SAME_SHAPE(DriverApi::get_error_string, cuGetErrorString);
HETSCHED_SAME_SHAPE(DriverApi::device_get_count, cuDeviceGetCount);
HETSCHED_SAME_SHAPE(DriverApi::device_get, cuDeviceGet);
HETSCHED_SAME_SHAPE(DriverApi::device_get_name, cuDeviceGetName);
HETSCHED_SAME_SHAPE(DriverApi::device_get_attribute, cuDeviceGetAttribute);
HETSCHED_SAME_SHAPE(DriverApi::device_total_memory, cuDeviceTotalMem_v2);
HETSCHED_SAME_SHAPE(DriverApi::primary_context_retain, cuDevicePrimaryCtxRetain);
HETSCHED_SAME_SHAPE(DriverApi::primary_context_release, cuDevicePrimaryCtxRelease_v2);
HETSCHED_SAME_SHAPE(DriverApi::context_set_current, cuCtxSetCurrent);
HETSCHED_SAME_SHAPE(DriverApi::stream_create, cuStreamCreate);
HETSCHED_SAME_SHAPE(DriverApi::stream_destroy, cuStreamDestroy_v2);
HETSCHED_SAME_SHAPE(DriverApi::stream_synchronize, cuStreamSynchronize);
HETSCHED_SAME_SHAPE(DriverApi::stream_wait_event, cuStreamWaitEvent);
HETSCHED_SAME_SHAPE(DriverApi::event_create, cuEventCreate);
HETSCHED_SAME_SHAPE(DriverApi::event_record, cuEventRecord);
HETSCHED_SAME_SHAPE(DriverApi::event_query, cuEventQuery);
HETSCHED_SAME_SHAPE(DriverApi::event_destroy, cuEventDestroy_v2);
HETSCHED_SAME_SHAPE(DriverApi::memory_allocate, cuMemAlloc_v2);
HETSCHED_SAME_SHAPE(DriverApi::memory_free, cuMemFree_v2);
HETSCHED_SAME_SHAPE(DriverApi::copy_host_to_device_async, cuMemcpyHtoDAsync_v2);
HETSCHED_SAME_SHAPE(DriverApi::copy_device_to_host_async, cuMemcpyDtoHAsync_v2);
HETSCHED_SAME_SHAPE(DriverApi::host_register, cuMemHostRegister_v2);
HETSCHED_SAME_SHAPE(DriverApi::host_unregister, cuMemHostUnregister);
HETSCHED_SAME_SHAPE(DriverApi::module_load_data, cuModuleLoadData);
HETSCHED_SAME_SHAPE(DriverApi::module_unload, cuModuleUnload);
HETSCHED_SAME_SHAPE(DriverApi::module_get_function, cuModuleGetFunction);
HETSCHED_SAME_SHAPE(DriverApi::launch_kernel, cuLaunchKernel);
HETSCHED_SAME_SHAPE(NvrtcApi::version, nvrtcVersion);
HETSCHED_SAME_SHAPE(NvrtcApi::get_error_string, nvrtcGetErrorString);
HETSCHED_SAME_SHAPE(NvrtcApi::create_program, nvrtcCreateProgram);
HETSCHED_SAME_SHAPE(NvrtcApi::compile_program, nvrtcCompileProgram);
HETSCHED_SAME_SHAPE(NvrtcApi::get_ptx_size, nvrtcGetPTXSize);
HETSCHED_SAME_SHAPE(NvrtcApi::get_ptx, nvrtcGetPTX);
HETSCHED_SAME_SHAPE(NvrtcApi::get_log_size, nvrtcGetProgramLogSize);
HETSCHED_SAME_SHAPE(NvrtcApi::get_log, nvrtcGetProgramLog);
HETSCHED_SAME_SHAPE(NvrtcApi::destroy_program, nvrtcDestroyProgram);

static_assert(cuda::kSuccess == CUDA_SUCCESS);
static_assert(cuda::kErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(cuda::kErrorNotReady == CUDA_ERROR_NOT_READY);
static_assert(cuda::kAttributeMaxThreadsPerBlock == CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
static_assert(cuda::kAttributeClockRateKhz == CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
static_assert(cuda::kAttributeMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cuda::kAttributeMemoryClockRateKhz == CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
static_assert(cuda::kAttributeGlobalMemoryBusWidthBits ==
              CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
static_assert(cuda::kAttributeAsyncEngineCount == CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
static_assert(cuda::kAttributeComputeCapabilityMajor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cuda::kAttributeComputeCapabilityMinor ==
              CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cuda::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(cuda::kEventDisableTiming == CU_EVENT_DISABLE_TIMING);

TEST(CudaDeclarationsTest, AgreeWithTheToolkitHeaders) {
  // The checks are the static_asserts above; this test records that they were compiled.
  SUCCEED() << "checked against the CUDA toolkit's cuda.h and nvrtc.h";
}
#endif

}  // namespace
}  // namespace hetsched
