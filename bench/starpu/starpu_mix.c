/* StarPU peer for `hetsched bench runtime`: the CPU + OpenCL mix — per chain a
 * 5-point stencil twice, a reduction, a sort, a BFS and a GEMM (the same DAG as
 * hetsched's make_mixed_dag, with the same OpenCL kernels, read from the .cl file
 * given as argv[3]), under STARPU_SCHED (dmda) with history-based models, on
 * STARPU_NCPU CPU workers and the OpenCL devices (STARPU_OPENCL_ON_CPUS=1 lets it
 * use PoCL's CPU device). Two untimed rounds calibrate the models; the third is
 * timed. Prints "starpu_mix_makespan_seconds <value>". Built by run_starpu_bench.sh. */
#include <cblas.h>
#include <starpu.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void openblas_set_num_threads(int);
static struct starpu_opencl_program programs;

/* ---- CPU implementations ---- */
static void stencil_cpu(void *b[], void *arg) {
  int n;
  starpu_codelet_unpack_args(arg, &n);
  const double *in = (const double *)STARPU_VECTOR_GET_PTR(b[0]);
  double *out = (double *)STARPU_VECTOR_GET_PTR(b[1]);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int c = i * n + j;
      out[c] = (i == 0 || j == 0 || i == n - 1 || j == n - 1)
                   ? in[c]
                   : 0.2 * (in[c] + in[c - n] + in[c + n] + in[c - 1] + in[c + 1]);
    }
}
static void reduction_cpu(void *b[], void *arg) {
  int n;
  starpu_codelet_unpack_args(arg, &n);
  const double *in = (const double *)STARPU_VECTOR_GET_PTR(b[0]);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += in[i];
  ((double *)STARPU_VECTOR_GET_PTR(b[1]))[0] = sum;
}
static int compare_keys(const void *a, const void *b) {
  const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}
static void sort_cpu(void *b[], void *arg) {
  int n;
  starpu_codelet_unpack_args(arg, &n);
  qsort((void *)STARPU_VECTOR_GET_PTR(b[0]), (size_t)n, sizeof(uint32_t), compare_keys);
}
static void bfs_cpu(void *b[], void *arg) {
  int n;
  starpu_codelet_unpack_args(arg, &n);
  const int32_t *g = (const int32_t *)STARPU_VECTOR_GET_PTR(b[0]);
  int32_t *level = (int32_t *)STARPU_VECTOR_GET_PTR(b[1]);
  const int32_t *off = g, *col = g + n + 1;
  int32_t *queue = malloc(sizeof(int32_t) * (size_t)n);
  for (int v = 0; v < n; ++v) level[v] = -1;
  int head = 0, tail = 0;
  level[0] = 0;
  queue[tail++] = 0;
  while (head < tail) {
    const int v = queue[head++];
    for (int e = off[v]; e < off[v + 1]; ++e)
      if (level[col[e]] == -1) level[col[e]] = level[v] + 1, queue[tail++] = col[e];
  }
  free(queue);
}
static void gemm_cpu(void *b[], void *arg) {
  int n;
  starpu_codelet_unpack_args(arg, &n);
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0,
              (const double *)STARPU_VECTOR_GET_PTR(b[0]), n,
              (const double *)STARPU_VECTOR_GET_PTR(b[1]), n, 1.0,
              (double *)STARPU_VECTOR_GET_PTR(b[2]), n);
}

/* ---- OpenCL implementations (the hetsched kernels) ---- */
static size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }
#define CL_BEGIN(name)                                                              \
  int n;                                                                            \
  starpu_codelet_unpack_args(arg, &n);                                              \
  const int devid = starpu_worker_get_devid(starpu_worker_get_id_check());          \
  cl_kernel kernel;                                                                 \
  cl_command_queue queue;                                                           \
  if (starpu_opencl_load_kernel(&kernel, &queue, &programs, name, devid) != CL_SUCCESS) \
    STARPU_ABORT();
#define MEM(i) ((cl_mem)STARPU_VECTOR_GET_DEV_HANDLE(b[i]))

