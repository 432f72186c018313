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
#include <optional>
#include <span>

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

// Task t's release on device d (ExactSolveOptions::release_seconds, task-major; none: 0).
double release_at(std::span<const double> release, std::size_t devices, std::uint32_t t,
                  DeviceId d) {
  return release.empty() ? 0.0 : release[t * devices + d];
}

// Longest paths of minimum compute times: each task's earliest start (head) and the work
// that must follow it (tail), and the makespan no schedule can beat (lower).
struct PathBounds {
  std::vector<double> min_compute, head, tail;
  double lower = 0;
};

PathBounds path_bounds(const DagInstance& instance, std::span<const double> release) {
  const std::size_t n = instance.task_count(), devices = instance.device_count();
  PathBounds b{std::vector<double>(n, kCannotRun), std::vector<double>(n, 0.0),
               std::vector<double>(n, 0.0)};
  for (std::uint32_t t = 0; t < n; ++t) {
    for (DeviceId d = 0; d < devices; ++d)
      b.min_compute[t] = std::min(b.min_compute[t], instance.compute_seconds(t, d));
    double earliest_release = kCannotRun;
    for (DeviceId d = 0; d < devices; ++d)
      if (instance.compute_seconds(t, d) != kCannotRun)
        earliest_release = std::min(earliest_release, release_at(release, devices, t, d));
    b.head[t] = earliest_release;
  }
  const auto& topological = instance.topological_order();
  for (std::uint32_t t : topological)
    for (const DagNeighbor& s : instance.successors(t))
      b.head[s.task] = std::max(b.head[s.task], b.head[t] + b.min_compute[t]);
  for (auto it = topological.rbegin(); it != topological.rend(); ++it)
    for (const DagNeighbor& s : instance.successors(*it))
      b.tail[*it] = std::max(b.tail[*it], b.min_compute[s.task] + b.tail[s.task]);
  for (std::uint32_t t = 0; t < n; ++t)
    b.lower = std::max(b.lower, b.head[t] + b.min_compute[t] + b.tail[t]);
  return b;
}

// reaches[i][j]: j depends on i through a path of edges (such a pair needs no order variable).
std::vector<std::vector<char>> reachability(const DagInstance& instance) {
  const std::size_t n = instance.task_count();
  std::vector<std::vector<char>> reaches(n, std::vector<char>(n, 0));
  const auto& topological = instance.topological_order();
  for (auto it = topological.rbegin(); it != topological.rend(); ++it)
    for (const DagNeighbor& s : instance.successors(*it)) {
      reaches[*it][s.task] = 1;
      for (std::uint32_t k = 0; k < n; ++k) reaches[*it][k] |= reaches[s.task][k];
    }
  return reaches;
}

// The MILP at the top of this file, built family by family (columns and rows in a fixed
// order, so that CBC's search is the same on every run), seeded with the list schedule
// and read back as a re-timed schedule.
class ExactDagMilp {
 public:
  ExactDagMilp(const DagInstance& instance, std::span<const double> release,
               const PathBounds& bounds, double upper)
      : instance_(instance),
        release_(release),
        bounds_(bounds),
        n_(instance.task_count()),
        devices_(instance.device_count()),
        // Bounds get a little slack so that presolve tolerances never cut off the list
        // schedule, which is feasible exactly.
        slack_(1e-6 * std::max(1.0, upper)),
        upper_(upper),
        big_m_(upper + slack_) {
    add_columns();
    add_task_rows();
    add_device_load_rows();
    add_edge_rows();
    add_order_variables(reachability(instance));
  }

  // The list schedule as the first incumbent: its assignment and orders (CBC completes
  // the continuous columns itself; giving them too made it discard the start on some
  // instances).
  void start_from(const StaticSchedule& heuristic) {
    std::vector<int> columns;
    std::vector<double> values;
    for (std::uint32_t t = 0; t < n_; ++t)
      for (DeviceId d = 0; d < devices_; ++d)
        if (assign_[t][d] >= 0) {
          columns.push_back(assign_[t][d]);
          values.push_back(heuristic.tasks[t].device == d ? 1.0 : 0.0);
        }
    for (std::uint32_t i = 0; i < n_; ++i)
      for (std::uint32_t j = i + 1; j < n_; ++j)
        if (before_[i][j] >= 0) {
          columns.push_back(before_[i][j]);
          values.push_back(
              heuristic.tasks[i].start_seconds <= heuristic.tasks[j].start_seconds ? 1.0 : 0.0);
        }
    Cbc_setMIPStartI(milp_.get(), static_cast<int>(columns.size()), columns.data(), values.data());
  }

