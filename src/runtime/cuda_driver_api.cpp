// Loads the CUDA driver API and NVRTC with dlopen/dlsym (see cuda_driver_api.hpp).
#include "cuda_driver_api.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace hetsched::cuda {

namespace {

std::string loader_error() {
  const char* text = ::dlerror();
  return text ? text : "unknown dlopen error";
}

// Binds every symbol or none: `missing` names the first one absent.
template <class Pointer>
void bind(void* library, const char* symbol, Pointer& target, std::string& missing) {
  if (!missing.empty()) return;
  void* address = ::dlsym(library, symbol);
  if (!address) {
    missing = symbol;
    return;
  }
  target = reinterpret_cast<Pointer>(address);
}

struct LoadedDriver {
  DriverApi api;
  std::string why;  // empty when loaded
  bool ok = false;
};

LoadedDriver load_driver(const std::string& path) {
  LoadedDriver loaded;
  void* library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    loaded.why = fmt::format("no CUDA driver ({})", loader_error());
    return loaded;
  }
  DriverApi& a = loaded.api;
  std::string missing;
  bind(library, "cuInit", a.init, missing);
  bind(library, "cuGetErrorString", a.get_error_string, missing);
  bind(library, "cuDeviceGetCount", a.device_get_count, missing);
  bind(library, "cuDeviceGet", a.device_get, missing);
  bind(library, "cuDeviceGetName", a.device_get_name, missing);
  bind(library, "cuDeviceGetAttribute", a.device_get_attribute, missing);
  bind(library, "cuDeviceTotalMem_v2", a.device_total_memory, missing);
  bind(library, "cuDevicePrimaryCtxRetain", a.primary_context_retain, missing);
  bind(library, "cuDevicePrimaryCtxRelease_v2", a.primary_context_release, missing);
  bind(library, "cuCtxSetCurrent", a.context_set_current, missing);
  bind(library, "cuStreamCreate", a.stream_create, missing);
  bind(library, "cuStreamDestroy_v2", a.stream_destroy, missing);
  bind(library, "cuStreamSynchronize", a.stream_synchronize, missing);
  bind(library, "cuStreamWaitEvent", a.stream_wait_event, missing);
  bind(library, "cuEventCreate", a.event_create, missing);
  bind(library, "cuEventRecord", a.event_record, missing);
  bind(library, "cuEventQuery", a.event_query, missing);
  bind(library, "cuEventDestroy_v2", a.event_destroy, missing);
  bind(library, "cuMemAlloc_v2", a.memory_allocate, missing);
  bind(library, "cuMemFree_v2", a.memory_free, missing);
  bind(library, "cuMemcpyHtoDAsync_v2", a.copy_host_to_device_async, missing);
  bind(library, "cuMemcpyDtoHAsync_v2", a.copy_device_to_host_async, missing);
  bind(library, "cuMemHostRegister_v2", a.host_register, missing);
  bind(library, "cuMemHostUnregister", a.host_unregister, missing);
  bind(library, "cuModuleLoadData", a.module_load_data, missing);
  bind(library, "cuModuleUnload", a.module_unload, missing);
  bind(library, "cuModuleGetFunction", a.module_get_function, missing);
  bind(library, "cuLaunchKernel", a.launch_kernel, missing);
  if (!missing.empty()) {
    loaded.why = fmt::format("CUDA driver {} lacks {}", path, missing);
    return loaded;  // the library stays loaded: harmless, and dlclose here gains nothing
  }
  const Result init = a.init(0);
  if (init != kSuccess) {
    loaded.why = a.error("cuInit", init);
    return loaded;
  }
  loaded.ok = true;
  return loaded;
}

struct LoadedNvrtc {
  NvrtcApi api;
  std::string why;
  bool ok = false;
};

LoadedNvrtc load_nvrtc() {
  LoadedNvrtc loaded;
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("HETSCHED_NVRTC_LIBRARY"); path && *path) {
    candidates.push_back(path);
  } else {
#ifdef HETSCHED_NVRTC_LIBRARY_HINT
    candidates.push_back(HETSCHED_NVRTC_LIBRARY_HINT);
#endif
    candidates.push_back("libnvrtc.so");
  }
  void* library = nullptr;
  std::string errors;
  for (const std::string& path : candidates) {
    library = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (library) break;
    errors += (errors.empty() ? "" : "; ") + loader_error();
  }
  if (!library) {
    loaded.why = fmt::format("no NVRTC ({})", errors);
    return loaded;
  }
  NvrtcApi& a = loaded.api;
  std::string missing;
  bind(library, "nvrtcVersion", a.version, missing);
  bind(library, "nvrtcGetErrorString", a.get_error_string, missing);
  bind(library, "nvrtcCreateProgram", a.create_program, missing);
  bind(library, "nvrtcCompileProgram", a.compile_program, missing);
  bind(library, "nvrtcGetPTXSize", a.get_ptx_size, missing);
  bind(library, "nvrtcGetPTX", a.get_ptx, missing);
  bind(library, "nvrtcGetProgramLogSize", a.get_log_size, missing);
  bind(library, "nvrtcGetProgramLog", a.get_log, missing);
  bind(library, "nvrtcDestroyProgram", a.destroy_program, missing);
  if (!missing.empty()) {
    loaded.why = fmt::format("NVRTC lacks {}", missing);
    return loaded;
  }
  loaded.ok = true;
  return loaded;
}

}  // namespace

std::string DriverApi::error(const char* call, Result result) const {
  const char* text = nullptr;
  if (get_error_string) get_error_string(result, &text);
  return fmt::format("{} failed: {} ({})", call, text ? text : "unknown error", result);
}

const DriverApi* driver_api(std::string& why) {
  // Loaded once per library path (the override is read at every call, so a test can
  // point it at a missing file even where a driver is installed).
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<LoadedDriver>> loaded_by_path;
  const char* override_path = std::getenv("HETSCHED_CUDA_DRIVER");
  const std::string path =
      override_path && *override_path ? std::string(override_path) : std::string("libcuda.so.1");
  std::lock_guard lock(mutex);
  auto& loaded = loaded_by_path[path];
  if (!loaded) loaded = std::make_unique<LoadedDriver>(load_driver(path));
  why = loaded->why;
  return loaded->ok ? &loaded->api : nullptr;
}

const NvrtcApi* nvrtc_api(std::string& why) {
  static const LoadedNvrtc loaded = load_nvrtc();
  why = loaded.why;
  return loaded.ok ? &loaded.api : nullptr;
}

}  // namespace hetsched::cuda
