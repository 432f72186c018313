// GangPlacement: where a gang of `gang` devices of one type goes, given how many of them
// each candidate node has free and the node's rack — the one rule the job-stream
// simulator and the service both place gangs by.
//
//  1. One node: the fullest node that still fits the whole gang (best fit: fewest free
//     devices among those with enough; ties to the earlier candidate).
//  2. Spread (only when allowed): one rack — the rack with the least free room that
//     still fits, its nodes taken with the most free first — else every node, the most
//     free first (ties keep candidate order).
// The service launches a task on one node (a Slurm job, a pod), so it places in
// one-node mode; the simulator spreads when no node fits, and the gang then runs at
// its spread rate.
#pragma once

#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace hetsched {

struct GangNodeRoom {
  int node = 0;  // the caller's node id, returned in the placement
  int rack = 0;
  int free = 0;  // free devices of the gang's type
};

enum class GangSpread { one_node, racks_then_anywhere };

// (node, devices taken) per node used; nullopt when the gang does not fit.
using GangPlacement = std::vector<std::pair<int, int>>;

std::optional<GangPlacement> place_gang(std::span<const GangNodeRoom> candidates, int gang,
                                        GangSpread spread);

}  // namespace hetsched