  void solve(const ExactSolveOptions& options) {
    Cbc_Model* model = milp_.get();
    Cbc_setMaximumSeconds(model, options.time_limit_seconds);
    if (options.node_limit > 0)
      Cbc_setMaximumNodes(model,
                          static_cast<int>(std::min<long long>(options.node_limit, 1LL << 30)));
    Cbc_setAllowableGap(model, 1e-7 * std::max(1.0, upper_));
    Cbc_setAllowableFractionGap(model, 0.0);
    // On models this small, CBC's root cuts, preprocessing and primal heuristics cost
    // more than they save (measured on the Topcuoglu graph: 108 nodes, several times
    // faster than with the defaults); the list schedule already is an incumbent.
    Cbc_setParameter(model, "cuts", "off");
    Cbc_setParameter(model, "heuristicsOnOff", "off");
    Cbc_setParameter(model, "preprocess", "off");
    Cbc_solve(model);
  }

  long long nodes() { return Cbc_getNodeCount(milp_.get()); }
  double best_possible() { return Cbc_getBestPossibleObjValue(milp_.get()); }
  bool proven_optimal() { return Cbc_isProvenOptimal(milp_.get()) != 0; }

  // The solver's assignment and order, re-timed exactly; nullopt when it found none.
  std::optional<StaticSchedule> solution() {
    const double* solution = Cbc_bestSolution(milp_.get());
    if (!solution) return std::nullopt;
    std::vector<DeviceId> device(n_, 0);
    std::vector<double> key(n_, 0.0);
    for (std::uint32_t t = 0; t < n_; ++t) {
      double largest = -1;
      for (DeviceId d = 0; d < devices_; ++d)
        if (assign_[t][d] >= 0 && solution[assign_[t][d]] > largest)
          largest = solution[assign_[t][d]], device[t] = d;
      key[t] = solution[start_[t]];
    }
    return retime_solution(instance_, release_, device, key);
  }

 private:
  double release_of(std::uint32_t t, DeviceId d) const {
    return release_at(release_, devices_, t, d);
  }

  // C, then per task s[t] and its x[t][d] for the devices that can run it.
  void add_columns() {
    makespan_ =
        milp_.add_column(std::max(0.0, bounds_.lower - slack_), upper_ + slack_, 1.0, false);
    start_.resize(n_);
    assign_.assign(n_, std::vector<int>(devices_, -1));
    for (std::uint32_t t = 0; t < n_; ++t) {
      start_[t] = milp_.add_column(
          std::max(0.0, bounds_.head[t] - slack_),
          std::max(bounds_.head[t], upper_ - bounds_.min_compute[t] - bounds_.tail[t]) + slack_,
          0.0, false);
      for (DeviceId d = 0; d < devices_; ++d)
        if (instance_.compute_seconds(t, d) != kCannotRun)
          assign_[t][d] = milp_.add_column(0, 1, 0.0, true);
    }
  }

  // f[t] as terms: s[t] + Σ_d p[t][d]·x[t][d].
  std::vector<std::pair<int, double>> finish_terms(std::uint32_t t, double sign) const {
    std::vector<std::pair<int, double>> terms{{start_[t], sign}};
    for (DeviceId d = 0; d < devices_; ++d)
      if (assign_[t][d] >= 0)
        terms.emplace_back(assign_[t][d], sign * instance_.compute_seconds(t, d));
    return terms;
  }

  // Per task: one device, its release on that device, and C − f[t] ≥ tail[t].
  void add_task_rows() {
    for (std::uint32_t t = 0; t < n_; ++t) {
      std::vector<std::pair<int, double>> one;
      for (DeviceId d = 0; d < devices_; ++d)
        if (assign_[t][d] >= 0) one.emplace_back(assign_[t][d], 1.0);
      milp_.add_row(one, 'E', 1.0);
      if (!release_.empty()) {
        std::vector<std::pair<int, double>> terms{{start_[t], 1.0}};
        for (DeviceId d = 0; d < devices_; ++d)
          if (assign_[t][d] >= 0 && release_of(t, d) > 0)
            terms.emplace_back(assign_[t][d], -release_of(t, d));
        milp_.add_row(terms, 'G', 0.0);
      }
      auto terms = finish_terms(t, -1.0);
      terms.emplace_back(makespan_, 1.0);
      milp_.add_row(terms, 'G', bounds_.tail[t]);
    }
  }

  // C ≥ the work assigned to each device.
  void add_device_load_rows() {
    for (DeviceId d = 0; d < devices_; ++d) {
      std::vector<std::pair<int, double>> load{{makespan_, 1.0}};
      for (std::uint32_t t = 0; t < n_; ++t)
        if (assign_[t][d] >= 0) load.emplace_back(assign_[t][d], -instance_.compute_seconds(t, d));
      milp_.add_row(load, 'G', 0.0);
    }
  }

