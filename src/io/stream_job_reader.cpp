// One stream job read from its map, for the stream workload file and the service's stream
// submissions alike (the format in include/hetsched/io/stream_workload_file.hpp).
#include "stream_job_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <vector>

#include "hetsched/stream/gavel_job_generator.hpp"
#include "yaml_fields.hpp"

namespace hetsched::io_detail {
namespace {

constexpr int kLargestServiceGang = 4096;

const std::vector<std::string>& stream_job_fields(StreamJobSource source) {
  static const std::vector<std::string> file_fields{
      "name",          "model",     "user",      "gang",         "steps",       "arrival",
      "weight",        "deadline",  "rates",     "spread_rates", "preemptible", "gpu_milli",
      "gpu_memory_gb", "cpu_cores", "cpu_milli", "memory_mib"};
  static const std::vector<std::string> service_fields{
      "name",   "model",    "user",  "gang",         "steps",      "arrival",
      "weight", "deadline", "rates", "spread_rates", "preemptible"};
  return source == StreamJobSource::workload_file ? file_fields : service_fields;
}

// {DEVICE_TYPE: steps_per_second}; a service submission's must name at least one type.
std::map<std::string, double> read_stream_rates(const FieldReader& job, std::string_view field,
                                                StreamJobSource source) {
  const InputNode& value = *job.find(field);
  const std::string rates_name = job.name_of(field);
  const bool service = source == StreamJobSource::service_submission;
  if (!value.is_map() || (service && value.size() == 0))
    throw InputError(position_of(value, rates_name),
                     fmt::format("field '{}' expects {{DEVICE_TYPE: steps_per_second}}, got {}",
                                 field, describe_value(value)));
  std::map<std::string, double> rates;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const std::string type = string_value(value.key_at(i), field, rates_name);
    const std::string rate_name = service ? rates_name + "." + type : rates_name;
    rates[type] = number_value(value.value_at(i), type, NumberRange::non_negative, rate_name);
  }
  return rates;
}

}  // namespace

StreamJob read_stream_job(const InputNode& map, const std::string& file, const StreamJobList& list,
                          const std::string& default_name, const std::string& field_path) {
  const bool service = list.source == StreamJobSource::service_submission;
  const FieldReader reader(map, "job", file, stream_job_fields(list.source), field_path);
  const int gang = static_cast<int>(
      service ? reader.optional_whole_number("gang", 1, kLargestServiceGang).value_or(1)
              : reader
                    .optional_whole_number("gang", std::numeric_limits<int>::min(),
                                           std::numeric_limits<int>::max())
                    .value_or(1));
  const double steps = reader.required_number("steps", NumberRange::positive);
  const double arrival = reader.optional_number("arrival", NumberRange::non_negative).value_or(0);

  StreamJob job;
  const std::optional<std::string> model = reader.optional_string("model");
  if (model && !service) {
    // The table's row gives the job type and the rates; `rates` may still replace them.
    if (list.table == nullptr)
      throw InputError(reader.position_of_field("model"),
                       "this needs 'throughputs: <Gavel simulation_throughputs.json>'");
    if (!list.table->find(*model, gang))
      throw InputError(reader.position_of_field("model"),
                       fmt::format("the throughput table has no ('{}', {})", *model, gang));
    job = make_gavel_stream_job(*list.table, *model, gang, steps, arrival);
  } else {
    if (!reader.has("rates"))
      throw InputError(
          reader.position_of_field("rates"),
          service ? "job is missing required field 'rates' ({DEVICE_TYPE: steps_per_second}); "
                    "the service has no throughput table for 'model'"
                  : "job: give 'rates' or a 'model' of the table");
    if (model) job.job_type = *model;
    job.gang_size = gang;
    job.total_steps = steps;
    job.arrival_seconds = arrival;
  }
  if (reader.has("rates")) job.steps_per_second = read_stream_rates(reader, "rates", list.source);
  if (reader.has("spread_rates"))
    job.spread_steps_per_second = read_stream_rates(reader, "spread_rates", list.source);
  if (service && std::none_of(job.steps_per_second.begin(), job.steps_per_second.end(),
                              [](const auto& rate) { return rate.second > 0; }))
    throw InputError(reader.position_of_field("rates"),
                     "field 'rates' gives no device type a rate > 0");
  job.name = reader.optional_string("name").value_or(default_name);
  if (auto user = reader.optional_string("user")) job.user = std::move(*user);
  if (auto weight = reader.optional_number("weight", NumberRange::positive))
    job.priority_weight = *weight;
  // A service deadline is seconds after the submission; a file's is on the model clock.
  if (auto deadline =
          reader.optional_number("deadline", service ? NumberRange::positive : NumberRange::any))
    job.deadline_seconds = *deadline;
  if (auto preemptible = reader.optional_boolean("preemptible")) job.preemptible = *preemptible;
  // Out-of-range requests are the simulator's to reject, with a reason, per job.
  constexpr std::int64_t kIntMin = std::numeric_limits<int>::min();
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  if (auto milli = reader.optional_whole_number("gpu_milli", kIntMin, kIntMax))
    job.gpu_milli = static_cast<int>(*milli);
  if (auto memory = reader.optional_number("gpu_memory_gb", NumberRange::any))
    job.gpu_memory_gb = *memory;
  if (auto cores = reader.optional_whole_number("cpu_cores", kIntMin, kIntMax))
    job.cpu_cores = static_cast<int>(*cores);
  if (auto cpu = reader.optional_number("cpu_milli", NumberRange::any)) job.cpu_milli = *cpu;
  if (auto memory = reader.optional_number("memory_mib", NumberRange::any))
    job.memory_mib = *memory;
  return job;
}

}  // namespace hetsched::io_detail
