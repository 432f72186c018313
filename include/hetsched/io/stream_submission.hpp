// Reading stream jobs submitted to `hetsched serve` (the service calls these; they live in io,
// beside the stream workload file, because each job is read by the same reader): the stream
// workload file format (docs/cluster-scheduling.md, `kind: stream`) as a request body, YAML or
// JSON. A stream job is a gang of `gang` devices of one type held together until `steps` of work
// are done at the job's rate on that type (`rates: {TYPE: steps_per_second}`), with a priority
// weight, an arrival and an optional deadline (both seconds after the submission, on the model
// clock) and a preemptible flag. The cluster is the engine's, so a `cluster:` section is read for
// its shape and otherwise ignored; the parts of the file format that read files on the server
// (`throughputs`, `gavel_trace`) or invent jobs (`generate`, `model` without a table) are refused.
// Every mistake is an InputError whose position's "file" names the field ("body.jobs[2].gang") with
// the line and column, so the REST layer answers 400 naming it; an unknown field comes with the
// closest valid names.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "hetsched/stream/stream_job.hpp"

namespace hetsched {

// True when the text is a mapping whose `kind` is `stream` (cheap when it is not).
bool is_stream_submission(std::string_view text);

// The jobs of a stream submission, in order. Throws InputError naming the field.
std::vector<StreamJob> parse_stream_submission(std::string_view text, std::size_t max_jobs);

}  // namespace hetsched
