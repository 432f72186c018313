// The MILP (after the classic disjunctive formulation of makespan scheduling with
// communication delays, e.g. Davidović et al. 2007, "Mathematical programming-based
// approach to scheduling of communicating tasks"):
//
//   minimise C subject to
//   Σ_d x[t][d] = 1                                        each task on one device
//   f[t] = s[t] + Σ_d p[t][d]·x[t][d]                     (substituted, not a variable)
//   s[j] ≥ f[i] + Σ_b c_e(a,b)·x[j][b] − c̄_a·(1 − x[i][a])   per edge e = i→j, device a
//   s[j] ≥ f[i] + Σ_a c_e(a,b)·x[i][a] − c̄_b·(1 − x[j][b])   per edge, device b
//   s[j] ≥ s[i] + p[i][d] − M·(3 − y[i][j] − x[i][d] − x[j][d])   per independent pair
//   s[i] ≥ s[j] + p[j][d] − M·(2 + y[i][j] − x[i][d] − x[j][d])   and device d
//   s[t] ≥ Σ_d r[t][d]·x[t][d]                            release times
//   C ≥ f[t] + tail[t]      C ≥ Σ_t p[t][d]·x[t][d]       makespan, and two valid cuts
//
// The two edge families linearise "communication only between different devices"
// exactly (c̄_a = max_b c_e(a,b) keeps each one slack unless the named device is
// chosen) and are tighter in the LP relaxation than one constraint per device pair.
// Pairs of tasks where one reaches the other need no order variable: precedence
// already keeps them apart. M is the makespan of a list schedule (an upper bound on
// every start in some optimal schedule), which also seeds the search as the first
// incumbent; head[t] and tail[t] (longest paths of minimum compute times before and
// after t) bound each start from both sides. The solution's device assignment and
// per-device order are then re-timed exactly (every task as early as its inputs,
// release and device allow), so the returned schedule passes check_schedule
// without the solver's numerical tolerances.
#include "hetsched/policy/exact_dag_solver.hpp"

#include <Cbc_C_Interface.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>

#include "hetsched/policy/list_scheduling.hpp"

namespace hetsched {
namespace {

struct CbcModelDeleter {
  void operator()(Cbc_Model* model) const { Cbc_deleteModel(model); }
};

class MilpBuilder {
 public:
  MilpBuilder() : model_(Cbc_newModel()) {
    Cbc_setLogLevel(model_.get(), 0);
    Cbc_setObjSense(model_.get(), 1);  // minimise
  }
  int add_column(double lower, double upper, double objective, bool integer) {
    Cbc_addCol(model_.get(), "", lower, upper, objective, integer ? 1 : 0, 0, nullptr, nullptr);
    return columns_++;
  }
  // Σ coefficients·columns (sense) rhs; sense is 'G', 'L' or 'E'.
  void add_row(const std::vector<std::pair<int, double>>& terms, char sense, double rhs) {
    std::vector<int> columns;
    std::vector<double> coefficients;
    for (const auto& [c, v] : terms) {
      // Merge repeated columns so CBC sees each once.
      const auto it = std::find(columns.begin(), columns.end(), c);
      if (it == columns.end()) {
        columns.push_back(c);
        coefficients.push_back(v);
      } else {
        coefficients[it - columns.begin()] += v;
      }
    }
    Cbc_addRow(model_.get(), "", static_cast<int>(columns.size()), columns.data(),
               coefficients.data(), sense, rhs);
  }
  Cbc_Model* get() { return model_.get(); }