static void stencil_cl(void *b[], void *arg) {
  CL_BEGIN("stencil_5point");
  cl_mem in = MEM(0), out = MEM(1);
  clSetKernelArg(kernel, 0, sizeof n, &n);
  clSetKernelArg(kernel, 1, sizeof in, &in);
  clSetKernelArg(kernel, 2, sizeof out, &out);
  size_t global[2] = {round_up((size_t)n, 16), round_up((size_t)n, 16)};
  clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, NULL, 0, NULL, NULL);
  clFinish(queue);
  starpu_opencl_release_kernel(kernel);
}
static cl_mem scratch_buffer(int devid, size_t bytes) {
  cl_context context;
  starpu_opencl_get_context(devid, &context);
  cl_int err;
  return clCreateBuffer(context, CL_MEM_READ_WRITE, bytes, NULL, &err);
}
static void reduction_cl(void *b[], void *arg) {
  CL_BEGIN("reduce_partial");
  cl_mem in = MEM(0), out = MEM(1);
  const size_t group = 64, groups = 256;
  cl_mem partial = scratch_buffer(devid, groups * sizeof(double));
  clSetKernelArg(kernel, 0, sizeof n, &n);
  clSetKernelArg(kernel, 1, sizeof in, &in);
  clSetKernelArg(kernel, 2, sizeof partial, &partial);
  clSetKernelArg(kernel, 3, group * sizeof(double), NULL);
  size_t global = groups * group, local = group;
  clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL);
  cl_kernel final_kernel;
  starpu_opencl_load_kernel(&final_kernel, &queue, &programs, "reduce_final", devid);
  const int count = (int)groups;
  clSetKernelArg(final_kernel, 0, sizeof count, &count);
  clSetKernelArg(final_kernel, 1, sizeof partial, &partial);
  clSetKernelArg(final_kernel, 2, sizeof out, &out);
  size_t one = 1;
  clEnqueueNDRangeKernel(queue, final_kernel, 1, NULL, &one, &one, 0, NULL, NULL);
  clFinish(queue);
  clReleaseMemObject(partial);
  starpu_opencl_release_kernel(final_kernel);
  starpu_opencl_release_kernel(kernel);
}
static void sort_cl(void *b[], void *arg) {
  CL_BEGIN("bitonic_step");
  cl_mem keys = MEM(0);
  clSetKernelArg(kernel, 0, sizeof keys, &keys);
  size_t global = (size_t)n;
  for (cl_uint size = 2; size <= (cl_uint)n; size <<= 1)
    for (cl_uint stride = size >> 1; stride > 0; stride >>= 1) {
      clSetKernelArg(kernel, 1, sizeof stride, &stride);
      clSetKernelArg(kernel, 2, sizeof size, &size);
      clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
    }
  clFinish(queue);
  starpu_opencl_release_kernel(kernel);
}
static void bfs_cl(void *b[], void *arg) {
  CL_BEGIN("bfs_init");
  cl_mem graph = MEM(0), level = MEM(1);
  cl_mem changed = scratch_buffer(devid, sizeof(cl_int));
  clSetKernelArg(kernel, 0, sizeof n, &n);
  clSetKernelArg(kernel, 1, sizeof level, &level);
  size_t global = (size_t)n;
  clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
  cl_kernel step;
  starpu_opencl_load_kernel(&step, &queue, &programs, "bfs_level", devid);
  clSetKernelArg(step, 0, sizeof n, &n);
  clSetKernelArg(step, 2, sizeof graph, &graph);
  clSetKernelArg(step, 3, sizeof level, &level);
  clSetKernelArg(step, 4, sizeof changed, &changed);
  for (cl_int depth = 0; depth < n; ++depth) {
    cl_int flag = 0;
    clEnqueueWriteBuffer(queue, changed, CL_FALSE, 0, sizeof flag, &flag, 0, NULL, NULL);
    clSetKernelArg(step, 1, sizeof depth, &depth);
    clEnqueueNDRangeKernel(queue, step, 1, NULL, &global, NULL, 0, NULL, NULL);
    clEnqueueReadBuffer(queue, changed, CL_TRUE, 0, sizeof flag, &flag, 0, NULL, NULL);
    if (!flag) break;
  }
  clReleaseMemObject(changed);
  starpu_opencl_release_kernel(step);
  starpu_opencl_release_kernel(kernel);
}
static void gemm_cl(void *b[], void *arg) {
  CL_BEGIN("gemm_tiled");
  cl_mem a = MEM(0), bb = MEM(1), c = MEM(2);
  const double alpha = 1.0;
  const int zero = 0;
  clSetKernelArg(kernel, 0, sizeof n, &n);
  clSetKernelArg(kernel, 1, sizeof alpha, &alpha);
  clSetKernelArg(kernel, 2, sizeof zero, &zero);
  clSetKernelArg(kernel, 3, sizeof zero, &zero);
  clSetKernelArg(kernel, 4, sizeof a, &a);
  clSetKernelArg(kernel, 5, sizeof bb, &bb);
  clSetKernelArg(kernel, 6, sizeof c, &c);
  size_t global[2] = {round_up((size_t)n, 16), round_up((size_t)n, 16)}, local[2] = {16, 16};
  clEnqueueNDRangeKernel(queue, kernel, 2, NULL, global, local, 0, NULL, NULL);
  clFinish(queue);
  starpu_opencl_release_kernel(kernel);
}

