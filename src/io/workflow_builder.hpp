// WorkflowBuilder: what the WfCommons and Pegasus importers share once they have
// read their syntax — tasks with ids, the files each reads and writes, and the
// declared parent links. finish() resolves the links (a missing parent is an
// error), rejects cycles, gives each edge the bytes of the files the parent writes
// and the child reads, and gives each task the bytes of the input files no task of
// the workflow writes (staged in from the job's data node).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched::detail {

class WorkflowBuilder {
 public:
  explicit WorkflowBuilder(std::string file) : file_(std::move(file)) {}

  // Adds a task with a workflow-unique id; a duplicate id is an InputError at `where`.
  std::uint32_t add_task(const std::string& id, Task task, SourcePosition where);
  bool has_task(const std::string& id) const { return index_.contains(id); }
  std::uint32_t task_index(const std::string& id) const { return index_.at(id); }
  Task& task(std::uint32_t index) { return tasks_[index].task; }

  // A file the task reads or writes; the size must be known and non-negative (the
  // importer checks and positions that). Repeats of one file on one task count once.
  void add_input_file(std::uint32_t task, const std::string& file, double bytes);
  void add_output_file(std::uint32_t task, const std::string& file, double bytes);
  // `child` depends on the task with id `parent_id`, resolved in finish().
  void add_parent(std::uint32_t child, const std::string& parent_id, SourcePosition where);
  // The task with id `child_id` depends on `parent`, resolved in finish().
  void add_child(std::uint32_t parent, const std::string& child_id, SourcePosition where);

  // The job; throws InputError for a missing parent or a cycle.
  Job finish(std::string name, std::string family);

 private:
  struct Entry {
    std::string id;
    Task task;
    SourcePosition where;
    std::map<std::string, double> inputs, outputs;
  };
  struct PendingLink {
    std::uint32_t declaring_task;
    std::string other_id;
    bool other_is_parent;
    SourcePosition where;
  };
  void reject_cycles(const std::vector<Edge>& edges) const;

  std::string file_;
  std::vector<Entry> tasks_;
  std::map<std::string, std::uint32_t> index_;
  std::vector<PendingLink> links_;
};

// 1-based line and column of byte offsets in a text (binary search over the line
// starts, found once).
class LineIndex {
 public:
  LineIndex(std::string file, const std::string& text);
  SourcePosition at(std::size_t offset) const;

 private:
  std::string file_;
  std::vector<std::size_t> line_starts_;
  std::size_t size_;
};

}  // namespace hetsched::detail