 private:
  std::unique_ptr<Cbc_Model, CbcModelDeleter> model_;
  int columns_ = 0;
};

// Re-times a device assignment and per-device order exactly: tasks by increasing
// `order_key` among those whose inputs are listed (ties by topological position:
// the solver's starts respect precedence only up to its tolerance), each at the
// latest of its release, its inputs' arrival and its device's previous finish.
StaticSchedule retime_solution(const DagInstance& instance, std::span<const double> release,
                               const std::vector<DeviceId>& device,
                               const std::vector<double>& order_key) {
  std::vector<double> priority(order_key.size());
  for (std::size_t t = 0; t < priority.size(); ++t) priority[t] = -order_key[t];
  return schedule_in_order(instance, priority_order(instance, priority), device,
                           ScheduleLimits{.release_seconds = release}, SlotRule::append);
}

}  // namespace

ExactSolveResult solve_exact_schedule_with_status(const DagInstance& instance,
                                                  const ExactSolveOptions& options) {
  ExactSolveResult result;
  const std::size_t n = instance.task_count(), devices = instance.device_count();
  if (n > kExactSolverMaxTasks || devices > kExactSolverMaxDevices) {
    result.status = ExactSolveStatus::too_large;
    return result;
  }
  if (n == 0) {
    result.status = ExactSolveStatus::optimal;
    result.schedule = StaticSchedule{};
    return result;
  }
  const std::vector<double>& release = options.release_seconds;
  const auto release_of = [&](std::uint32_t t, DeviceId d) {
    return release.empty() ? 0.0 : release[t * devices + d];
  };
  // The first incumbent: HEFT's order, each task appended where it finishes first.
  const StaticSchedule heuristic =
      upward_rank_schedule(instance, ScheduleLimits{.release_seconds = release}, SlotRule::append);
  if (std::any_of(heuristic.tasks.begin(), heuristic.tasks.end(),
                  [](const PlannedTask& p) { return p.device == kNoDevice; })) {
    result.status = ExactSolveStatus::infeasible;
    return result;
  }
  result.heuristic_makespan_seconds = heuristic.makespan_seconds;
  const double upper = heuristic.makespan_seconds;

  // Minimum compute time of each task, and heads and tails along longest paths of them.
  std::vector<double> min_compute(n, kCannotRun), head(n, 0.0), tail(n, 0.0);
  for (std::uint32_t t = 0; t < n; ++t) {
    for (DeviceId d = 0; d < devices; ++d)
      min_compute[t] = std::min(min_compute[t], instance.compute_seconds(t, d));
    double earliest_release = kCannotRun;
    for (DeviceId d = 0; d < devices; ++d)
      if (instance.compute_seconds(t, d) != kCannotRun)
        earliest_release = std::min(earliest_release, release_of(t, d));
    head[t] = earliest_release;
  }
  const auto& topological = instance.topological_order();
  for (std::uint32_t t : topological)
    for (const DagNeighbor& s : instance.successors(t))
      head[s.task] = std::max(head[s.task], head[t] + min_compute[t]);
  for (auto it = topological.rbegin(); it != topological.rend(); ++it)
    for (const DagNeighbor& s : instance.successors(*it))
      tail[*it] = std::max(tail[*it], min_compute[s.task] + tail[s.task]);
  double lower = 0;
  for (std::uint32_t t = 0; t < n; ++t) lower = std::max(lower, head[t] + min_compute[t] + tail[t]);

  if (lower >= upper * (1 - 1e-12)) {  // the list schedule meets the lower bound
    result.status = ExactSolveStatus::optimal;
    result.lower_bound_seconds = upper;
    result.schedule = heuristic;
    return result;
  }

  // Reachability, to know which pairs need an order variable.
  std::vector<std::vector<char>> reaches(n, std::vector<char>(n, 0));
  for (auto it = topological.rbegin(); it != topological.rend(); ++it)
    for (const DagNeighbor& s : instance.successors(*it)) {
      reaches[*it][s.task] = 1;
      for (std::uint32_t k = 0; k < n; ++k) reaches[*it][k] |= reaches[s.task][k];
    }

  // Bounds get a little slack so that presolve tolerances never cut off the list
  // schedule, which is feasible exactly.
  const double slack = 1e-6 * std::max(1.0, upper);
  MilpBuilder milp;
  const double big_m = upper + slack;
  const int makespan = milp.add_column(std::max(0.0, lower - slack), upper + slack, 1.0, false);
  std::vector<int> start(n);
  std::vector<std::vector<int>> assign(n, std::vector<int>(devices, -1));
  for (std::uint32_t t = 0; t < n; ++t) {
    start[t] =
        milp.add_column(std::max(0.0, head[t] - slack),
                        std::max(head[t], upper - min_compute[t] - tail[t]) + slack, 0.0, false);
    for (DeviceId d = 0; d < devices; ++d)
      if (instance.compute_seconds(t, d) != kCannotRun)
        assign[t][d] = milp.add_column(0, 1, 0.0, true);
  }
  // f[t] as terms: s[t] + Σ_d p[t][d]·x[t][d].
  const auto finish_terms = [&](std::uint32_t t, double sign) {
    std::vector<std::pair<int, double>> terms{{start[t], sign}};
    for (DeviceId d = 0; d < devices; ++d)
      if (assign[t][d] >= 0)
        terms.emplace_back(assign[t][d], sign * instance.compute_seconds(t, d));
    return terms;
  };
  for (std::uint32_t t = 0; t < n; ++t) {
    std::vector<std::pair<int, double>> one;
    for (DeviceId d = 0; d < devices; ++d)
      if (assign[t][d] >= 0) one.emplace_back(assign[t][d], 1.0);
    milp.add_row(one, 'E', 1.0);
    if (!release.empty()) {
      std::vector<std::pair<int, double>> terms{{start[t], 1.0}};
      for (DeviceId d = 0; d < devices; ++d)
        if (assign[t][d] >= 0 && release_of(t, d) > 0)
          terms.emplace_back(assign[t][d], -release_of(t, d));
      milp.add_row(terms, 'G', 0.0);
    }
    // C − f[t] ≥ tail[t]
    auto terms = finish_terms(t, -1.0);
    terms.emplace_back(makespan, 1.0);
    milp.add_row(terms, 'G', tail[t]);
  }
  for (DeviceId d = 0; d < devices; ++d) {
    std::vector<std::pair<int, double>> load{{makespan, 1.0}};
    for (std::uint32_t t = 0; t < n; ++t)
      if (assign[t][d] >= 0) load.emplace_back(assign[t][d], -instance.compute_seconds(t, d));
    milp.add_row(load, 'G', 0.0);
  }
  for (std::uint32_t e = 0; e < instance.edges().size(); ++e) {
    const std::uint32_t i = instance.edges()[e].from, j = instance.edges()[e].to;
    // s[j] − f[i] ≥ 0
    auto base = finish_terms(i, -1.0);
    base.emplace_back(start[j], 1.0);
    milp.add_row(base, 'G', 0.0);
    for (DeviceId a = 0; a < devices; ++a) {
      // Producer on a: s[j] − f[i] − Σ_b c(a,b)·x[j][b] − c̄_a·x[i][a] ≥ −c̄_a
      if (assign[i][a] >= 0) {
        double worst = 0;
        auto terms = base;
        for (DeviceId b = 0; b < devices; ++b)
          if (assign[j][b] >= 0) {
            const double c = instance.comm_seconds(e, a, b);
            worst = std::max(worst, c);
            if (c > 0) terms.emplace_back(assign[j][b], -c);
          }
        if (worst > 0) {
          terms.emplace_back(assign[i][a], -worst);
          milp.add_row(terms, 'G', -worst);
        }
      }
      // Consumer on a: s[j] − f[i] − Σ_b c(b,a)·x[i][b] − c̄_a·x[j][a] ≥ −c̄_a
      if (assign[j][a] >= 0) {
        double worst = 0;
        auto terms = base;
        for (DeviceId b = 0; b < devices; ++b)
          if (assign[i][b] >= 0) {
            const double c = instance.comm_seconds(e, b, a);
            worst = std::max(worst, c);
            if (c > 0) terms.emplace_back(assign[i][b], -c);
          }
        if (worst > 0) {
          terms.emplace_back(assign[j][a], -worst);
          milp.add_row(terms, 'G', -worst);
        }
      }
    }
  }
  // y[i][j] = 1: i before j when they share a device.
  std::vector<std::vector<int>> before(n, std::vector<int>(n, -1));
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = i + 1; j < n; ++j) {
      if (reaches[i][j] || reaches[j][i]) continue;
      bool share = false;
      for (DeviceId d = 0; d < devices; ++d) share |= assign[i][d] >= 0 && assign[j][d] >= 0;
      if (!share) continue;
      const int y = before[i][j] = milp.add_column(0, 1, 0.0, true);
      for (DeviceId d = 0; d < devices; ++d) {
        if (assign[i][d] < 0 || assign[j][d] < 0) continue;
        // s[j] − s[i] − M·y − M·x[i][d] − M·x[j][d] ≥ p[i][d] − 3M
        milp.add_row({{start[j], 1.0},
                      {start[i], -1.0},
                      {y, -big_m},
                      {assign[i][d], -big_m},
                      {assign[j][d], -big_m}},
                     'G', instance.compute_seconds(i, d) - 3 * big_m);
        // s[i] − s[j] + M·y − M·x[i][d] − M·x[j][d] ≥ p[j][d] − 2M
        milp.add_row({{start[i], 1.0},
                      {start[j], -1.0},
                      {y, big_m},
                      {assign[i][d], -big_m},
                      {assign[j][d], -big_m}},
                     'G', instance.compute_seconds(j, d) - 2 * big_m);
      }
    }

