// Heterogeneity-aware allocation LPs (Gavel, OSDI 2020), solved with GLPK's simplex.
// See allocation_lp.hpp for the formulations. Identical jobs (same rates, gang and
// weight) are folded into one row with a multiplicity for the max-min fairness,
// max-throughput and priority-throughput objectives: these LPs are symmetric in identical jobs and
// convex, so an optimum giving them equal shares exists, and the LP shrinks from hundreds of jobs
// to at most one row per (job type, gang, weight). With serve_folded_in_order a
// group's time is then handed to its members one after another by order_key (the
// group total is what the LP fixed; how it is split among identical jobs is free).
#include "hetsched/stream/allocation_lp.hpp"

#include <glpk.h>

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>

namespace hetsched {
namespace {

bool can_run(const AllocationJob& job, const AllocationProblem& problem, std::size_t type) {
  return job.rate[type] > 0 && problem.capacity[type] >= job.gang_size;
}

AllocationResult empty_result(const AllocationProblem& problem) {
  AllocationResult result;
  result.fraction.assign(problem.jobs.size(), std::vector<double>(problem.capacity.size(), 0.0));
  return result;
}

struct LpDeleter {
  void operator()(glp_prob* lp) const { glp_delete_prob(lp); }
};

// GLPK keeps one environment per thread and frees it only on glp_free_env; a thread
// that solved an LP (the service's scheduling thread, say) releases it when it ends.
struct GlpkEnvironmentRelease {
  ~GlpkEnvironmentRelease() { glp_free_env(); }
};

// Builds and solves one LP. Column layout: x[j][k] for runnable (j,k), then t when
// `with_min_level`. Returns false when GLPK finds no optimum.
struct LpSpec {
  // per job: coefficient on its throughput in the min rows (0 = no min row)
  std::vector<double> min_coefficient;
  // per job and type: objective coefficient on x[j][k]
  std::vector<std::vector<double>> objective;
  std::vector<double> rate_floor;  // per job: sum_k rate x >= floor (0 = none)
  bool with_min_level = false;
  bool maximise = true;
};

bool solve_lp(const AllocationProblem& problem, const LpSpec& spec, AllocationResult& result) {
  const std::size_t job_count = problem.jobs.size();
  const std::size_t type_count = problem.capacity.size();
  thread_local GlpkEnvironmentRelease release_at_thread_exit;
  (void)release_at_thread_exit;
  std::unique_ptr<glp_prob, LpDeleter> lp(glp_create_prob());
  glp_set_obj_dir(lp.get(), spec.maximise ? GLP_MAX : GLP_MIN);

  std::vector<std::vector<int>> column(job_count, std::vector<int>(type_count, 0));
  int columns = 0;
  for (std::size_t j = 0; j < job_count; ++j)
    for (std::size_t k = 0; k < type_count; ++k)
      if (can_run(problem.jobs[j], problem, k)) column[j][k] = ++columns;
  const int level_column = spec.with_min_level ? ++columns : 0;
  if (columns == 0) return true;  // nothing can run anywhere: all zero
  glp_add_cols(lp.get(), columns);
  for (std::size_t j = 0; j < job_count; ++j)
    for (std::size_t k = 0; k < type_count; ++k)
      if (column[j][k]) {
        glp_set_col_bnds(lp.get(), column[j][k], GLP_DB, 0.0, 1.0);
        glp_set_obj_coef(lp.get(), column[j][k], spec.objective[j][k]);
      }
  if (level_column) {
    glp_set_col_bnds(lp.get(), level_column, GLP_LO, 0.0, 0.0);
    glp_set_obj_coef(lp.get(), level_column, 1.0);
  }

  std::vector<int> row_index{0}, column_index{0};
  std::vector<double> value{0};
  int rows = 0;
  auto add_entry = [&](int row, int col, double v) {
    row_index.push_back(row);
    column_index.push_back(col);
    value.push_back(v);
  };
  // Each job: total time fraction <= 1.
  for (std::size_t j = 0; j < job_count; ++j) {
    bool any = false;
    for (std::size_t k = 0; k < type_count; ++k) any = any || column[j][k];
    if (!any) continue;
    glp_add_rows(lp.get(), 1);
    ++rows;
    glp_set_row_bnds(lp.get(), rows, GLP_UP, 0.0, 1.0);
    for (std::size_t k = 0; k < type_count; ++k)
      if (column[j][k]) add_entry(rows, column[j][k], 1.0);
  }
  // Each type: devices used <= devices there.
  for (std::size_t k = 0; k < type_count; ++k) {
    glp_add_rows(lp.get(), 1);
    ++rows;
    glp_set_row_bnds(lp.get(), rows, GLP_UP, 0.0, problem.capacity[k]);
    for (std::size_t j = 0; j < job_count; ++j)
      if (column[j][k])
        add_entry(rows, column[j][k], problem.jobs[j].multiplicity * problem.jobs[j].gang_size);
  }
  // Min rows: c_j * throughput_j - t >= 0; rate floors: throughput_j >= floor.
  for (std::size_t j = 0; j < job_count; ++j) {
    const AllocationJob& job = problem.jobs[j];
    if (spec.with_min_level && spec.min_coefficient[j] > 0) {
      glp_add_rows(lp.get(), 1);
      ++rows;
      glp_set_row_bnds(lp.get(), rows, GLP_LO, 0.0, 0.0);
      for (std::size_t k = 0; k < type_count; ++k)
        if (column[j][k]) add_entry(rows, column[j][k], spec.min_coefficient[j] * job.rate[k]);
      add_entry(rows, level_column, -1.0);
    }
    if (!spec.rate_floor.empty() && spec.rate_floor[j] > 0) {
      glp_add_rows(lp.get(), 1);
      ++rows;
      glp_set_row_bnds(lp.get(), rows, GLP_LO, spec.rate_floor[j], 0.0);
      for (std::size_t k = 0; k < type_count; ++k)
        if (column[j][k]) add_entry(rows, column[j][k], job.rate[k]);
    }
  }
  glp_load_matrix(lp.get(), static_cast<int>(value.size()) - 1, row_index.data(),
                  column_index.data(), value.data());
  glp_term_out(GLP_OFF);  // GLPK prints scaling notes to stdout otherwise
  glp_scale_prob(lp.get(), GLP_SF_AUTO);
  glp_smcp parameters;
  glp_init_smcp(&parameters);
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.presolve = GLP_ON;
  const int code = glp_simplex(lp.get(), &parameters);
  if (code != 0 || glp_get_status(lp.get()) != GLP_OPT) return false;
  for (std::size_t j = 0; j < job_count; ++j)
    for (std::size_t k = 0; k < type_count; ++k)
      if (column[j][k])
        result.fraction[j][k] = std::clamp(glp_get_col_prim(lp.get(), column[j][k]), 0.0, 1.0);
  return true;
}

double best_rate(const AllocationJob& job) {
  return *std::max_element(job.rate.begin(), job.rate.end());
}

AllocationResult solve_unfolded(const AllocationProblem& problem, AllocationObjective objective) {
  const std::size_t job_count = problem.jobs.size();
  const std::size_t type_count = problem.capacity.size();
  AllocationResult result = empty_result(problem);
  if (job_count == 0) return result;
  const AllocationResult equal = equal_share_allocation(problem);
  std::vector<double> equal_throughput(job_count, 0.0);
  double total_jobs = 0;
  for (std::size_t j = 0; j < job_count; ++j) {
    for (std::size_t k = 0; k < type_count; ++k)
      equal_throughput[j] += problem.jobs[j].rate[k] * equal.fraction[j][k];
    total_jobs += problem.jobs[j].multiplicity;
  }

  LpSpec spec;
  spec.min_coefficient.assign(job_count, 0.0);
  spec.objective.assign(job_count, std::vector<double>(type_count, 0.0));
  // The secondary term must stay small next to the level t. Max-min fairness has
  // t ~ 1 by construction; for min makespan t is scaled by the longest standalone
  // remaining time so that it is ~1 too, and its secondary term is a mere tie-break.
  double longest_alone = 0;
  for (const AllocationJob& job : problem.jobs)
    if (best_rate(job) > 0)
      longest_alone = std::max(longest_alone, job.remaining_steps / best_rate(job));
  const double epsilon =
      (objective == AllocationObjective::min_makespan ? 1e-3 : 0.1) / std::max(1.0, total_jobs);
  for (std::size_t j = 0; j < job_count; ++j) {
    const AllocationJob& job = problem.jobs[j];
    const double best = best_rate(job);
    if (best <= 0) continue;
    double coefficient = 0;
    switch (objective) {
      case AllocationObjective::max_min_fairness:
        if (equal_throughput[j] > 0)
          coefficient = job.gang_size / (job.priority_weight * equal_throughput[j]);
        break;
      case AllocationObjective::min_makespan:
        coefficient = longest_alone / std::max(job.remaining_steps, 1e-9);
        break;
      default:
        break;
    }
    spec.min_coefficient[j] = coefficient;
    for (std::size_t k = 0; k < type_count; ++k) {
      const double normalised = job.rate[k] / best;
      switch (objective) {
        case AllocationObjective::max_min_fairness:
        case AllocationObjective::min_makespan:
          spec.objective[j][k] = epsilon * job.multiplicity * normalised;
          break;
        case AllocationObjective::max_throughput:
          spec.objective[j][k] = job.multiplicity * normalised;
          break;
        case AllocationObjective::priority_throughput:
          spec.objective[j][k] =
              job.multiplicity * job.priority_weight * job.gang_size * normalised;
          break;
        case AllocationObjective::min_cost:
          spec.objective[j][k] = job.multiplicity * job.gang_size * problem.price_per_hour[k];
          break;
      }
    }
  }
  spec.with_min_level = objective == AllocationObjective::max_min_fairness ||
                        objective == AllocationObjective::min_makespan;
  spec.maximise = objective != AllocationObjective::min_cost;
  if (objective == AllocationObjective::min_cost) {
    spec.rate_floor.assign(job_count, 0.0);
    for (std::size_t j = 0; j < job_count; ++j)
      spec.rate_floor[j] =
          problem.jobs[j].required_rate > 0 ? problem.jobs[j].required_rate : equal_throughput[j];
  }
  if (solve_lp(problem, spec, result)) return result;
  AllocationResult fallback = equal;
  fallback.fell_back = true;
  fallback.note = objective == AllocationObjective::min_cost
                      ? "the SLOs cannot all be met (LP infeasible): fell back to an equal time "
                        "share"
                      : "the allocation LP has no optimum: fell back to an equal time share";
  return fallback;
}

}  // namespace

AllocationResult equal_share_allocation(const AllocationProblem& problem) {
  AllocationResult result = empty_result(problem);
  const std::size_t type_count = problem.capacity.size();
  // Water-filling over the capacity of the types each job can use. Each job j gets a
  // total time fraction f_j = min(1, level * weight_j / gang_j); the level rises until
  // the devices are used up.
  std::vector<std::size_t> runnable;
  std::vector<double> usable_capacity(problem.jobs.size(), 0.0);
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    for (std::size_t k = 0; k < type_count; ++k)
      if (can_run(problem.jobs[j], problem, k)) usable_capacity[j] += problem.capacity[k];
    if (usable_capacity[j] > 0) runnable.push_back(j);
  }
  if (runnable.empty()) return result;
  const double capacity = std::accumulate(problem.capacity.begin(), problem.capacity.end(), 0.0);
  // Sort by the level at which a job saturates (gang / weight), fill in that order.
  std::sort(runnable.begin(), runnable.end(), [&](std::size_t a, std::size_t b) {
    const double sa = problem.jobs[a].gang_size / problem.jobs[a].priority_weight;
    const double sb = problem.jobs[b].gang_size / problem.jobs[b].priority_weight;
    return sa < sb || (sa == sb && a < b);
  });
  double remaining_capacity = capacity;
  double remaining_weight = 0;  // sum of multiplicity * weight of unsaturated jobs
  for (std::size_t j : runnable)
    remaining_weight += problem.jobs[j].multiplicity * problem.jobs[j].priority_weight;
  std::vector<double> total_fraction(problem.jobs.size(), 0.0);
  double level = 0;
  std::size_t next = 0;
  while (next < runnable.size()) {
    const AllocationJob& job = problem.jobs[runnable[next]];
    const double saturating_level = job.gang_size / job.priority_weight;
    // Devices used if everyone unsaturated rose to saturating_level: level * weight each.
    if (remaining_weight * saturating_level <= remaining_capacity) {
      level = saturating_level;
      total_fraction[runnable[next]] = 1.0;
      remaining_capacity -= job.multiplicity * job.gang_size;
      remaining_weight -= job.multiplicity * job.priority_weight;
      ++next;
    } else {
      level = remaining_capacity / remaining_weight;
      break;
    }
  }
  for (std::size_t i = next; i < runnable.size(); ++i) {
    const AllocationJob& job = problem.jobs[runnable[i]];
    total_fraction[runnable[i]] = std::min(1.0, level * job.priority_weight / job.gang_size);
  }
  for (std::size_t j : runnable)
    for (std::size_t k = 0; k < type_count; ++k)
      if (can_run(problem.jobs[j], problem, k))
        result.fraction[j][k] = total_fraction[j] * problem.capacity[k] / usable_capacity[j];
  // Jobs restricted to some types can overfill a type; scale each type back to fit.
  for (std::size_t k = 0; k < type_count; ++k) {
    double used = 0;
    for (std::size_t j : runnable)
      used += problem.jobs[j].multiplicity * problem.jobs[j].gang_size * result.fraction[j][k];
    if (used > problem.capacity[k] && used > 0)
      for (std::size_t j : runnable) result.fraction[j][k] *= problem.capacity[k] / used;
  }
  return result;
}

