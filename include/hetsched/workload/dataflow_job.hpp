// DataflowJob: a job built the way task runtimes build their graphs — each task names the
// data it reads and writes, in submission order, and the edges follow from those
// accesses, as StarPU's implicit data dependencies do: a reader depends on the last writer
// of each datum it reads; a writer depends on the last writer and on every reader since.
// An edge carries the bytes of the data the consumer reads that the producer wrote.
//
// The local runtime's DAGs (RuntimeDag) and the twin's tiled factorizations are built
// through it, so both infer their edges by the one rule.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "hetsched/workload/job.hpp"

namespace hetsched {

enum class Access : std::uint8_t { read, write, read_write };

// One datum a task touches: its id (any dense numbering), its size and how it is used.
struct DataAccess {
  std::uint32_t datum = 0;
  double bytes = 0;
  Access access = Access::read;
};

class DataflowJob {
 public:
  explicit DataflowJob(Job& job) : job_(job) {}

  // Appends `task` to the job after the tasks its accesses conflict with, and after the
  // earlier tasks listed in `after` (ordering edges carrying no data); its index.
  std::uint32_t add_task(Task task, std::span<const DataAccess> accesses,
                         std::span<const std::uint32_t> after = {});

 private:
  Job& job_;
  std::vector<std::vector<DataAccess>> accesses_;          // per task
  std::vector<std::int64_t> last_writer_;                  // per datum; -1 when none
  std::vector<std::vector<std::uint32_t>> readers_since_;  // per datum
};

}  // namespace hetsched
