#include "hetsched/workload/tiled_factorization.hpp"

#include <fmt/format.h>

#include <array>

#include "hetsched/workload/dataflow_job.hpp"

namespace hetsched {

std::string_view to_string(TiledFactorization kind) {
  switch (kind) {
    case TiledFactorization::cholesky:
      return "cholesky";
    case TiledFactorization::lu:
      return "lu";
    case TiledFactorization::qr:
      return "qr";
  }
  return "?";
}

const std::vector<std::string>& tiled_factorization_names() {
  static const std::vector<std::string> names{"cholesky", "lu", "qr"};
  return names;
}

std::optional<TiledFactorization> parse_tiled_factorization(std::string_view text) {
  for (auto kind : {TiledFactorization::cholesky, TiledFactorization::lu, TiledFactorization::qr})
    if (to_string(kind) == text) return kind;
  return std::nullopt;
}

namespace {

// Builds one factorization's job: tiles are data 0 … tiles²−1 (row-major), QR's
// triangular factors of the Householder blocks the tiles² after them.
class TileJob {
 public:
  TileJob(Job& job, const TiledFactorizationParams& p)
      : dataflow_(job), tiles_(p.tiles), b_(p.tile_size) {}

  std::uint32_t tile(std::uint32_t i, std::uint32_t j) const { return i * tiles_ + j; }
  std::uint32_t factor(std::uint32_t i, std::uint32_t j) const {
    return tiles_ * tiles_ + i * tiles_ + j;
  }
  double tile_bytes() const { return double(b_) * b_ * 8; }
  // QR's T factors: inner blocking of a quarter tile.
  double factor_bytes() const { return tile_bytes() / 4; }

  // `flops_per_b3`: the kernel's work over tile_size³.
  void add(std::string name, KernelClass kernel, double flops_per_b3,
           std::initializer_list<DataAccess> accesses) {
    Task task;
    task.name = std::move(name);
    task.kernel = kernel;
    task.precision = Precision::fp64;
    task.flops = flops_per_b3 * double(b_) * b_ * b_;
    for (const DataAccess& a : accesses) task.bytes += a.bytes;
    task.memory_bytes = task.bytes;
    dataflow_.add_task(std::move(task), std::span(accesses.begin(), accesses.size()));
  }
  DataAccess read(std::uint32_t datum) const { return {datum, bytes_of(datum), Access::read}; }
  DataAccess write(std::uint32_t datum) const { return {datum, bytes_of(datum), Access::write}; }
  DataAccess update(std::uint32_t datum) const {
    return {datum, bytes_of(datum), Access::read_write};
  }

 private:
  double bytes_of(std::uint32_t datum) const {
    return datum < tiles_ * tiles_ ? tile_bytes() : factor_bytes();
  }
  DataflowJob dataflow_;
  std::uint32_t tiles_;
  std::uint32_t b_;
};

void add_cholesky(TileJob& m, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k) {
    m.add(fmt::format("potrf_{}", k), KernelClass::branchy, 1.0 / 3, {m.update(m.tile(k, k))});
    for (std::uint32_t i = k + 1; i < n; ++i)
      m.add(fmt::format("trsm_{}_{}", i, k), KernelClass::dense_matmul, 1,
            {m.read(m.tile(k, k)), m.update(m.tile(i, k))});
    for (std::uint32_t i = k + 1; i < n; ++i) {
      m.add(fmt::format("syrk_{}_{}", i, k), KernelClass::dense_matmul, 1,
            {m.read(m.tile(i, k)), m.update(m.tile(i, i))});
      for (std::uint32_t j = k + 1; j < i; ++j)
        m.add(fmt::format("gemm_nt_{}_{}_{}", i, j, k), KernelClass::dense_matmul, 2,
              {m.read(m.tile(i, k)), m.read(m.tile(j, k)), m.update(m.tile(i, j))});
    }
  }
}

void add_lu(TileJob& m, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k) {
    m.add(fmt::format("getrf_{}", k), KernelClass::branchy, 2.0 / 3, {m.update(m.tile(k, k))});
    for (std::uint32_t j = k + 1; j < n; ++j)
      m.add(fmt::format("trsm_u_{}_{}", k, j), KernelClass::dense_matmul, 1,
            {m.read(m.tile(k, k)), m.update(m.tile(k, j))});
    for (std::uint32_t i = k + 1; i < n; ++i)
      m.add(fmt::format("trsm_l_{}_{}", i, k), KernelClass::dense_matmul, 1,
            {m.read(m.tile(k, k)), m.update(m.tile(i, k))});
    for (std::uint32_t i = k + 1; i < n; ++i)
      for (std::uint32_t j = k + 1; j < n; ++j)
        m.add(fmt::format("gemm_{}_{}_{}", i, j, k), KernelClass::dense_matmul, 2,
              {m.read(m.tile(i, k)), m.read(m.tile(k, j)), m.update(m.tile(i, j))});
  }
}

void add_qr(TileJob& m, std::uint32_t n) {
  for (std::uint32_t k = 0; k < n; ++k) {
    m.add(fmt::format("geqrt_{}", k), KernelClass::branchy, 4.0 / 3,
          {m.update(m.tile(k, k)), m.write(m.factor(k, k))});
    for (std::uint32_t j = k + 1; j < n; ++j)
      m.add(fmt::format("ormqr_{}_{}", k, j), KernelClass::dense_matmul, 2,
            {m.read(m.tile(k, k)), m.read(m.factor(k, k)), m.update(m.tile(k, j))});
    for (std::uint32_t i = k + 1; i < n; ++i) {
      m.add(fmt::format("tsqrt_{}_{}", i, k), KernelClass::branchy, 2,
            {m.update(m.tile(k, k)), m.update(m.tile(i, k)), m.write(m.factor(i, k))});
      for (std::uint32_t j = k + 1; j < n; ++j)
        m.add(fmt::format("tsmqr_{}_{}_{}", i, j, k), KernelClass::dense_matmul, 4,
              {m.read(m.tile(i, k)), m.read(m.factor(i, k)), m.update(m.tile(k, j)),
               m.update(m.tile(i, j))});
    }
  }
}

}  // namespace

Job tiled_factorization_job(const TiledFactorizationParams& params) {
  Job job{.name = fmt::format("{}-{}x{}", to_string(params.kind), params.tiles, params.tiles),
          .family = "scientific"};
  TileJob m(job, params);
  switch (params.kind) {
    case TiledFactorization::cholesky:
      add_cholesky(m, params.tiles);
      break;
    case TiledFactorization::lu:
      add_lu(m, params.tiles);
      break;
    case TiledFactorization::qr:
      add_qr(m, params.tiles);
      break;
  }
  return job;
}

}  // namespace hetsched
