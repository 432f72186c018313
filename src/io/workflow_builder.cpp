#include "workflow_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <utility>

namespace hetsched::detail {

void WorkflowBuilder::reserve_tasks(std::size_t count) {
  tasks_.reserve(count);
  index_.reserve(count);
}

std::uint32_t WorkflowBuilder::add_task(const std::string& id, Task task, std::size_t offset) {
  const auto index = static_cast<std::uint32_t>(tasks_.size());
  const auto [it, added] = index_.try_emplace(id, index);
  if (!added) {
    const SourcePosition first = lines_.at(tasks_[it->second].offset);
    throw InputError(lines_.at(offset),
                     fmt::format("duplicate task id '{}' (first defined{})", id,
                                 first.line > 0 ? fmt::format(" at line {}", first.line) : ""));
  }
  tasks_.push_back(Entry{id, std::move(task), offset, {}, {}});
  return index;
}

std::uint32_t WorkflowBuilder::file_index(const std::string& name) {
  const auto [it, added] =
      file_index_.try_emplace(name, static_cast<std::uint32_t>(file_names_.size()));
  if (added) file_names_.push_back(&it->first);
  return it->second;
}

void WorkflowBuilder::add_input_file(std::uint32_t task, const std::string& file, double bytes) {
  tasks_[task].inputs.push_back(FileUse{file_index(file), bytes});
}

void WorkflowBuilder::add_output_file(std::uint32_t task, const std::string& file, double bytes) {
  tasks_[task].outputs.push_back(FileUse{file_index(file), bytes});
}

void WorkflowBuilder::add_parent(std::uint32_t child, const std::string& parent_id,
                                 std::size_t offset) {
  links_.push_back(PendingLink{child, true, parent_id, offset});
}

void WorkflowBuilder::add_child(std::uint32_t parent, const std::string& child_id,
                                std::size_t offset) {
  links_.push_back(PendingLink{parent, false, child_id, offset});
}

// Each task's files by name, each once with the size given first: the order in which
// finish() adds sizes up, so that the sums do not depend on the input's order.
void WorkflowBuilder::sort_files_by_name() {
  std::vector<std::uint32_t> by_name(file_names_.size());
  std::iota(by_name.begin(), by_name.end(), 0);
  std::sort(by_name.begin(), by_name.end(),
            [&](std::uint32_t a, std::uint32_t b) { return *file_names_[a] < *file_names_[b]; });
  std::vector<std::uint32_t> rank(file_names_.size());
  for (std::uint32_t r = 0; r < by_name.size(); ++r) rank[by_name[r]] = r;
  const auto by_rank = [](const FileUse& a, const FileUse& b) { return a.file < b.file; };
  const auto same_file = [](const FileUse& a, const FileUse& b) { return a.file == b.file; };
  for (Entry& e : tasks_)
    for (std::vector<FileUse>* uses : {&e.inputs, &e.outputs}) {
      for (FileUse& use : *uses) use.file = rank[use.file];
      std::stable_sort(uses->begin(), uses->end(), by_rank);
      uses->erase(std::unique(uses->begin(), uses->end(), same_file), uses->end());
    }
}

namespace {

// The use of file `rank` in a list sorted by rank, or null.
template <class Use>
const Use* find_file(const std::vector<Use>& uses, std::uint32_t rank) {
  const auto it = std::lower_bound(uses.begin(), uses.end(), rank,
                                   [](const Use& use, std::uint32_t r) { return use.file < r; });
  return it != uses.end() && it->file == rank ? &*it : nullptr;
}

}  // namespace

Job WorkflowBuilder::finish(std::string name, std::string family) {
  if (tasks_.empty()) throw InputError(SourcePosition{lines_.file()}, "the workflow has no tasks");
  std::vector<std::pair<std::uint32_t, std::uint32_t>> links;  // (parent, child)
  links.reserve(links_.size());
  for (const PendingLink& l : links_) {
    const char* role = l.other_is_parent ? "parent" : "child";
    const auto it = index_.find(l.other_id);
    if (it == index_.end())
      throw InputError(lines_.at(l.offset),
                       fmt::format("task '{}' names {} '{}', which is not a task of the "
                                   "workflow",
                                   tasks_[l.declaring_task].id, role, l.other_id));
    if (it->second == l.declaring_task)
      throw InputError(lines_.at(l.offset),
                       fmt::format("task '{}' names itself as its {} (a cycle)",
                                   tasks_[l.declaring_task].id, role));
    if (l.other_is_parent)
      links.emplace_back(it->second, l.declaring_task);
    else
      links.emplace_back(l.declaring_task, it->second);
  }
  // Once each (a link is often declared by both its ends), in (parent, child) order.
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  sort_files_by_name();
  Job job;
  job.name = std::move(name);
  job.family = std::move(family);
  job.edges.reserve(links.size());
  for (const auto& [parent, child] : links) {
    // The files both name, in name order either way; walking the shorter list keeps
    // a task with many outputs and many children from costing outputs × children.
    const std::vector<FileUse>& outputs = tasks_[parent].outputs;
    const std::vector<FileUse>& inputs = tasks_[child].inputs;
    double bytes = 0;
    if (outputs.size() <= inputs.size()) {
      for (const FileUse& output : outputs)
        if (find_file(inputs, output.file)) bytes += output.bytes;
    } else {
      for (const FileUse& input : inputs)
        if (const FileUse* output = find_file(outputs, input.file)) bytes += output->bytes;
    }
    job.edges.push_back(Edge{parent, child, bytes});
  }
  reject_cycles(job.edges);
  std::vector<bool> produced(file_names_.size(), false);  // by rank
  for (const Entry& e : tasks_)
    for (const FileUse& output : e.outputs) produced[output.file] = true;
  job.tasks.reserve(tasks_.size());
  for (Entry& e : tasks_) {
    double external = 0;
    for (const FileUse& input : e.inputs)
      if (!produced[input.file]) external += input.bytes;
    e.task.input_bytes = external;
    job.tasks.push_back(std::move(e.task));
  }
  return job;
}

// Depth-first search with colours; the first back edge found closes a cycle, which
// the message spells out task by task. The edges come sorted by parent, so a task's
// children are the range first_edge[t] .. first_edge[t + 1] of them.
void WorkflowBuilder::reject_cycles(const std::vector<Edge>& edges) const {
  const std::size_t n = tasks_.size();
  std::vector<std::size_t> first_edge(n + 1, 0);
  for (const Edge& e : edges) ++first_edge[e.from + 1];
  std::partial_sum(first_edge.begin(), first_edge.end(), first_edge.begin());
  enum : std::uint8_t { unvisited, on_path, done };
  std::vector<std::uint8_t> colour(n, unvisited);
  std::vector<std::uint32_t> path;
  std::vector<std::size_t> next_child;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (colour[root] != unvisited) continue;
    path = {root};
    next_child = {first_edge[root]};
    colour[root] = on_path;
    while (!path.empty()) {
      const std::uint32_t t = path.back();
      if (next_child.back() == first_edge[t + 1]) {
        colour[t] = done;
        path.pop_back();
        next_child.pop_back();
        continue;
      }
      const std::uint32_t c = edges[next_child.back()++].to;
      if (colour[c] == on_path) {
        const auto start = std::find(path.begin(), path.end(), c);
        std::string cycle;
        for (auto it = start; it != path.end(); ++it) cycle += tasks_[*it].id + " -> ";
        cycle += tasks_[c].id;
        throw InputError(lines_.at(tasks_[c].offset),
                         fmt::format("the dependencies form a cycle: {}", cycle));
      }
      if (colour[c] == unvisited) {
        colour[c] = on_path;
        path.push_back(c);
        next_child.push_back(first_edge[c]);
      }
    }
  }
}

LineIndex::LineIndex(std::string file, const std::string& text)
    : file_(std::move(file)), line_starts_{0}, size_(text.size()) {
  for (std::size_t i = text.find('\n'); i != std::string::npos; i = text.find('\n', i + 1))
    line_starts_.push_back(i + 1);
}

SourcePosition LineIndex::at(std::size_t offset) const {
  if (offset == std::string::npos) return SourcePosition{file_};
  offset = std::min(offset, size_);
  const auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<int>(next - line_starts_.begin());
  return SourcePosition{file_, line, static_cast<int>(offset - *(next - 1)) + 1};
}

}  // namespace hetsched::detail
