// read_stream_job: one entry of a stream job list read into a StreamJob. A stream
// workload file's `jobs:` and a stream submission to `hetsched serve` are the same format
// and both read their jobs here, through FieldReader (unknown fields with the closest
// names, file:line:column on every error); the few rules in which they differ are the
// job list's StreamJobSource. Not a public header.
#pragma once

#include <cstdint>
#include <string>

#include "hetsched/stream/gavel_throughputs.hpp"
#include "hetsched/stream/stream_job.hpp"
#include "input_document.hpp"

namespace hetsched::io_detail {

// Where a job list comes from.
enum class StreamJobSource : std::uint8_t {
  // A stream workload file: `model` names a row of the file's Gavel throughput table
  // (which gives the rates unless `rates` does), a job may ask for a GPU share, GPU
  // memory and CPU cores, and requests out of range are the simulator's to reject.
  workload_file,
  // A submission to the service: no table (`model` is a label), `rates` required with one
  // rate above 0, a gang of 1 to 4096 devices, a deadline after the submission; errors
  // name the field's path ("body.jobs[2].gang") in place of the file.
  service_submission,
};

struct StreamJobList {
  StreamJobSource source = StreamJobSource::workload_file;
  const GavelThroughputTable* table = nullptr;  // a workload file's table; nullptr: none
};

// Reads `map`, job number `index` of `list` (0-based). `default_name` names a job without
// a `name`; `field_path` ("body.jobs[2]") is what a service submission's errors name.
StreamJob read_stream_job(const InputNode& map, const std::string& file, const StreamJobList& list,
                          const std::string& default_name, const std::string& field_path = {});

}  // namespace hetsched::io_detail
