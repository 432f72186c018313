// StreamRunSink: where a benchmark that compares job-stream policies hands over each compared
// policy's full run on the benchmark's first case (recorded with its segments), so that its
// caller can draw them side by side (`hetsched bench cluster --out DIR`). The stream
// counterpart of SimRunSink.
#pragma once

#include <functional>
#include <string>

#include "hetsched/stream/stream_simulator.hpp"

namespace hetsched {

using StreamRunSink =
    std::function<void(const std::string& label, const StreamReport& report,
                       const StreamWorkload& workload, const StreamResources& resources)>;

}  // namespace hetsched
