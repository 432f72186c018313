// Map-reduce partitioning over unlike devices: map work split by device rate, the
// shuffle costed over the network, reducers placed and sized.
//
// The input lies in blocks spread evenly over the nodes (as HDFS stores it). The map
// phase splits the input over the devices so that all finish together (the
// equal-finish split of data_parallel_split.hpp, with each device's seconds per
// byte from the performance model plus the host-to-device copy, or a blend of it
// with the equal split when moving input costs more than it saves); a node that maps
// more than it stores fetches the rest from nodes that map less, over the NICs
// (bytes in or out of a node's NIC, whichever is more, at its bandwidth — the
// fetch precedes the compute). The map output (input × output ratio) is shuffled
// all-to-all: every mapper sends each reducer its share of the key space, so node n
// sends out what its mappers produced for reducers elsewhere and receives what
// reducers on it need from elsewhere; the shuffle lasts as long as the busiest NIC
// (or intra-node link) needs. Reducers get key ranges (range partitioning, as
// Hadoop's TotalOrderPartitioner) sized in proportion to their reduce rate; the
// sizes that give the shortest shuffle + reduce among a few candidates (by rate, by
// rate with each byte's network cost, the fastest half, equal) are kept. This is
// the communication-aware load balancing of map and reduce on heterogeneous
// clusters of Tarazu (Ahmad et al., ASPLOS 2012) and LATE's observation that equal
// splits let the slowest machine set the pace (Zaharia et al., OSDI 2008). Phases
// are separated by barriers (reduce starts when the shuffle ends), as in Hadoop.
//
// The equal split for comparison gives every device the same input (each node maps
// exactly what it stores, so it fetches nothing) and the same key range.
// `map_reduce_to_job` turns a plan into a Job (map tasks pinned to their devices,
// reducers pinned to theirs, an edge from every mapper to every reducer carrying
// its share of the output) that the simulator runs, NIC contention included.
#pragma once

#include <string>
#include <vector>

#include "hetsched/perf/perf_model.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched {

struct MapReduceSpec {
  std::string name = "map-reduce";
  double input_bytes = 0;
  // Work per input byte (flops, memory bytes moved, kernel, precision) of the map,
  // and per shuffled byte of the reduce.
  Task map_per_byte;
  Task reduce_per_byte;
  double map_output_ratio = 0.1;  // shuffled bytes = input × ratio
  double min_chunk_bytes = 64.0 * 1024 * 1024;
};

struct MapReducePhases {
  double map_fetch_seconds = 0;  // remote input fetched before mapping
  double map_seconds = 0;        // slowest mapper, compute and host-to-device copy
  double shuffle_seconds = 0;
  double reduce_seconds = 0;
  double total_seconds() const {
    return map_fetch_seconds + map_seconds + shuffle_seconds + reduce_seconds;
  }
};

struct MapReducePlan {
  bool feasible = false;
  std::string message;               // why not, when infeasible
  std::vector<DeviceId> devices;     // the candidates that can run both phases
  std::vector<double> map_bytes;     // per device
  std::vector<double> reduce_share;  // per device, fractions of the key space summing to 1
  std::string reduce_sizing;         // which reducer sizing won
  MapReducePhases phases;
  MapReducePhases equal;  // the equal split
  double makespan_seconds() const { return phases.total_seconds(); }
  double speedup_over_equal() const {
    return phases.total_seconds() > 0 ? equal.total_seconds() / phases.total_seconds() : 0;
  }
};

MapReducePlan plan_map_reduce(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                              const MapReduceSpec& spec);

// The phases of a given split (map bytes and reduce shares per device of plan.devices).
MapReducePhases map_reduce_phases(const PerfModel& perf, const std::vector<DeviceId>& devices,
                                  const std::vector<double>& map_bytes,
                                  const std::vector<double>& reduce_share,
                                  const MapReduceSpec& spec);

// A runnable job: one map task per device with input, one reduce task per device
// with a share, pinned by explicit per-device cost; mapper → reducer edges carry
// map output × share. The input is read from `data_node`.
Job map_reduce_to_job(const PerfModel& perf, const MapReducePlan& plan, const MapReduceSpec& spec,
                      NodeId data_node = 0);

}  // namespace hetsched
