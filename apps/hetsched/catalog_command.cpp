#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hetsched/cluster/device_catalog.hpp"
#include "hetsched/registry/policy_registry.hpp"
#include "hetsched/stream/stream_policy.hpp"

namespace hetsched::cli {
namespace {

void print_catalog(const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json parts = nlohmann::ordered_json::array();
    for (const DeviceSpec& s : device_catalog()) {
      nlohmann::ordered_json matrix, vector;
      for (std::size_t p = 0; p < kPrecisionCount; ++p) {
        const std::string key = std::string(to_string(static_cast<Precision>(p))) + "_tflops";
        matrix[key] = s.matrix_flops[p] / 1e12;
        vector[key] = s.vector_flops[p] / 1e12;
      }
      parts.push_back({{"model", s.model},
                       {"kind", to_string(s.kind)},
                       {"matrix", matrix},
                       {"vector", vector},
                       {"compute_units", s.compute_units},
                       {"memory_gb", s.memory_bytes / 1e9},
                       {"memory_bandwidth_gb_s", s.memory_bandwidth / 1e9},
                       {"idle_watts", s.idle_watts},
                       {"peak_watts", s.peak_watts},
                       {"pstates", s.pstates.size()},
                       {"launch_overhead_us", s.launch_overhead_seconds * 1e6},
                       {"mtbf_hours", s.mtbf_hours},
                       {"price_per_hour", s.price_per_hour}});
    }
    std::cout << parts.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("{:<11} {:<4} {:>9} {:>9} {:>10} {:>10} {:>7} {:>8} {:>6} {:>7}\n",
                           "model", "kind", "fp64 TF", "fp32 TF", "bf16 TF", "int8 TOPS", "mem GB",
                           "BW GB/s", "watts", "$/hour");
  for (const DeviceSpec& s : device_catalog()) {
    const auto best = [&](Precision p) {
      const auto i = static_cast<std::size_t>(p);
      return std::max(s.matrix_flops[i], s.vector_flops[i]) / 1e12;
    };
    std::cout << fmt::format(
        "{:<11} {:<4} {:>9.2f} {:>9.2f} {:>10.1f} {:>10.1f} {:>7.0f} {:>8.0f} {:>6.0f} {:>7.3f}\n",
        s.model, to_string(s.kind), best(Precision::fp64), best(Precision::fp32),
        best(Precision::fp16), best(Precision::int8), s.memory_bytes / 1e9,
        s.memory_bandwidth / 1e9, s.peak_watts, s.price_per_hour);
  }
}

}  // namespace

void add_catalog_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("table");
  CLI::App* command = app.add_subcommand("catalog", "list the built-in catalog of real parts");
  command->add_option("--format", *format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([format] { print_catalog(*format); });
}

void add_policies_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("table");
  CLI::App* command = app.add_subcommand("policies", "list the scheduling policies");
  command->add_option("--format", *format, "table or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([format] {
    if (*format == "json") {
      nlohmann::ordered_json out{{"task_policies", nlohmann::ordered_json::array()},
                                 {"stream_policies", nlohmann::ordered_json::array()}};
      for (const PolicyInfo& info : policy_registry())
        out["task_policies"].push_back({{"name", info.name}, {"summary", info.summary}});
      for (const StreamPolicyInfo& info : stream_policy_registry())
        out["stream_policies"].push_back({{"name", info.name}, {"summary", info.summary}});
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << "Task policies, for workloads of jobs and tasks (--policy of hetsched "
                 "simulate, run and serve):\n";
    for (const PolicyInfo& info : policy_registry())
      std::cout << fmt::format("{:<16} {}\n", info.name, info.summary);
    std::cout << "\nJob-stream policies (hetsched simulate with a kind: stream workload):\n";
    for (const StreamPolicyInfo& info : stream_policy_registry())
      std::cout << fmt::format("{:<20} {}\n", info.name, info.summary);
  });
}

}  // namespace hetsched::cli
