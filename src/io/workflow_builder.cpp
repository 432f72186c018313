#include "workflow_builder.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace hetsched::detail {

std::uint32_t WorkflowBuilder::add_task(const std::string& id, Task task, SourcePosition where) {
  if (const auto it = index_.find(id); it != index_.end()) {
    const SourcePosition& first = tasks_[it->second].where;
    throw InputError(where,
                     fmt::format("duplicate task id '{}' (first defined{})", id,
                                 first.line > 0 ? fmt::format(" at line {}", first.line) : ""));
  }
  const auto index = static_cast<std::uint32_t>(tasks_.size());
  index_.emplace(id, index);
  tasks_.push_back(Entry{id, std::move(task), std::move(where), {}, {}});
  return index;
}

void WorkflowBuilder::add_input_file(std::uint32_t task, const std::string& file, double bytes) {
  tasks_[task].inputs.emplace(file, bytes);
}

void WorkflowBuilder::add_output_file(std::uint32_t task, const std::string& file, double bytes) {
  tasks_[task].outputs.emplace(file, bytes);
}

void WorkflowBuilder::add_parent(std::uint32_t child, const std::string& parent_id,
                                 SourcePosition where) {
  links_.push_back(PendingLink{child, parent_id, true, std::move(where)});
}

void WorkflowBuilder::add_child(std::uint32_t parent, const std::string& child_id,
                                SourcePosition where) {
  links_.push_back(PendingLink{parent, child_id, false, std::move(where)});
}

Job WorkflowBuilder::finish(std::string name, std::string family) {
  if (tasks_.empty()) throw InputError(SourcePosition{file_}, "the workflow has no tasks");
  std::set<std::pair<std::uint32_t, std::uint32_t>> links;  // (parent, child), once each
  for (const PendingLink& l : links_) {
    const char* role = l.other_is_parent ? "parent" : "child";
    const auto it = index_.find(l.other_id);
    if (it == index_.end())
      throw InputError(l.where, fmt::format("task '{}' names {} '{}', which is not a task of the "
                                            "workflow",
                                            tasks_[l.declaring_task].id, role, l.other_id));
    if (it->second == l.declaring_task)
      throw InputError(l.where, fmt::format("task '{}' names itself as its {} (a cycle)",
                                            tasks_[l.declaring_task].id, role));
    if (l.other_is_parent)
      links.emplace(it->second, l.declaring_task);
    else
      links.emplace(l.declaring_task, it->second);
  }
  Job job;
  job.name = std::move(name);
  job.family = std::move(family);
  for (const auto& [parent, child] : links) {
    double bytes = 0;
    for (const auto& [file, size] : tasks_[parent].outputs)
      if (tasks_[child].inputs.contains(file)) bytes += size;
    job.edges.push_back(Edge{parent, child, bytes});
  }
  reject_cycles(job.edges);
  std::set<std::string> produced;
  for (const Entry& e : tasks_)
    for (const auto& output : e.outputs) produced.insert(output.first);
  for (Entry& e : tasks_) {
    double external = 0;
    for (const auto& [file, size] : e.inputs)
      if (!produced.contains(file)) external += size;
    e.task.input_bytes = external;
    job.tasks.push_back(std::move(e.task));
  }
  return job;
}

// Depth-first search with colours; the first back edge found closes a cycle, which
// the message spells out task by task.
void WorkflowBuilder::reject_cycles(const std::vector<Edge>& edges) const {
  const std::size_t n = tasks_.size();
  std::vector<std::vector<std::uint32_t>> children(n);
  for (const Edge& e : edges) children[e.from].push_back(e.to);
  enum : std::uint8_t { unvisited, on_path, done };
  std::vector<std::uint8_t> colour(n, unvisited);
  std::vector<std::uint32_t> path;
  std::vector<std::size_t> next_child;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (colour[root] != unvisited) continue;
    path = {root};
    next_child = {0};
    colour[root] = on_path;
    while (!path.empty()) {
      const std::uint32_t t = path.back();
      if (next_child.back() == children[t].size()) {
        colour[t] = done;
        path.pop_back();
        next_child.pop_back();
        continue;
      }
      const std::uint32_t c = children[t][next_child.back()++];
      if (colour[c] == on_path) {
        const auto start = std::find(path.begin(), path.end(), c);
        std::string cycle;
        for (auto it = start; it != path.end(); ++it) cycle += tasks_[*it].id + " -> ";
        cycle += tasks_[c].id;
        throw InputError(tasks_[c].where, fmt::format("the dependencies form a cycle: {}", cycle));
      }
      if (colour[c] == unvisited) {
        colour[c] = on_path;
        path.push_back(c);
        next_child.push_back(0);
      }
    }
  }
}

LineIndex::LineIndex(std::string file, const std::string& text)
    : file_(std::move(file)), line_starts_{0}, size_(text.size()) {
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts_.push_back(i + 1);
}

SourcePosition LineIndex::at(std::size_t offset) const {
  offset = std::min(offset, size_);
  const auto next = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<int>(next - line_starts_.begin());
  return SourcePosition{file_, line, static_cast<int>(offset - *(next - 1)) + 1};
}

}  // namespace hetsched::detail
