#include "hetsched/fault/fault_report.hpp"

namespace hetsched {

nlohmann::ordered_json fault_report_to_json(const FaultReport& r,
                                            const std::vector<std::string>& job_names) {
  using nlohmann::ordered_json;
  ordered_json jobs = ordered_json::array();
  for (std::size_t j = 0; j < r.jobs.size(); ++j) {
    const FaultJobRecord& f = r.jobs[j];
    jobs.push_back(ordered_json{{"name", j < job_names.size() ? job_names[j] : ""},
                                {"completed", f.failure_reason.empty()},
                                {"failure_reason", f.failure_reason},
                                {"attempts", f.attempts},
                                {"failures", f.failures},
                                {"checkpoints", f.checkpoints},
                                {"migrations", f.migrations},
                                {"recovery_seconds", f.recovery_seconds},
                                {"tasks_cancelled", f.tasks_cancelled}});
  }
  return ordered_json{{"failures_injected", r.failures_injected},
                      {"crashes", r.crashes},
                      {"transients", r.transients},
                      {"stragglers", r.stragglers},
                      {"partitions", r.partitions},
                      {"detections", r.detections},
                      {"mean_detection_delay_seconds",
                       r.detections ? r.detection_delay_seconds / r.detections : 0.0},
                      {"retries", r.retries},
                      {"replicas_started", r.replicas_started},
                      {"replicas_cancelled", r.replicas_cancelled},
                      {"jobs_failed", r.jobs_failed},
                      {"lost_tasks", r.lost_tasks},
                      {"goodput", r.goodput()},
                      {"useful_device_seconds", r.useful_device_seconds},
                      {"lost_device_seconds", r.lost_device_seconds},
                      {"checkpoint_device_seconds", r.checkpoint_device_seconds},
                      {"replica_device_seconds", r.replica_device_seconds},
                      {"replica_joules", r.replica_joules},
                      {"predictor", ordered_json{{"alarms", r.alarms},
                                                 {"true_alarms", r.true_alarms},
                                                 {"predicted_crashes", r.predicted_crashes},
                                                 {"precision", r.precision()},
                                                 {"recall", r.recall()},
                                                 {"mean_lead_seconds", r.mean_lead_seconds()},
                                                 {"work_saved_seconds", r.work_saved_seconds}}},
                      {"jobs", std::move(jobs)}};
}

}  // namespace hetsched
