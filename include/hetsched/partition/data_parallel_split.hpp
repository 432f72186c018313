// Data-parallel split: one divisible piece of work (a batch, a data set, a domain)
// over devices of different speed so that every part finishes at the same time.
//
// Device i handles x_i items in c_i + a_i·x_i seconds: c_i is its fixed start-up
// (launch overhead, link latency, a halo exchange), a_i its seconds per item
// (compute at its rate plus moving the item over its link). For a chosen set S all
// parts end together at T when x_i = (T − c_i)/a_i, and Σ x_i = W gives the closed
// form T = (W + Σ c_i/a_i) / Σ 1/a_i — the exact optimum of the LP "minimise T
// subject to c_i + a_i·x_i ≤ T, Σ x_i = W, x_i ≥ 0" for that set (divisible-load
// theory, Bharadwaj et al. 1996). Adding a device lowers T only if its start-up is
// below T, and a minimum chunk can rule a device out, so the best set is chosen:
// every subset for up to 16 devices, else the prefixes of the devices ordered by
// start-up (the divisible-load optimum without minimum chunks). With
// `integral_items`, the continuous parts are rounded down and the remainder handed
// out one item at a time to the part that would then finish first.
#pragma once

#include <string>
#include <vector>

namespace hetsched {

struct SplitDevice {
  std::string name;
  double seconds_per_item = 0;  // compute plus transfer, per item
  double startup_seconds = 0;   // fixed cost of using the device at all
};

struct DataParallelSplitRequest {
  double total_items = 0;
  double min_chunk_items = 0;  // a used device gets at least this many
  bool integral_items = false;
  std::vector<SplitDevice> devices;
};

struct DataParallelSplit {
  bool feasible = false;
  std::string message;        // why not, when infeasible
  std::vector<double> items;  // per device; 0 for devices left out
  std::vector<bool> used;
  std::vector<double> finish_seconds;  // per used device
  double makespan_seconds = 0;
  double equal_split_makespan_seconds = 0;  // every device the same share
  double speedup_over_equal() const {
    return makespan_seconds > 0 ? equal_split_makespan_seconds / makespan_seconds : 0;
  }
};

DataParallelSplit split_data_parallel(const DataParallelSplitRequest& request);

}  // namespace hetsched
