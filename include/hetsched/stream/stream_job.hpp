// The job-stream model: a shared cluster of device types receiving gang jobs.
// A StreamJob asks for `gang_size` devices of one type at once and carries an amount
// of work (steps) whose rate depends on the device type it gets (its row of the
// throughput matrix), a priority weight, an optional deadline (SLO), a user and an
// arrival time. This is a different model from the DAG tasks in workload/.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace hetsched {

struct StreamJob {
  std::string name;
  std::string job_type;  // e.g. Gavel's "ResNet-50 (batch size 64)"
  std::string user = "default";
  int gang_size = 1;
  double total_steps = 0;
  // Steps per second by device type name when the whole gang sits in one node.
  std::map<std::string, double> steps_per_second;
  // Steps per second when the gang is spread over nodes; a type missing here runs
  // at its steps_per_second rate.
  std::map<std::string, double> spread_steps_per_second;
  double priority_weight = 1;
  std::optional<double> deadline_seconds;  // absolute time by which it should finish
  double arrival_seconds = 0;
  bool preemptible = true;
  // Fractional GPU (as in the Alibaba trace): thousandths of one device, 1..999, for
  // a gang of 1; 0 = whole devices. The job gets an isolated share of the device
  // (its milli-GPUs, or on a type split into MIG-like slices the whole slices that
  // cover it) and runs at its rate times that share.
  int gpu_milli = 0;
  // Device memory the job needs on each of its devices, GB; 0 = not checked. Jobs
  // sharing a device never hold more than its memory together; on a sliced type the
  // job takes enough slices to hold it.
  double gpu_memory_gb = 0;
  // CPU cores: the job gets a specific set of this many cores on the node of its
  // devices, held by no other job (so its gang must sit in one node); 0 = none.
  int cpu_cores = 0;
  // CPU (thousandths of a core) and memory (MiB) the job takes from its node, counted
  // as Kubernetes counts a pod's requests (its gang then sits in one node); 0 = none.
  // A job with a gang of 0 asks for these alone (a CPU pod): it may sit on any node of
  // a type it has a rate for, and takes no device.
  double cpu_milli = 0;
  double memory_mib = 0;
  bool asks_host() const { return cpu_milli > 0 || memory_mib > 0; }
};

// One type of device in the cluster: `count` devices in nodes of
// `devices_per_node`, nodes grouped in racks of `nodes_per_rack`.
struct StreamDeviceType {
  std::string model;  // a catalog name: "V100", "P100", "K80", ...
  int count = 0;
  int devices_per_node = 4;
  int nodes_per_rack = 8;
  double price_per_hour = 0;
  double memory_gb = 0;        // per device, from the catalog; 0 = not checked
  int cpu_cores_per_node = 0;  // 0 = CPU cores not modelled (any request fits)
  // CPU (milli-cores) and memory (MiB) of each node, for jobs' cpu_milli and
  // memory_mib requests; 0 = not modelled (any request fits).
  double cpu_milli_per_node = 0;
  double memory_mib_per_node = 0;
  // MIG-like partitioning: 0 = fractional jobs share a device by milli-GPUs; S > 0 =
  // each device splits into S equal slices (compute and memory), and a fractional
  // job takes whole slices.
  int mig_slices = 0;
};

// Most devices a job-stream cluster may have (a file asking for more is refused).
inline constexpr std::int64_t kMaxStreamDevices = 10'000'000;

struct StreamCluster {
  std::vector<StreamDeviceType> types;
  std::int64_t total_devices() const;
  std::vector<std::string> type_names() const;
};

// A cluster of the named catalog parts (prices from the catalog); throws InputError
// for a name the catalog does not know.
StreamCluster make_stream_cluster(const std::vector<std::pair<std::string, int>>& counts,
                                  int devices_per_node = 4, int nodes_per_rack = 8);

// Measured rates of two single-device jobs sharing one device (space sharing, as in
// Gavel's table): (job type a, job type b, device model) -> (steps/s of a, steps/s of
// b). Empty: no co-location data, so no space sharing.
struct StreamColocationTable {
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<double, double>> rates;
};

struct StreamWorkload {
  StreamCluster cluster;
  std::vector<StreamJob> jobs;  // in arrival order
  StreamColocationTable colocation;
};

}  // namespace hetsched
