// Writing a Pareto front: CSV (one row per schedule) and an SVG scatter plot of
// makespan against energy, each point's colour giving its cost and the picked
// schedule ringed. Deterministic text: same front, same bytes.
#pragma once

#include <string>
#include <vector>

#include "hetsched/energy/pareto_front.hpp"

namespace hetsched {

std::string pareto_to_csv(const std::vector<ParetoPoint>& front, std::size_t picked);
std::string pareto_to_svg(const std::vector<ParetoPoint>& front, std::size_t picked,
                          const std::string& title);

}  // namespace hetsched
