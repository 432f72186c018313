// CPU time of the calling thread, for benchmarks of single-threaded work: other processes
// sharing the machine, and the process's own idle helper threads (OpenBLAS starts a pool
// that spins for a while after loading), do not count in it.
#pragma once

#include <ctime>

namespace hetsched {

inline double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

}  // namespace hetsched
