#include "hetsched/io/scheduling_input.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "document_readers.hpp"
#include "hetsched/cluster/default_cluster.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/cost_matrix_file.hpp"
#include "hetsched/io/pegasus_dax_importer.hpp"
#include "hetsched/io/wfcommons_importer.hpp"
#include "hetsched/io/workload_file.hpp"
#include "hetsched/workload/generators.hpp"
#include "hetsched/workload/workload_validation.hpp"
#include "input_syntax.hpp"
#include "yaml_fields.hpp"

namespace hetsched {
namespace {

constexpr const char* kBuiltInCluster = "<built-in cluster>";

SchedulingInput with_cluster(const std::string& cluster_file) {
  if (cluster_file.empty()) return {default_cluster(), {}, ConfigKind::workload, kBuiltInCluster};
  return {load_cluster_file(cluster_file), {}, ConfigKind::workload, cluster_file};
}

Workload one_job(Job job) {
  Workload workload;
  workload.jobs.push_back(std::move(job));
  return workload;
}

}  // namespace

SchedulingInput load_scheduling_input(const std::string& cluster_file,
                                      const std::string& workload_file, std::uint64_t seed) {
  if (workload_file.empty()) {
    SchedulingInput input = with_cluster(cluster_file);
    input.workload = default_workload(seed, input.cluster.node_count());
    validate_workload(input.workload, input.cluster, "<built-in workload>");
    return input;
  }
  const std::string text = read_text_file(workload_file, "workload file");
  // JSON is parsed to be told; that parse is the one its reader reads. (A syntax error
  // is reported here, as the reader would.)
  std::optional<io_detail::InputDocument> document;
  if (io_detail::kind_needs_a_parse(text)) document.emplace(text, workload_file, room_after(text));
  const ConfigFileSummary summary =
      document ? io_detail::summarize_document(*document) : summarize_config_text(text);
  const auto parsed = [&](std::string_view top_level_fields) -> const io_detail::InputDocument& {
    if (!document)
      document = io_detail::parse_document(text, workload_file, top_level_fields, room_after(text));
    return *document;
  };
  switch (summary.kind) {
    case ConfigKind::stream_workload:
      return SchedulingInput{{}, {}, ConfigKind::stream_workload, {}};
    case ConfigKind::workload: {
      std::string cluster = cluster_file;
      if (cluster.empty() && !summary.cluster_file.empty())
        cluster = (std::filesystem::path(workload_file).parent_path() / summary.cluster_file)
                      .lexically_normal()
                      .string();
      SchedulingInput input = with_cluster(cluster);
      input.workload = io_detail::read_workload(parsed("'jobs'"), input.cluster);
      return input;
    }
    case ConfigKind::wfcommons:
    case ConfigKind::pegasus_dax: {
      SchedulingInput input = with_cluster(cluster_file);
      input.workload_kind = summary.kind;
      input.workload = one_job(summary.kind == ConfigKind::wfcommons
                                   ? io_detail::read_wfcommons(parsed("'workflow'"), text)
                                   : parse_pegasus_dax(text, workload_file));
      validate_workload(input.workload, input.cluster, workload_file);
      return input;
    }
    case ConfigKind::cost_matrix: {
      if (!cluster_file.empty())
        throw InputError(SourcePosition{cluster_file, 0, 0},
                         fmt::format("--cluster cannot be used with the cost matrix {}: its "
                                     "columns are its devices (drop --cluster)",
                                     workload_file));
      const CostMatrix matrix = io_detail::read_cost_matrix(
          parsed("'devices', 'tasks' and optionally 'name' and 'edges'"));
      SchedulingInput input{cost_matrix_cluster(matrix), one_job(cost_matrix_job(matrix)),
                            ConfigKind::cost_matrix, workload_file};
      validate_workload(input.workload, input.cluster, workload_file);
      return input;
    }
    case ConfigKind::cluster:
    case ConfigKind::fault:
    case ConfigKind::unknown:
      break;
  }
  // A file of no kind may be one that does not even parse: that error, with its position,
  // says more than what was expected.
  if (summary.kind == ConfigKind::unknown) check_input_syntax(text, workload_file);
  const std::string found = summary.kind == ConfigKind::unknown
                                ? std::string("none of their top-level fields")
                                : fmt::format("a {}", config_kind_name(summary.kind));
  throw InputError(SourcePosition{workload_file, 1, 1},
                   fmt::format("expected a workload (`jobs:`), a WfCommons workflow, a Pegasus "
                               "DAX or a cost matrix (`devices:` and `tasks:`); found {}",
                               found));
}

}  // namespace hetsched
