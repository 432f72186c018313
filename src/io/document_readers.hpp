// The readers of an input file that is already parsed: what a caller uses when it parsed
// the file once to tell its kind (load_scheduling_input), so a big JSON file is parsed
// once, not once to be told and again to be read. Each public parse_* function is
// parse_document followed by one of these. Not a public header.
#pragma once

#include <string>

#include "hetsched/cluster/cluster.hpp"
#include "hetsched/io/config_kind.hpp"
#include "hetsched/io/cost_matrix_file.hpp"
#include "hetsched/io/wfcommons_importer.hpp"
#include "hetsched/io/workload_file.hpp"
#include "input_document.hpp"

namespace hetsched::io_detail {

// The kind of a parsed document, told from its root's fields as summarize_config_text tells
// it from the text.
ConfigFileSummary summarize_document(const InputDocument& document);

// summarize_config_text, reading JSON where it is when `room_after` bytes past the text may
// be read (room_after of the std::string it is).
ConfigFileSummary summarize_text(std::string_view text, std::size_t room_after);

// Whether summarize_config_text parses the whole of `text` to tell its kind (JSON, or
// YAML in flow style): then a caller that reads the file too should parse it into an
// InputDocument first and use summarize_document.
bool kind_needs_a_parse(std::string_view text);

Workload read_workload(const InputDocument& document, const Cluster& cluster,
                       const WorkloadFileLimits& limits = {});
// `text` is the document's own text (WfCommons positions are counted in it).
Job read_wfcommons(const InputDocument& document, const std::string& text,
                   const WorkflowImportOptions& options = {});
CostMatrix read_cost_matrix(const InputDocument& document);

}  // namespace hetsched::io_detail
