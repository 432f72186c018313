#include "hetsched/backend/run_report.hpp"

namespace hetsched {

std::string_view to_string(TimelineMarkKind kind) {
  switch (kind) {
    case TimelineMarkKind::failure:
      return "failure";
    case TimelineMarkKind::restart:
      return "restart";
    case TimelineMarkKind::checkpoint:
      return "checkpoint";
    case TimelineMarkKind::migration:
      return "migration";
  }
  return "unknown";
}

double RunReport::mean_response_seconds() const {
  if (jobs.empty()) return 0;
  double sum = 0;
  for (const auto& j : jobs) sum += j.response_seconds();
  return sum / static_cast<double>(jobs.size());
}

double RunReport::mean_waiting_seconds() const {
  if (jobs.empty()) return 0;
  double sum = 0;
  for (const auto& j : jobs) sum += j.waiting_seconds();
  return sum / static_cast<double>(jobs.size());
}

std::size_t RunReport::deadlines_missed() const {
  std::size_t missed = 0;
  for (const auto& j : jobs) missed += j.deadline_met() ? 0 : 1;
  return missed;
}

}  // namespace hetsched
