// Shared test check for a tiled Cholesky run: how far the factor computed in place is
// from the matrix it started from.
#pragma once

#include <algorithm>
#include <cmath>

#include "hetsched/runtime/runtime_dag.hpp"

namespace hetsched {

// Largest |L·Lᵀ − A| over the lower triangle, relative to max |A|.
inline double cholesky_residual(const TiledCholesky& problem) {
  const auto l = gather_matrix(problem.dag->data(), problem.matrix);
  const std::size_t n = problem.matrix.side();
  double worst = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) {
      double sum = 0;
      for (std::size_t k = 0; k <= j; ++k) sum += l[i * n + k] * l[j * n + k];
      worst = std::max(worst, std::abs(sum - problem.original[i * n + j]));
      scale = std::max(scale, std::abs(problem.original[i * n + j]));
    }
  return worst / scale;
}

}  // namespace hetsched
