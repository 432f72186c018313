// The fallback every planning policy shares for a ready task its plan did not place (it
// was re-offered after its device went down, or its job's plan could not include it):
// the device, at P-state 0, where it would finish first — after now, the device's
// predicted free time and the arrival of its inputs.
#pragma once

#include <span>

#include "hetsched/policy/scheduling_policy.hpp"

namespace hetsched {

// Places every task of `ready` not yet placed; a task no device that is up can run is
// left for the loop to report.
void place_earliest_finish(const ClusterSnapshot& snapshot, std::span<const TaskIndex> ready,
                           AssignmentSink& out);

}  // namespace hetsched
