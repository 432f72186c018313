// Alibaba cluster-trace-gpu-v2023 (the "openb" CSVs): GPU nodes and the pods
// submitted to them. Each CSV must start with its header; a line with the wrong
// number of fields or a malformed number is an InputError with its line number.
#pragma once

#include <string>
#include <vector>

namespace hetsched {

struct AlibabaNode {
  std::string name;
  double cpu_milli = 0;
  double memory_mib = 0;
  int gpus = 0;
  std::string gpu_model;  // e.g. "V100M16", "T4", "G2"
};

struct AlibabaPod {
  std::string name;
  double cpu_milli = 0;
  double memory_mib = 0;
  int gpus = 0;          // whole GPUs asked for (0 for CPU-only pods)
  int gpu_milli = 0;     // per-GPU share in thousandths, 1..1000 (0 when gpus == 0)
  std::string gpu_spec;  // allowed models separated by '|'; empty = any
  std::string qos;       // LS, BE, ...
  std::string phase;     // Running, Pending, Failed, Succeeded
  double creation_seconds = 0;
  double deletion_seconds = 0;
  double scheduled_seconds = -1;  // -1 when never scheduled in the trace
  int line = 0;
};

std::vector<AlibabaNode> parse_alibaba_nodes(const std::string& text, const std::string& file_name);
std::vector<AlibabaPod> parse_alibaba_pods(const std::string& text, const std::string& file_name);
std::vector<AlibabaNode> load_alibaba_nodes(const std::string& path);
std::vector<AlibabaPod> load_alibaba_pods(const std::string& path);

}  // namespace hetsched
