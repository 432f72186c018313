/* StarPU peer for `hetsched bench runtime`: per-task overhead of N empty tasks
 * (no data) on the CPU workers StarPU is given (STARPU_NCPU) under the scheduler in
 * STARPU_SCHED. Built and run by run_starpu_bench.sh against Debian's libstarpu;
 * never part of the hetsched build. Prints "starpu_overhead_us_per_task <value>". */
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>

static void empty_cpu(void *buffers[], void *arg) {
  (void)buffers;
  (void)arg;
}

static struct starpu_codelet empty_codelet = {
    .cpu_funcs = {empty_cpu},
    .nbuffers = 0,
    .name = "hetsched_bench_empty",
};

int main(int argc, char **argv) {
  const unsigned count = argc > 1 ? (unsigned)atoi(argv[1]) : 200000;
  if (starpu_init(NULL) != 0) return 77;
  struct starpu_task **tasks = malloc(sizeof(*tasks) * count);
  for (unsigned i = 0; i < count; ++i) {
    tasks[i] = starpu_task_create();
    tasks[i]->cl = &empty_codelet;
    tasks[i]->detach = 0;
    tasks[i]->destroy = 0;
  }
  const double start = starpu_timing_now();
  for (unsigned i = 0; i < count; ++i)
    if (starpu_task_submit(tasks[i]) != 0) return 1;
  starpu_task_wait_for_all();
  const double stop = starpu_timing_now();
  printf("starpu_overhead_us_per_task %.6f\n", (stop - start) / count);
  for (unsigned i = 0; i < count; ++i) starpu_task_destroy(tasks[i]);
  free(tasks);
  starpu_shutdown();
  return 0;
}
