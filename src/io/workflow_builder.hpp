// WorkflowBuilder: what the WfCommons and Pegasus importers share once they have
// read their syntax — tasks with ids, the files each reads and writes, and the
// declared parent links. finish() resolves the links (a missing parent is an
// error), rejects cycles, gives each edge the bytes of the files the parent writes
// and the child reads, and gives each task the bytes of the input files no task of
// the workflow writes (staged in from the job's data node).
//
// Workflows reach 100k tasks, so every step is a hash lookup or a sort: ids and file
// names are looked up by hash, each task's files are kept sorted by name, and
// positions are byte offsets into the text, turned into a line and column only for
// an error.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/job.hpp"

namespace hetsched::detail {

// 1-based line and column of byte offsets in a text (binary search over the line
// starts, found once).
class LineIndex {
 public:
  LineIndex(std::string file, const std::string& text);
  // npos (an unknown offset) gives the file alone.
  SourcePosition at(std::size_t offset) const;
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<std::size_t> line_starts_;
  std::size_t size_;
};

class WorkflowBuilder {
 public:
  // Offsets given to the builder are into the text `lines` indexes; npos: unknown.
  explicit WorkflowBuilder(const LineIndex& lines) : lines_(lines) {}

  void reserve_tasks(std::size_t count);
  // Adds a task with a workflow-unique id; a duplicate id is an InputError at `offset`.
  std::uint32_t add_task(const std::string& id, Task task, std::size_t offset);
  bool has_task(std::string_view id) const { return index_.contains(id); }
  std::uint32_t task_index(const std::string& id) const { return index_.at(id); }
  Task& task(std::uint32_t index) { return tasks_[index].task; }

  // A file the task reads or writes; the size must be known and non-negative (the
  // importer checks and positions that). Repeats of one file on one task count once,
  // with the size given first.
  void add_input_file(std::uint32_t task, const std::string& file, double bytes);
  void add_output_file(std::uint32_t task, const std::string& file, double bytes);
  // `child` depends on the task with id `parent_id`, resolved in finish().
  void add_parent(std::uint32_t child, const std::string& parent_id, std::size_t offset);
  // The task with id `child_id` depends on `parent`, resolved in finish().
  void add_child(std::uint32_t parent, const std::string& child_id, std::size_t offset);

  // The job; throws InputError for a missing parent or a cycle.
  Job finish(std::string name, std::string family);

 private:
  struct FileUse {
    std::uint32_t file;  // index into file_names_; in finish(), the rank of the name
    double bytes;
  };
  struct Entry {
    std::string id;
    Task task;
    std::size_t offset;
    std::vector<FileUse> inputs, outputs;
  };
  struct PendingLink {
    std::uint32_t declaring_task;
    bool other_is_parent;
    std::string other_id;
    std::size_t offset;
  };
  std::uint32_t file_index(const std::string& name);
  void sort_files_by_name();
  void reject_cycles(const std::vector<Edge>& edges) const;

  const LineIndex& lines_;
  std::vector<Entry> tasks_;
  // Looked up by views too (the hash and equality are transparent).
  struct IdHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view id) const { return std::hash<std::string_view>{}(id); }
  };
  std::unordered_map<std::string, std::uint32_t, IdHash, std::equal_to<>> index_;
  std::unordered_map<std::string, std::uint32_t> file_index_;
  std::vector<const std::string*> file_names_;  // the keys of file_index_, by index
  std::vector<PendingLink> links_;
};

}  // namespace hetsched::detail
