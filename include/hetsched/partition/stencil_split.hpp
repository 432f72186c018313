// Stencil domain decomposition: a 2-D or 3-D grid cut into slabs along its first
// axis, one slab per device, each slab's thickness (planes) in proportion to the
// device's rate on the stencil so that every device finishes an iteration
// together. Per iteration a device updates its cells (the roofline model's time for
// the stencil kernel — usually memory-bound) and exchanges one halo plane with each
// neighbouring slab over its link: that exchange is the start-up term of the
// equal-finish split (data_parallel_split.hpp), so a slow device whose halo costs
// more than its work is worth is left out. Slabs, not blocks: with one cut axis the
// halo per device is one plane per side whatever the slab's thickness.
#pragma once

#include <string>
#include <vector>

#include "hetsched/partition/data_parallel_split.hpp"
#include "hetsched/perf/perf_model.hpp"

namespace hetsched {

struct StencilSpec {
  double planes = 4096;                      // cells along the cut axis
  double cells_per_plane = 4096.0 * 4096.0;  // the other axes (2-D: a row; 3-D: a plane)
  double flops_per_cell = 8;                 // e.g. a 7-point update
  double bytes_per_cell = 16;                // memory traffic per cell per iteration
  double halo_bytes_per_cell = 4;            // fp32 values exchanged per halo cell
  std::uint32_t iterations = 100;
  Precision precision = Precision::fp32;
};

struct StencilSplit {
  DataParallelSplit split;  // items are planes; times are per iteration
  std::vector<DeviceId> devices;
  double iteration_seconds = 0;
  double total_seconds = 0;
  double equal_iteration_seconds = 0;
  double speedup_over_equal() const {
    return iteration_seconds > 0 ? equal_iteration_seconds / iteration_seconds : 0;
  }
};

StencilSplit split_stencil(const PerfModel& perf, const std::vector<DeviceId>& candidates,
                           const StencilSpec& spec);

}  // namespace hetsched