  // The list schedule as the first incumbent: its assignment and orders (CBC
  // completes the continuous columns itself; giving them too made it discard the
  // start on some instances).
  std::vector<int> start_columns;
  std::vector<double> start_values;
  for (std::uint32_t t = 0; t < n; ++t)
    for (DeviceId d = 0; d < devices; ++d)
      if (assign[t][d] >= 0) {
        start_columns.push_back(assign[t][d]);
        start_values.push_back(heuristic.tasks[t].device == d ? 1.0 : 0.0);
      }
  for (std::uint32_t i = 0; i < n; ++i)
    for (std::uint32_t j = i + 1; j < n; ++j)
      if (before[i][j] >= 0) {
        start_columns.push_back(before[i][j]);
        start_values.push_back(
            heuristic.tasks[i].start_seconds <= heuristic.tasks[j].start_seconds ? 1.0 : 0.0);
      }
  Cbc_setMIPStartI(milp.get(), static_cast<int>(start_columns.size()), start_columns.data(),
                   start_values.data());
  Cbc_setMaximumSeconds(milp.get(), options.time_limit_seconds);
  if (options.node_limit > 0)
    Cbc_setMaximumNodes(milp.get(),
                        static_cast<int>(std::min<long long>(options.node_limit, 1LL << 30)));
  Cbc_setAllowableGap(milp.get(), 1e-7 * std::max(1.0, upper));
  Cbc_setAllowableFractionGap(milp.get(), 0.0);
  // On models this small, CBC's root cuts, preprocessing and primal heuristics cost
  // more than they save (measured on the Topcuoglu graph: 108 nodes, several times
  // faster than with the defaults); the list schedule already is an incumbent.
  Cbc_setParameter(milp.get(), "cuts", "off");
  Cbc_setParameter(milp.get(), "heuristicsOnOff", "off");
  Cbc_setParameter(milp.get(), "preprocess", "off");
  Cbc_solve(milp.get());

