// RuntimeDag: a DAG the local runtime can execute for real — a one-job Workload
// (what the scheduler sees: kernel class, flops, bytes of each task) paired with
// each task's KernelCall and the data handles it touches. Edges are inferred from
// the accesses in submission order (DataflowJob: StarPU's implicit data dependencies).
//
// Builders: tiled GEMM (C += A·B over T×T tiles), tiled Cholesky (the right-looking
// POTRF/TRSM/SYRK/GEMM DAG of StarPU's and PLASMA's examples), independent empty
// tasks (runtime overhead), and a mixed DAG of kernels that favour different devices.
// DAGs described in a file are read by runtime_dag_file.hpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "hetsched/runtime/kernel_library.hpp"
#include "hetsched/workload/dataflow_job.hpp"
#include "hetsched/workload/workload.hpp"

namespace hetsched {

class RuntimeDag {
 public:
  RuntimeDag();
  RuntimeDag(const RuntimeDag&) = delete;
  RuntimeDag& operator=(const RuntimeDag&) = delete;

  // Adds a task running `call` after the tasks whose accesses it conflicts with, and
  // after the earlier tasks listed in `after` (ordering edges carrying no data).
  std::uint32_t add_task(std::string name, const KernelCall& call, double graph_edges = 0,
                         std::span<const std::uint32_t> after = {});

  const Workload& workload() const { return workload_; }
  const std::vector<KernelCall>& calls() const { return calls_; }
  DataRegistry& data() { return data_; }
  const DataRegistry& data() const { return data_; }

 private:
  Workload workload_;
  DataflowJob dataflow_;  // builds workload_'s one job
  std::vector<KernelCall> calls_;
  DataRegistry data_;
};

// A square matrix of tiles × tiles blocks, each tile_size² doubles in its own handle.
struct TiledMatrix {
  std::uint32_t tiles = 0;
  std::uint32_t tile_size = 0;
  std::vector<HandleId> handles;  // row-major over tiles
  HandleId tile(std::uint32_t i, std::uint32_t j) const { return handles[i * tiles + j]; }
  std::size_t side() const { return std::size_t(tiles) * tile_size; }
};

TiledMatrix add_tiled_matrix(DataRegistry& data, std::uint32_t tiles, std::uint32_t tile_size);
// Dense row-major copy of the tiled matrix, and the reverse.
std::vector<double> gather_matrix(const DataRegistry& data, const TiledMatrix& m);
void scatter_matrix(DataRegistry& data, const TiledMatrix& m, const std::vector<double>& dense);

struct TiledCholesky {
  std::unique_ptr<RuntimeDag> dag;
  TiledMatrix matrix;            // input A; the lower triangle holds L after the run
  std::vector<double> original;  // A as it was, for checking L·Lᵀ = A
};
// A symmetric positive definite matrix (diagonally dominant, from the seed) and its DAG.
TiledCholesky make_tiled_cholesky(std::uint32_t tiles, std::uint32_t tile_size, std::uint64_t seed);

struct TiledGemm {
  std::unique_ptr<RuntimeDag> dag;
  TiledMatrix a, b, c;
};
// C += A·B with random A, B and zero C; tiles³ gemm tasks, each C tile's chain ordered.
TiledGemm make_tiled_gemm(std::uint32_t tiles, std::uint32_t tile_size, std::uint64_t seed);

// `count` independent tasks that do nothing.
std::unique_ptr<RuntimeDag> make_empty_dag(std::uint32_t count);

// Independent chains of stencil, reduction, sort, BFS and GEMM tasks over their own
// data: kernels that favour different devices, for placement comparisons.
std::unique_ptr<RuntimeDag> make_mixed_dag(std::uint32_t chains, std::uint32_t size,
                                           std::uint64_t seed);

// A random graph in CSR form (int32: n+1 offsets then the columns), connected
// through a ring plus `extra_per_vertex` random edges per vertex; returns edge count.
std::size_t fill_random_graph(std::vector<std::int32_t>& csr, std::uint32_t vertices,
                              std::uint32_t extra_per_vertex, std::uint64_t seed);

}  // namespace hetsched