#define MODEL(var, sym) static struct starpu_perfmodel var = {.type = STARPU_HISTORY_BASED, .symbol = sym}
MODEL(stencil_model, "hetsched_mix_stencil");
MODEL(reduction_model, "hetsched_mix_reduction");
MODEL(sort_model, "hetsched_mix_sort");
MODEL(bfs_model, "hetsched_mix_bfs");
MODEL(gemm_model, "hetsched_mix_gemm");
static struct starpu_codelet stencil_cl_def = {.cpu_funcs = {stencil_cpu}, .opencl_funcs = {stencil_cl},
    .nbuffers = 2, .modes = {STARPU_R, STARPU_W}, .model = &stencil_model, .name = "stencil"};
static struct starpu_codelet reduction_cl_def = {.cpu_funcs = {reduction_cpu}, .opencl_funcs = {reduction_cl},
    .nbuffers = 2, .modes = {STARPU_R, STARPU_W}, .model = &reduction_model, .name = "reduction"};
static struct starpu_codelet sort_cl_def = {.cpu_funcs = {sort_cpu}, .opencl_funcs = {sort_cl},
    .nbuffers = 1, .modes = {STARPU_RW}, .model = &sort_model, .name = "sort"};
static struct starpu_codelet bfs_cl_def = {.cpu_funcs = {bfs_cpu}, .opencl_funcs = {bfs_cl},
    .nbuffers = 2, .modes = {STARPU_R, STARPU_W}, .model = &bfs_model, .name = "bfs"};
static struct starpu_codelet gemm_cl_def = {.cpu_funcs = {gemm_cpu}, .opencl_funcs = {gemm_cl},
    .nbuffers = 3, .modes = {STARPU_R, STARPU_R, STARPU_RW}, .model = &gemm_model, .name = "gemm"};

static starpu_data_handle_t vector(void *ptr, size_t count, size_t elem) {
  starpu_data_handle_t h;
  starpu_vector_data_register(&h, STARPU_MAIN_RAM, (uintptr_t)ptr, (uint32_t)count, elem);
  return h;
}

