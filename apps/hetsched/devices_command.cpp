#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/runtime/local_machine.hpp"

namespace hetsched::cli {
namespace {

struct DevicesOptions {
  bool no_opencl = false;
  bool no_cuda = false;
  std::string format = "table";
};

void run_devices(const DevicesOptions& options) {
  LocalDevices devices(LocalDevicesOptions{0, !options.no_opencl, true, !options.no_cuda});
  const CpuTopology& cpu = devices.cpu();
  if (options.format == "json") {
    nlohmann::ordered_json out;
    out["cpu"] = {{"model", cpu.model},
                  {"packages", cpu.packages},
                  {"numa_nodes", cpu.numa_nodes},
                  {"cores", cpu.cores},
                  {"hardware_threads", cpu.hardware_threads},
                  {"l1d_bytes", cpu.l1d_bytes},
                  {"l2_bytes", cpu.l2_bytes},
                  {"l3_bytes", cpu.l3_bytes},
                  {"memory_bytes", cpu.memory_bytes}};
    out["opencl"] = nlohmann::ordered_json::array();
    for (const auto& device : devices.opencl_devices()) {
      const OpenClDeviceInfo& i = device->info();
      out["opencl"].push_back({{"platform", i.platform},
                               {"name", i.name},
                               {"vendor", i.vendor},
                               {"version", i.version},
                               {"type", i.type},
                               {"compute_units", i.compute_units},
                               {"global_memory_bytes", i.global_memory_bytes},
                               {"max_clock_mhz", i.max_clock_mhz},
                               {"fp64", i.fp64}});
    }
    out["cuda"] = nlohmann::ordered_json::array();
    for (const auto& device : devices.cuda_devices()) {
      const CudaDeviceInfo& i = device->info();
      out["cuda"].push_back({{"ordinal", i.ordinal},
                             {"name", i.name},
                             {"compute_capability", fmt::format("{}.{}", i.compute_capability_major,
                                                                i.compute_capability_minor)},
                             {"multiprocessors", i.multiprocessors},
                             {"clock_mhz", i.clock_mhz},
                             {"global_memory_bytes", i.global_memory_bytes},
                             {"memory_bandwidth", i.memory_bandwidth},
                             {"copy_engines", i.copy_engines}});
    }
    if (!devices.cuda_notice().empty()) out["cuda_notice"] = devices.cuda_notice();
    out["workers"] = nlohmann::ordered_json::array();
    for (const Device& d : devices.cluster().devices())
      out["workers"].push_back({{"id", d.id},
                                {"name", d.name},
                                {"kind", to_string(devices.kind(d.id))},
                                {"pinned_pu", devices.pinned_pu(d.id)}});
    if (!devices.notice().empty()) out["notice"] = devices.notice();
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format(
      "CPU (hwloc): {}\n  {} package(s), {} NUMA node(s), {} cores, {} hardware threads\n"
      "  caches: L1d {} KiB, L2 {} KiB, L3 {} MiB; memory {:.1f} GiB\n",
      cpu.model, cpu.packages, cpu.numa_nodes, cpu.cores, cpu.hardware_threads,
      cpu.l1d_bytes / 1024, cpu.l2_bytes / 1024, cpu.l3_bytes / (1024 * 1024),
      double(cpu.memory_bytes) / (1024.0 * 1024 * 1024));
  std::cout << "OpenCL:\n";
  if (devices.opencl_devices().empty()) std::cout << "  " << devices.opencl_notice() << "\n";
  for (const auto& device : devices.opencl_devices()) {
    const OpenClDeviceInfo& i = device->info();
    std::cout << fmt::format("  {} ({}, {}): {} compute units, {:.1f} GiB, {} MHz, {}\n", i.name,
                             i.platform, i.type, i.compute_units,
                             double(i.global_memory_bytes) / (1024.0 * 1024 * 1024),
                             i.max_clock_mhz, i.version);
  }
  std::cout << "CUDA:\n";
  if (devices.cuda_devices().empty()) std::cout << "  " << devices.cuda_notice() << "\n";
  for (const auto& device : devices.cuda_devices()) {
    const CudaDeviceInfo& i = device->info();
    std::cout << fmt::format(
        "  #{} {} (compute capability {}.{}): {} multiprocessors, {:.1f} GiB, {} MHz, "
        "{:.0f} GB/s, {} copy engine(s)\n",
        i.ordinal, i.name, i.compute_capability_major, i.compute_capability_minor,
        i.multiprocessors, double(i.global_memory_bytes) / (1024.0 * 1024 * 1024), i.clock_mhz,
        i.memory_bandwidth / 1e9, i.copy_engines);
  }
  std::cout << "workers:\n";
  for (const Device& d : devices.cluster().devices())
    std::cout << fmt::format("  {:>2}  {:<6}  {}{}\n", d.id, to_string(devices.kind(d.id)), d.name,
                             devices.pinned_pu(d.id) >= 0
                                 ? fmt::format("  (pinned to PU {})", devices.pinned_pu(d.id))
                                 : "");
}

}  // namespace

void add_devices_command(CLI::App& app) {
  auto options = std::make_shared<DevicesOptions>();
  CLI::App* command = app.add_subcommand(
      "devices",
      "list this machine's devices (hwloc topology, OpenCL and CUDA devices) and its workers");
  command->add_flag("--no-opencl", options->no_opencl, "do not look for OpenCL devices");
  command->add_flag("--no-cuda", options->no_cuda, "do not look for CUDA devices");
  command->add_option("--format", options->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  command->callback([options] { run_devices(*options); });
}

}  // namespace hetsched::cli
