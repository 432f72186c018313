// Tiled dense factorizations as jobs: the DAGs task runtimes (StarPU, PaRSEC, PLASMA)
// schedule on CPUs and GPUs. A matrix of tiles × tiles blocks of tile_size² doubles;
// each task works on whole tiles, and the edges follow from the tiles it reads and writes
// (DataflowJob), in the loop order of the right-looking algorithms:
//  - Cholesky (A = L·Lᵀ): per k, POTRF the diagonal tile, TRSM the column below it, SYRK
//    and GEMM the trailing matrix;
//  - LU without pivoting (A = L·U): per k, GETRF the diagonal tile, TRSM its row and its
//    column, GEMM the trailing matrix;
//  - QR (Buttari et al. 2009, flat tree): per k, GEQRT the diagonal tile, ORMQR its row,
//    then down the column TSQRT each tile against the diagonal one and TSMQR its row.
// The panel kernels (POTRF, GETRF, GEQRT, TSQRT) are sequential and latency-bound: they are
// modeled as the `branchy` kernel class, which accelerators run far below their peak; the
// updates are `dense_matmul`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/workload/job.hpp"

namespace hetsched {

enum class TiledFactorization : std::uint8_t { cholesky, lu, qr };

std::string_view to_string(TiledFactorization kind);
std::optional<TiledFactorization> parse_tiled_factorization(std::string_view text);
const std::vector<std::string>& tiled_factorization_names();

struct TiledFactorizationParams {
  TiledFactorization kind = TiledFactorization::cholesky;
  std::uint32_t tiles = 8;         // per side
  std::uint32_t tile_size = 1024;  // doubles per tile side
};

Job tiled_factorization_job(const TiledFactorizationParams& params);

}  // namespace hetsched
