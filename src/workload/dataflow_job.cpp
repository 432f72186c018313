#include "hetsched/workload/dataflow_job.hpp"

#include <algorithm>

namespace hetsched {

std::uint32_t DataflowJob::add_task(Task task, std::span<const DataAccess> accesses,
                                    std::span<const std::uint32_t> after) {
  const auto index = static_cast<std::uint32_t>(job_.tasks.size());
  for (const DataAccess& a : accesses)
    if (a.datum >= last_writer_.size()) {
      last_writer_.resize(a.datum + 1, -1);
      readers_since_.resize(a.datum + 1);
    }
  job_.tasks.push_back(std::move(task));
  accesses_.emplace_back(accesses.begin(), accesses.end());

  std::vector<std::uint32_t> predecessors;
  for (const DataAccess& a : accesses) {
    if (last_writer_[a.datum] >= 0)
      predecessors.push_back(static_cast<std::uint32_t>(last_writer_[a.datum]));
    if (a.access != Access::read)
      predecessors.insert(predecessors.end(), readers_since_[a.datum].begin(),
                          readers_since_[a.datum].end());
  }
  for (std::uint32_t p : after)
    if (p < index) predecessors.push_back(p);
  std::sort(predecessors.begin(), predecessors.end());
  predecessors.erase(std::unique(predecessors.begin(), predecessors.end()), predecessors.end());
  std::erase(predecessors, index);
  for (std::uint32_t p : predecessors) {
    double edge_bytes = 0;  // the data the consumer reads that p wrote
    for (const DataAccess& consumed : accesses)
      for (const DataAccess& produced : accesses_[p])
        if (produced.datum == consumed.datum && produced.access != Access::read &&
            consumed.access != Access::write)
          edge_bytes += consumed.bytes;
    job_.edges.push_back(Edge{p, index, edge_bytes});
  }
  for (const DataAccess& a : accesses) {
    if (a.access == Access::read) {
      readers_since_[a.datum].push_back(index);
    } else {
      last_writer_[a.datum] = index;
      readers_since_[a.datum].clear();
    }
  }
  return index;
}

}  // namespace hetsched