  result.branch_and_bound_nodes = Cbc_getNodeCount(milp.get());
  result.lower_bound_seconds = std::max(lower, Cbc_getBestPossibleObjValue(milp.get()));
  StaticSchedule best = heuristic;
  const double* solution = Cbc_bestSolution(milp.get());
  if (solution) {
    std::vector<DeviceId> device(n, 0);
    std::vector<double> key(n, 0.0);
    for (std::uint32_t t = 0; t < n; ++t) {
      double largest = -1;
      for (DeviceId d = 0; d < devices; ++d)
        if (assign[t][d] >= 0 && solution[assign[t][d]] > largest)
          largest = solution[assign[t][d]], device[t] = d;
      key[t] = solution[start[t]];
    }
    StaticSchedule exact = retime_solution(instance, release, device, key);
    if (exact.makespan_seconds < best.makespan_seconds) best = std::move(exact);
  }
  const bool proven = Cbc_isProvenOptimal(milp.get()) != 0;
  result.status = proven ? ExactSolveStatus::optimal : ExactSolveStatus::not_proven;
  if (proven) result.lower_bound_seconds = best.makespan_seconds;
  result.schedule = std::move(best);
  return result;
}

std::optional<StaticSchedule> solve_exact_schedule(const DagInstance& instance,
                                                   double time_limit_seconds) {
  ExactSolveResult result =
      solve_exact_schedule_with_status(instance, ExactSolveOptions{time_limit_seconds, 0, {}});
  if (result.status != ExactSolveStatus::optimal) return std::nullopt;
  return std::move(result.schedule);
}

}  // namespace hetsched
