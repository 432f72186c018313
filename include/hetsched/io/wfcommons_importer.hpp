// WfCommons importer: reads an executed workflow instance in the WfCommons JSON
// format (WfFormat, schema versions 1.4, 1.5 and 1.6) into one Job. Tasks, their
// parent/child links and the files each reads and writes give the DAG; an edge
// carries the bytes of the files the parent writes and the child reads. Measured
// runtimes become model work as WorkflowImportOptions describes. Bad input (a
// missing parent, a duplicate id, a cycle, a negative runtime or size, an unknown
// schema version, malformed JSON) is one InputError with the file, line and column.
#pragma once

#include <string>

#include "hetsched/io/workflow_import_options.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched {

// Reads the file at `path`; throws InputError when it cannot be read or is invalid.
Job import_wfcommons_file(const std::string& path, const WorkflowImportOptions& options = {});
// Parses JSON text; `file` names it in error messages.
Job parse_wfcommons(const std::string& text, const std::string& file,
                    const WorkflowImportOptions& options = {});

}  // namespace hetsched
