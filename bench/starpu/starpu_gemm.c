/* StarPU peer for `hetsched bench runtime`: tiled DGEMM C += A·B of side N with
 * B×B tiles, one task per (i, j, k) tile product, OpenBLAS single-threaded in each
 * CPU worker, under STARPU_SCHED (dmda: history-based model, calibrated by a first
 * untimed run), then REPETITIONS timed runs over the same tiles. Prints each as
 * "starpu_gemm_gflops_run_<i> <value>" and the best as "starpu_gemm_gflops <value>", then
 * the OpenBLAS core type its kernels used as "starpu_openblas_core <name>".
 * Usage: gemm SIDE TILE REPETITIONS. Built by run_starpu_bench.sh. */
#include <cblas.h>
#include <starpu.h>
#include <stdio.h>
#include <stdlib.h>

extern void openblas_set_num_threads(int);
extern char *openblas_get_corename(void);

static void gemm_cpu(void *buffers[], void *arg) {
  (void)arg;
  const double *a = (const double *)STARPU_MATRIX_GET_PTR(buffers[0]);
  const double *b = (const double *)STARPU_MATRIX_GET_PTR(buffers[1]);
  double *c = (double *)STARPU_MATRIX_GET_PTR(buffers[2]);
  const int n = (int)STARPU_MATRIX_GET_NX(buffers[2]);
  const int ld = (int)STARPU_MATRIX_GET_LD(buffers[2]);
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, ld, b, ld, 1.0, c, ld);
}

static struct starpu_perfmodel gemm_model = {
    .type = STARPU_HISTORY_BASED,
    .symbol = "hetsched_bench_dgemm",
};

static struct starpu_codelet gemm_codelet = {
    .cpu_funcs = {gemm_cpu},
    .nbuffers = 3,
    .modes = {STARPU_R, STARPU_R, STARPU_RW},
    .model = &gemm_model,
    .name = "hetsched_bench_dgemm",
};

int main(int argc, char **argv) {
  const unsigned side = argc > 1 ? (unsigned)atoi(argv[1]) : 2048;
  const unsigned tile = argc > 2 ? (unsigned)atoi(argv[2]) : 256;
  const unsigned t = side / tile;
  const int repetitions = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 1;
  openblas_set_num_threads(1);
  if (starpu_init(NULL) != 0) return 77;
  starpu_data_handle_t *a = malloc(sizeof(*a) * t * t), *b = malloc(sizeof(*b) * t * t),
                       *c = malloc(sizeof(*c) * t * t);
  double **storage = malloc(sizeof(double *) * 3 * t * t);
  for (unsigned i = 0; i < 3 * t * t; ++i) {
    storage[i] = malloc(sizeof(double) * tile * tile);
    for (unsigned k = 0; k < tile * tile; ++k) storage[i][k] = (double)((i + k) % 17) / 17.0;
  }
  for (unsigned i = 0; i < t * t; ++i) {
    starpu_matrix_data_register(&a[i], STARPU_MAIN_RAM, (uintptr_t)storage[i], tile, tile, tile,
                                sizeof(double));
    starpu_matrix_data_register(&b[i], STARPU_MAIN_RAM, (uintptr_t)storage[t * t + i], tile, tile,
                                tile, sizeof(double));
    starpu_matrix_data_register(&c[i], STARPU_MAIN_RAM, (uintptr_t)storage[2 * t * t + i], tile,
                                tile, tile, sizeof(double));
  }
  const double flops = 2.0 * side * (double)side * side;
  double best = 0;
  for (int round = 0; round <= repetitions; ++round) { /* round 0 calibrates dmda's model */
    const double start = starpu_timing_now();
    for (unsigned k = 0; k < t; ++k)
      for (unsigned i = 0; i < t; ++i)
        for (unsigned j = 0; j < t; ++j)
          if (starpu_task_insert(&gemm_codelet, STARPU_R, a[i * t + k], STARPU_R, b[k * t + j],
                                 STARPU_RW, c[i * t + j], 0) != 0)
            return 1;
    starpu_task_wait_for_all();
    const double seconds = (starpu_timing_now() - start) / 1e6;
    if (round == 0) continue;
    printf("starpu_gemm_gflops_run_%d %.3f\n", round, flops / seconds / 1e9);
    if (flops / seconds / 1e9 > best) best = flops / seconds / 1e9;
  }
  printf("starpu_gemm_gflops %.3f\n", best);
  /* Which OpenBLAS kernels ran (OPENBLAS_CORETYPE, inherited from hetsched's environment). */
  printf("starpu_openblas_core %s\n", openblas_get_corename());
  for (unsigned i = 0; i < t * t; ++i) {
    starpu_data_unregister(a[i]);
    starpu_data_unregister(b[i]);
    starpu_data_unregister(c[i]);
  }
  starpu_shutdown();
  return 0;
}
