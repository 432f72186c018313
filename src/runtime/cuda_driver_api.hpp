// CudaDriverApi / NvrtcApi: the few entry points of the CUDA driver API and of NVRTC
// (NVIDIA's run-time compiler) that the CUDA workers use, loaded with dlopen at run
// time, so the project compiles and runs everywhere: without a driver (no GPU, no
// libcuda.so.1) the runtime goes on with CPU and OpenCL workers and says so once.
//
// The declarations are this project's own, written from NVIDIA's public API
// documentation (CUDA Driver API reference, NVRTC user guide): opaque handles are
// pointers, results are ints (0 is success), and the versioned symbol names (`_v2`)
// are those the documentation's headers map the plain names to. No NVIDIA header is
// included or copied; when a toolkit is present at build time, a test compiles these
// declarations against the toolkit's own headers and checks they agree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hetsched::cuda {

using Result = int;                   // CUresult; 0 = CUDA_SUCCESS
using Device = int;                   // CUdevice
using DevicePointer = std::uint64_t;  // CUdeviceptr
using Context = struct ContextOpaque*;
using Module = struct ModuleOpaque*;
using Function = struct FunctionOpaque*;
using Stream = struct StreamOpaque*;
using Event = struct EventOpaque*;

inline constexpr Result kSuccess = 0;
inline constexpr Result kErrorNoDevice = 100;
inline constexpr Result kErrorNotReady = 600;

// CUdevice_attribute values used here.
inline constexpr int kAttributeMaxThreadsPerBlock = 1;
inline constexpr int kAttributeClockRateKhz = 13;
inline constexpr int kAttributeMultiprocessorCount = 16;
inline constexpr int kAttributeMemoryClockRateKhz = 36;
inline constexpr int kAttributeGlobalMemoryBusWidthBits = 37;
inline constexpr int kAttributeAsyncEngineCount = 40;
inline constexpr int kAttributeComputeCapabilityMajor = 75;
inline constexpr int kAttributeComputeCapabilityMinor = 76;

inline constexpr unsigned kStreamNonBlocking = 0x1;
inline constexpr unsigned kEventDisableTiming = 0x2;

// The driver API (libcuda.so.1), one pointer per entry point.
struct DriverApi {
  Result (*init)(unsigned flags) = nullptr;                               // cuInit
  Result (*get_error_string)(Result error, const char** text) = nullptr;  // cuGetErrorString
  Result (*device_get_count)(int* count) = nullptr;                       // cuDeviceGetCount
  Result (*device_get)(Device* device, int ordinal) = nullptr;            // cuDeviceGet
  Result (*device_get_name)(char* name, int length, Device device) = nullptr;
  Result (*device_get_attribute)(int* value, int attribute, Device device) = nullptr;
  Result (*device_total_memory)(std::size_t* bytes, Device device) = nullptr;  // _v2
  Result (*primary_context_retain)(Context* context, Device device) = nullptr;
  Result (*primary_context_release)(Device device) = nullptr;  // _v2
  Result (*context_set_current)(Context context) = nullptr;
  Result (*stream_create)(Stream* stream, unsigned flags) = nullptr;
  Result (*stream_destroy)(Stream stream) = nullptr;  // _v2
  Result (*stream_synchronize)(Stream stream) = nullptr;
  Result (*stream_wait_event)(Stream stream, Event event, unsigned flags) = nullptr;
  Result (*event_create)(Event* event, unsigned flags) = nullptr;
  Result (*event_record)(Event event, Stream stream) = nullptr;
  Result (*event_query)(Event event) = nullptr;
  Result (*event_destroy)(Event event) = nullptr;                                  // _v2
  Result (*memory_allocate)(DevicePointer* pointer, std::size_t bytes) = nullptr;  // _v2
  Result (*memory_free)(DevicePointer pointer) = nullptr;                          // _v2
  Result (*copy_host_to_device_async)(DevicePointer destination, const void* source,
                                      std::size_t bytes, Stream stream) = nullptr;  // _v2
  Result (*copy_device_to_host_async)(void* destination, DevicePointer source, std::size_t bytes,
                                      Stream stream) = nullptr;                         // _v2
  Result (*host_register)(void* pointer, std::size_t bytes, unsigned flags) = nullptr;  // _v2
  Result (*host_unregister)(void* pointer) = nullptr;
  Result (*module_load_data)(Module* module, const void* image) = nullptr;
  Result (*module_unload)(Module module) = nullptr;
  Result (*module_get_function)(Function* function, Module module, const char* name) = nullptr;
  Result (*launch_kernel)(Function function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                          unsigned block_x, unsigned block_y, unsigned block_z,
                          unsigned shared_bytes, Stream stream, void** parameters,
                          void** extra) = nullptr;

  // "cuMemAlloc failed: out of memory (2)".
  std::string error(const char* call, Result result) const;
};

// NVRTC (libnvrtc.so), the run-time compiler of CUDA C++ to PTX.
using NvrtcProgram = struct NvrtcProgramOpaque*;
struct NvrtcApi {
  int (*version)(int* major, int* minor) = nullptr;
  const char* (*get_error_string)(int result) = nullptr;
  int (*create_program)(NvrtcProgram* program, const char* source, const char* name,
                        int header_count, const char* const* headers,
                        const char* const* include_names) = nullptr;
  int (*compile_program)(NvrtcProgram program, int option_count,
                         const char* const* options) = nullptr;
  int (*get_ptx_size)(NvrtcProgram program, std::size_t* bytes) = nullptr;
  int (*get_ptx)(NvrtcProgram program, char* ptx) = nullptr;
  int (*get_log_size)(NvrtcProgram program, std::size_t* bytes) = nullptr;
  int (*get_log)(NvrtcProgram program, char* log) = nullptr;
  int (*destroy_program)(NvrtcProgram* program) = nullptr;
};

// The driver, loaded once per process (thread-safe). Null when it cannot be loaded, with
// `why` set to one line. HETSCHED_CUDA_DRIVER names another library file (tests use a
// missing one to exercise the "no driver" path on machines that have one).
const DriverApi* driver_api(std::string& why);

// NVRTC, loaded once per process: HETSCHED_NVRTC_LIBRARY, else the toolkit's library found
// at build time, else libnvrtc.so from the loader's search path.
const NvrtcApi* nvrtc_api(std::string& why);

}  // namespace hetsched::cuda