int main(int argc, char **argv) {
  const int chains = argc > 1 ? atoi(argv[1]) : 8;
  const int size = argc > 2 ? atoi(argv[2]) : 128;
  const char *kernels = argc > 3 ? argv[3] : "kernels.cl";
  openblas_set_num_threads(1);
  if (starpu_init(NULL) != 0) return 77;
  if (starpu_opencl_worker_get_count() > 0 &&
      starpu_opencl_load_opencl_from_file(kernels, &programs, NULL) != 0)
    return 78;
  int keys = 1;
  while (keys < size * size) keys <<= 1;
  const int vertices = size * size, g = size / 2 > 16 ? size / 2 : 16;
  double seconds = 0;
  srand(2);
  for (int round = 0; round < 3; ++round) {
    starpu_data_handle_t *handles = malloc(sizeof(*handles) * (size_t)chains * 9);
    void **memory = malloc(sizeof(void *) * (size_t)chains * 9);
    for (int c = 0; c < chains; ++c) {
      double *ga = malloc(sizeof(double) * vertices), *gb = malloc(sizeof(double) * vertices);
      for (int i = 0; i < vertices; ++i) ga[i] = rand() / (double)RAND_MAX, gb[i] = 0;
      double *sum = malloc(sizeof(double));
      uint32_t *k = malloc(sizeof(uint32_t) * keys);
      for (int i = 0; i < keys; ++i) k[i] = (uint32_t)rand();
      const int edges = vertices * 5;
      int32_t *graph = malloc(sizeof(int32_t) * (size_t)(vertices + 1 + edges));
      for (int v = 0; v <= vertices; ++v) graph[v] = 5 * v;
      for (int v = 0; v < vertices; ++v) {
        graph[vertices + 1 + 5 * v] = (v + 1) % vertices;
        for (int e = 1; e < 5; ++e) graph[vertices + 1 + 5 * v + e] = rand() % vertices;
      }
      int32_t *levels = malloc(sizeof(int32_t) * vertices);
      double *a = malloc(sizeof(double) * g * g), *bm = malloc(sizeof(double) * g * g),
             *out = calloc((size_t)g * g, sizeof(double));
      for (int i = 0; i < g * g; ++i) a[i] = rand() / (double)RAND_MAX, bm[i] = rand() / (double)RAND_MAX;
      void *blocks[9] = {ga, gb, sum, k, graph, levels, a, bm, out};
      for (int i = 0; i < 9; ++i) memory[c * 9 + i] = blocks[i];
      starpu_data_handle_t *h = handles + c * 9;
      h[0] = vector(ga, vertices, sizeof(double));
      h[1] = vector(gb, vertices, sizeof(double));
      h[2] = vector(sum, 1, sizeof(double));
      h[3] = vector(k, keys, sizeof(uint32_t));
      h[4] = vector(graph, (size_t)(vertices + 1 + edges), sizeof(int32_t));
      h[5] = vector(levels, vertices, sizeof(int32_t));
      h[6] = vector(a, (size_t)g * g, sizeof(double));
      h[7] = vector(bm, (size_t)g * g, sizeof(double));
      h[8] = vector(out, (size_t)g * g, sizeof(double));
    }
    const double start = starpu_timing_now();
    for (int c = 0; c < chains; ++c) {
      starpu_data_handle_t *h = handles + c * 9;
      starpu_task_insert(&stencil_cl_def, STARPU_VALUE, &size, sizeof size, STARPU_R, h[0], STARPU_W, h[1], 0);
      starpu_task_insert(&stencil_cl_def, STARPU_VALUE, &size, sizeof size, STARPU_R, h[1], STARPU_W, h[0], 0);
      starpu_task_insert(&reduction_cl_def, STARPU_VALUE, &vertices, sizeof vertices, STARPU_R, h[0], STARPU_W, h[2], 0);
      starpu_task_insert(&sort_cl_def, STARPU_VALUE, &keys, sizeof keys, STARPU_RW, h[3], 0);
      starpu_task_insert(&bfs_cl_def, STARPU_VALUE, &vertices, sizeof vertices, STARPU_R, h[4], STARPU_W, h[5], 0);
      starpu_task_insert(&gemm_cl_def, STARPU_VALUE, &g, sizeof g, STARPU_R, h[6], STARPU_R, h[7], STARPU_RW, h[8], 0);
    }
    starpu_task_wait_for_all();
    /* results back in main memory, as hetsched's write-back does */
    for (int i = 0; i < chains * 9; ++i) starpu_data_unregister(handles[i]);
    seconds = (starpu_timing_now() - start) / 1e6;
    for (int i = 0; i < chains * 9; ++i) free(memory[i]);
    free(handles);
    free(memory);
  }
  printf("starpu_mix_makespan_seconds %.6f\n", seconds);
  starpu_shutdown();
  return 0;
}
