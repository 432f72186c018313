#include "hetsched/runtime/runtime_dag.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "hetsched/core/rng.hpp"

namespace hetsched {

RuntimeDag::RuntimeDag()
    : workload_{.jobs = {Job{.name = "runtime-dag", .family = "scientific"}}},
      dataflow_(workload_.jobs.front()) {}

std::uint32_t RuntimeDag::add_task(std::string name, const KernelCall& call, double graph_edges,
                                   std::span<const std::uint32_t> after) {
  Task task;
  task.name = std::move(name);
  task.kernel = kernel_class_of(call.kernel);
  task.precision = Precision::fp64;
  task.flops = kernel_flops(call.kernel, call.n, graph_edges);
  std::vector<DataAccess> accesses;
  for (std::size_t i = 0; i < call.handle_count; ++i) {
    const double bytes = double(data_.bytes(call.handles[i]));
    accesses.push_back(DataAccess{call.handles[i], bytes, call.access[i]});
    task.bytes += bytes;
  }
  task.memory_bytes = task.bytes;
  calls_.push_back(call);
  return dataflow_.add_task(std::move(task), accesses, after);
}

namespace {
KernelCall make_call(KernelId kernel, std::uint32_t n, std::initializer_list<HandleId> handles) {
  KernelCall call;
  call.kernel = kernel;
  call.n = n;
  const auto signature = kernel_signature(kernel);
  for (HandleId h : handles) {
    call.access[call.handle_count] = signature[call.handle_count];
    call.handles[call.handle_count++] = h;
  }
  return call;
}
}  // namespace

TiledMatrix add_tiled_matrix(DataRegistry& data, std::uint32_t tiles, std::uint32_t tile_size) {
  TiledMatrix m{tiles, tile_size, {}};
  for (std::uint32_t t = 0; t < tiles * tiles; ++t)
    m.handles.push_back(data.add(std::size_t(tile_size) * tile_size * sizeof(double)));
  return m;
}

std::vector<double> gather_matrix(const DataRegistry& data, const TiledMatrix& m) {
  const std::size_t n = m.side(), b = m.tile_size;
  std::vector<double> dense(n * n);
  for (std::uint32_t ti = 0; ti < m.tiles; ++ti)
    for (std::uint32_t tj = 0; tj < m.tiles; ++tj) {
      const auto tile = data.view<double>(m.tile(ti, tj));
      for (std::size_t r = 0; r < b; ++r)
        std::copy_n(tile.data() + r * b, b, dense.data() + (ti * b + r) * n + tj * b);
    }
  return dense;
}

void scatter_matrix(DataRegistry& data, const TiledMatrix& m, const std::vector<double>& dense) {
  const std::size_t n = m.side(), b = m.tile_size;
  for (std::uint32_t ti = 0; ti < m.tiles; ++ti)
    for (std::uint32_t tj = 0; tj < m.tiles; ++tj) {
      auto tile = data.view<double>(m.tile(ti, tj));
      for (std::size_t r = 0; r < b; ++r)
        std::copy_n(dense.data() + (ti * b + r) * n + tj * b, b, tile.data() + r * b);
    }
}

TiledCholesky make_tiled_cholesky(std::uint32_t tiles, std::uint32_t tile_size,
                                  std::uint64_t seed) {
  TiledCholesky result;
  result.dag = std::make_unique<RuntimeDag>();
  RuntimeDag& dag = *result.dag;
  result.matrix = add_tiled_matrix(dag.data(), tiles, tile_size);
  const std::size_t n = result.matrix.side();
  Rng rng(seed);
  std::vector<double> a(n * n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) a[i * n + j] = a[j * n + i] = rng.uniform(-1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) a[i * n + i] += double(n);  // diagonally dominant → SPD
  scatter_matrix(dag.data(), result.matrix, a);
  result.original = std::move(a);
  const TiledMatrix& m = result.matrix;
  for (std::uint32_t k = 0; k < tiles; ++k) {
    dag.add_task(fmt::format("potrf_{}", k), make_call(KernelId::potrf, tile_size, {m.tile(k, k)}));
    for (std::uint32_t i = k + 1; i < tiles; ++i)
      dag.add_task(fmt::format("trsm_{}_{}", i, k),
                   make_call(KernelId::trsm, tile_size, {m.tile(k, k), m.tile(i, k)}));
    for (std::uint32_t i = k + 1; i < tiles; ++i) {
      dag.add_task(fmt::format("syrk_{}_{}", i, k),
                   make_call(KernelId::syrk, tile_size, {m.tile(i, k), m.tile(i, i)}));
      for (std::uint32_t j = k + 1; j < i; ++j)
        dag.add_task(
            fmt::format("gemm_nt_{}_{}_{}", i, j, k),
            make_call(KernelId::gemm_nt, tile_size, {m.tile(i, k), m.tile(j, k), m.tile(i, j)}));
    }
  }
  return result;
}

TiledGemm make_tiled_gemm(std::uint32_t tiles, std::uint32_t tile_size, std::uint64_t seed) {
  TiledGemm result;
  result.dag = std::make_unique<RuntimeDag>();
  RuntimeDag& dag = *result.dag;
  result.a = add_tiled_matrix(dag.data(), tiles, tile_size);
  result.b = add_tiled_matrix(dag.data(), tiles, tile_size);
  result.c = add_tiled_matrix(dag.data(), tiles, tile_size);
  Rng rng(seed);
  for (const TiledMatrix* m : {&result.a, &result.b})
    for (HandleId h : m->handles)
      for (double& x : dag.data().view<double>(h)) x = rng.uniform(-1.0, 1.0);
  for (std::uint32_t k = 0; k < tiles; ++k)
    for (std::uint32_t i = 0; i < tiles; ++i)
      for (std::uint32_t j = 0; j < tiles; ++j)
        dag.add_task(fmt::format("gemm_{}_{}_{}", i, j, k),
                     make_call(KernelId::gemm, tile_size,
                               {result.a.tile(i, k), result.b.tile(k, j), result.c.tile(i, j)}));
  return result;
}

std::unique_ptr<RuntimeDag> make_empty_dag(std::uint32_t count) {
  auto dag = std::make_unique<RuntimeDag>();
  for (std::uint32_t i = 0; i < count; ++i) dag->add_task(fmt::format("empty_{}", i), KernelCall{});
  return dag;
}

std::size_t fill_random_graph(std::vector<std::int32_t>& csr, std::uint32_t vertices,
                              std::uint32_t extra_per_vertex, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::vector<std::int32_t>> adjacency(vertices);
  for (std::uint32_t v = 0; v < vertices; ++v) {
    if (vertices > 1) adjacency[v].push_back(std::int32_t((v + 1) % vertices));
    for (std::uint32_t e = 0; e < extra_per_vertex; ++e)
      adjacency[v].push_back(std::int32_t(rng.below(vertices)));
  }
  csr.assign(vertices + 1, 0);
  for (std::uint32_t v = 0; v < vertices; ++v)
    csr[v + 1] = csr[v] + std::int32_t(adjacency[v].size());
  for (const auto& list : adjacency) csr.insert(csr.end(), list.begin(), list.end());
  return csr.size() - (vertices + 1);
}

std::unique_ptr<RuntimeDag> make_mixed_dag(std::uint32_t chains, std::uint32_t size,
                                           std::uint64_t seed) {
  auto dag = std::make_unique<RuntimeDag>();
  DataRegistry& data = dag->data();
  Rng rng(seed);
  std::uint32_t keys = 1;
  while (keys < size * size) keys <<= 1;
  for (std::uint32_t c = 0; c < chains; ++c) {
    // stencil: two grids ping-ponged
    const HandleId grid_a = data.add(std::size_t(size) * size * sizeof(double));
    const HandleId grid_b = data.add(std::size_t(size) * size * sizeof(double));
    for (double& x : data.view<double>(grid_a)) x = rng.uniform();
    dag->add_task(fmt::format("stencil_{}_0", c),
                  make_call(KernelId::stencil, size, {grid_a, grid_b}));
    dag->add_task(fmt::format("stencil_{}_1", c),
                  make_call(KernelId::stencil, size, {grid_b, grid_a}));
    const HandleId sum = data.add(sizeof(double));
    dag->add_task(fmt::format("reduction_{}", c),
                  make_call(KernelId::reduction, size * size, {grid_a, sum}));
    // sort
    const HandleId sort_keys = data.add(std::size_t(keys) * sizeof(std::uint32_t));
    for (auto& k : data.view<std::uint32_t>(sort_keys)) k = std::uint32_t(rng.next_u64());
    dag->add_task(fmt::format("sort_{}", c), make_call(KernelId::sort, keys, {sort_keys}));
    // BFS on a random graph
    std::vector<std::int32_t> csr;
    const std::size_t edges = fill_random_graph(csr, size * size, 4, rng.next_u64());
    const HandleId graph = data.add(csr.size() * sizeof(std::int32_t));
    std::memcpy(data.data(graph), csr.data(), csr.size() * sizeof(std::int32_t));
    const HandleId levels = data.add(std::size_t(size) * size * sizeof(std::int32_t));
    dag->add_task(fmt::format("bfs_{}", c), make_call(KernelId::bfs, size * size, {graph, levels}),
                  double(edges));
    // GEMM on tiles of `size`/2 (at least 16)
    const std::uint32_t g = std::max<std::uint32_t>(16, size / 2);
    const HandleId a = data.add(std::size_t(g) * g * sizeof(double));
    const HandleId b = data.add(std::size_t(g) * g * sizeof(double));
    const HandleId out = data.add(std::size_t(g) * g * sizeof(double));
    for (HandleId h : {a, b})
      for (double& x : data.view<double>(h)) x = rng.uniform(-1.0, 1.0);
    dag->add_task(fmt::format("gemm_{}", c), make_call(KernelId::gemm, g, {a, b, out}));
  }
  return dag;
}

}  // namespace hetsched
