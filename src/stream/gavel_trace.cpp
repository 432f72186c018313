// Importer for Gavel's job traces (see gavel_trace.hpp for the two layouts).
#include "hetsched/stream/gavel_trace.hpp"

#include "hetsched/core/delimited_text.hpp"

namespace hetsched {

std::vector<GavelTraceJob> parse_gavel_trace(const std::string& text,
                                             const std::string& file_name) {
  using namespace delimited_text;
  std::vector<GavelTraceJob> jobs;
  std::size_t layout = 0;  // 10 or 7, fixed by the first non-empty line
  const auto all_lines = lines(text);
  for (std::size_t i = 0; i < all_lines.size(); ++i) {
    const std::string_view line = all_lines[i];
    const int line_number = static_cast<int>(i) + 1;
    if (line.empty()) continue;
    const auto fields = split(line, '\t');
    if (layout == 0) {
      if (fields.size() != 10 && fields.size() != 7)
        throw InputError(SourcePosition{file_name, line_number, 0},
                         "expected 10 tab-separated fields (job_type, command, working_directory, "
                         "num_steps_arg, needs_data_dir, total_steps, scale_factor, "
                         "priority_weight, SLO, arrival_time) or the older 7, got " +
                             std::to_string(fields.size()));
      layout = fields.size();
    }
    if (fields.size() != layout)
      throw InputError(SourcePosition{file_name, line_number, 0},
                       "expected " + std::to_string(layout) + " tab-separated fields, got " +
                           std::to_string(fields.size()));
    auto where = [&](std::size_t field) {
      int column = 1;
      for (std::size_t f = 0; f < field; ++f) column += static_cast<int>(fields[f].size()) + 1;
      return SourcePosition{file_name, line_number, column};
    };
    GavelTraceJob job;
    job.line = line_number;
    job.model = std::string(fields[0]);
    if (job.model.empty()) throw InputError(where(0), "empty job type");
    if (layout == 10) {
      job.total_steps = parse_number(fields[5], where(5), "total_steps");
      job.scale_factor = parse_integer(fields[6], where(6), "scale_factor");
      job.priority_weight = parse_number(fields[7], where(7), "priority_weight");
      const double slo = parse_number(fields[8], where(8), "SLO");
      if (slo > 0) job.slo_factor = slo;
      job.arrival_seconds = parse_number(fields[9], where(9), "arrival_time");
    } else {
      job.total_steps = parse_number(fields[4], where(4), "total_steps");
      job.arrival_seconds = parse_number(fields[5], where(5), "arrival_time");
      job.scale_factor = parse_integer(fields[6], where(6), "scale_factor");
    }
    if (job.total_steps <= 0)
      throw InputError(where(layout == 10 ? 5 : 4), "total_steps must be > 0");
    if (job.scale_factor < 1)
      throw InputError(where(layout == 10 ? 6 : 6), "scale_factor must be >= 1");
    if (job.priority_weight <= 0) throw InputError(where(7), "priority_weight must be > 0");
    if (job.arrival_seconds < 0)
      throw InputError(where(layout == 10 ? 9 : 5), "arrival_time must be >= 0");
    jobs.push_back(std::move(job));
  }
  return jobs;
}

std::vector<GavelTraceJob> load_gavel_trace(const std::string& path) {
  return parse_gavel_trace(read_text_file(path), path);
}

}  // namespace hetsched
