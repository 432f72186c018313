// Pegasus DAX importer: reads an abstract workflow in the Pegasus DAX XML format
// (versions 2.1 to 3.x, as WorkflowSim and the Pegasus workflow generator write
// them) into one Job. Each <job id name runtime> is a task; its <uses file|name
// link="input|output" size> elements are the files it reads and writes;
// <child ref><parent ref/></child> elements are the edges, each carrying the bytes
// of the files the parent writes and the child reads. A DAX gives runtimes in
// seconds but no machine, so a runtime counts as seconds on one reference core
// (WorkflowImportOptions::reference_core_flops). Bad input (malformed XML, a
// missing parent, a duplicate id, a cycle, a negative runtime or size) is one
// InputError with the file, line and column.
#pragma once

#include <string>

#include "hetsched/io/workflow_import_options.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched {

Job import_pegasus_dax_file(const std::string& path, const WorkflowImportOptions& options = {});
Job parse_pegasus_dax(const std::string& text, const std::string& file,
                      const WorkflowImportOptions& options = {});

}  // namespace hetsched