  // Per edge e = i→j: s[j] − f[i] ≥ 0, and the two families of communication rows.
  void add_edge_rows() {
    for (std::uint32_t e = 0; e < instance_.edges().size(); ++e) {
      const std::uint32_t i = instance_.edges()[e].from, j = instance_.edges()[e].to;
      auto base = finish_terms(i, -1.0);
      base.emplace_back(start_[j], 1.0);
      milp_.add_row(base, 'G', 0.0);
      for (DeviceId a = 0; a < devices_; ++a) {
        // Producer on a: s[j] − f[i] − Σ_b c(a,b)·x[j][b] − c̄_a·x[i][a] ≥ −c̄_a
        if (assign_[i][a] >= 0)
          add_communication_row(base, assign_[i][a], j,
                                [&](DeviceId b) { return instance_.comm_seconds(e, a, b); });
        // Consumer on a: s[j] − f[i] − Σ_b c(b,a)·x[i][b] − c̄_a·x[j][a] ≥ −c̄_a
        if (assign_[j][a] >= 0)
          add_communication_row(base, assign_[j][a], i,
                                [&](DeviceId b) { return instance_.comm_seconds(e, b, a); });
      }
    }
  }

  // base − Σ_b c(b)·x[other][b] − c̄·x_named ≥ −c̄, with c̄ = max_b c(b); no row when c̄ is 0.
  template <typename Cost>
  void add_communication_row(const std::vector<std::pair<int, double>>& base, int named,
                             std::uint32_t other, Cost cost) {
    double worst = 0;
    auto terms = base;
    for (DeviceId b = 0; b < devices_; ++b)
      if (assign_[other][b] >= 0) {
        const double c = cost(b);
        worst = std::max(worst, c);
        if (c > 0) terms.emplace_back(assign_[other][b], -c);
      }
    if (worst <= 0) return;
    terms.emplace_back(named, -worst);
    milp_.add_row(terms, 'G', -worst);
  }

  // y[i][j] = 1: i before j when they share a device, for each pair that no path orders
  // and that some device can run both of.
  void add_order_variables(const std::vector<std::vector<char>>& reaches) {
    before_.assign(n_, std::vector<int>(n_, -1));
    for (std::uint32_t i = 0; i < n_; ++i)
      for (std::uint32_t j = i + 1; j < n_; ++j) {
        if (reaches[i][j] || reaches[j][i]) continue;
        bool share = false;
        for (DeviceId d = 0; d < devices_; ++d) share |= assign_[i][d] >= 0 && assign_[j][d] >= 0;
        if (!share) continue;
        const int y = before_[i][j] = milp_.add_column(0, 1, 0.0, true);
        for (DeviceId d = 0; d < devices_; ++d) {
          if (assign_[i][d] < 0 || assign_[j][d] < 0) continue;
          // s[j] − s[i] − M·y − M·x[i][d] − M·x[j][d] ≥ p[i][d] − 3M
          milp_.add_row({{start_[j], 1.0},
                         {start_[i], -1.0},
                         {y, -big_m_},
                         {assign_[i][d], -big_m_},
                         {assign_[j][d], -big_m_}},
                        'G', instance_.compute_seconds(i, d) - 3 * big_m_);
          // s[i] − s[j] + M·y − M·x[i][d] − M·x[j][d] ≥ p[j][d] − 2M
          milp_.add_row({{start_[i], 1.0},
                         {start_[j], -1.0},
                         {y, big_m_},
                         {assign_[i][d], -big_m_},
                         {assign_[j][d], -big_m_}},
                        'G', instance_.compute_seconds(j, d) - 2 * big_m_);
        }
      }
  }

  const DagInstance& instance_;
  std::span<const double> release_;
  const PathBounds& bounds_;
  const std::size_t n_, devices_;
  const double slack_, upper_, big_m_;
  MilpBuilder milp_;
  int makespan_ = -1;
  std::vector<int> start_;
  std::vector<std::vector<int>> assign_, before_;  // column per (task, device), (task, task)
};

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
  const PathBounds bounds = path_bounds(instance, release);
  if (bounds.lower >= upper * (1 - 1e-12)) {  // the list schedule meets the lower bound
    result.status = ExactSolveStatus::optimal;
    result.lower_bound_seconds = upper;
    result.schedule = heuristic;
    return result;
  }

  ExactDagMilp milp(instance, release, bounds, upper);
  milp.start_from(heuristic);
  milp.solve(options);
  result.branch_and_bound_nodes = milp.nodes();
  result.lower_bound_seconds = std::max(bounds.lower, milp.best_possible());
  StaticSchedule best = heuristic;
  if (std::optional<StaticSchedule> exact = milp.solution();
      exact && exact->makespan_seconds < best.makespan_seconds)
    best = std::move(*exact);
  const bool proven = milp.proven_optimal();
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