AllocationResult solve_allocation(const AllocationProblem& problem, AllocationObjective objective) {
  const bool foldable = objective == AllocationObjective::max_min_fairness ||
                        objective == AllocationObjective::max_throughput ||
                        objective == AllocationObjective::priority_throughput;
  if (!foldable) return solve_unfolded(problem, objective);
  using Key = std::tuple<std::vector<double>, int, double>;
  std::map<Key, std::size_t> class_of;
  AllocationProblem folded;
  folded.capacity = problem.capacity;
  folded.price_per_hour = problem.price_per_hour;
  std::vector<std::size_t> job_class(problem.jobs.size());
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) {
    const AllocationJob& job = problem.jobs[j];
    const Key key{job.rate, job.gang_size, job.priority_weight};
    auto [it, inserted] = class_of.emplace(key, folded.jobs.size());
    if (inserted) {
      folded.jobs.push_back(job);
      folded.jobs.back().multiplicity = 0;
    }
    folded.jobs[it->second].multiplicity += job.multiplicity;
    job_class[j] = it->second;
  }
  const AllocationResult folded_result = solve_unfolded(folded, objective);
  AllocationResult result = empty_result(problem);
  result.fell_back = folded_result.fell_back;
  result.note = folded_result.note;
  if (!problem.serve_folded_in_order || folded_result.fell_back) {
    for (std::size_t j = 0; j < problem.jobs.size(); ++j)
      result.fraction[j] = folded_result.fraction[job_class[j]];
    return result;
  }
  // Serve each folded group in order: its total time on each type (multiplicity x
  // the row's fraction) goes to its members by increasing order_key, each filling up
  // to a whole job's time, fastest type first. Group totals, hence the capacity
  // constraints and the objective, are unchanged; the group's time is given
  // sequentially (shortest first, for SRPT keys) instead of shared equally.
  std::vector<std::vector<std::size_t>> members(folded.jobs.size());
  for (std::size_t j = 0; j < problem.jobs.size(); ++j) members[job_class[j]].push_back(j);
  const std::size_t type_count = problem.capacity.size();
  for (std::size_t c = 0; c < members.size(); ++c) {
    auto& group = members[c];
    std::stable_sort(group.begin(), group.end(), [&](std::size_t a, std::size_t b) {
      return problem.jobs[a].order_key < problem.jobs[b].order_key;
    });
    std::vector<double> left(type_count);
    for (std::size_t k = 0; k < type_count; ++k)
      left[k] = folded.jobs[c].multiplicity * folded_result.fraction[c][k];
    std::vector<std::size_t> fastest_first(type_count);
    std::iota(fastest_first.begin(), fastest_first.end(), 0);
    std::stable_sort(fastest_first.begin(), fastest_first.end(), [&](std::size_t a, std::size_t b) {
      return folded.jobs[c].rate[a] > folded.jobs[c].rate[b];
    });
    for (std::size_t j : group) {
      const double own = problem.jobs[j].multiplicity;
      double filled = 0;
      for (std::size_t k : fastest_first) {
        const double take = std::min(left[k], own - filled);
        if (take <= 1e-12) continue;
        result.fraction[j][k] = take / own;
        left[k] -= take;
        filled += take;
      }
    }
  }
  return result;
}

}  // namespace hetsched
