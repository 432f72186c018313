// WfCommons JSON importer. Two layouts exist in the supported versions:
//  - 1.5 and 1.6: workflow.specification.tasks[] (id, name, parents, children,
//    inputFiles, outputFiles by file id), workflow.specification.files[] (id,
//    sizeInBytes), workflow.execution.tasks[] (id, runtimeInSeconds, coreCount,
//    avgCPU, readBytes, writtenBytes, memoryInBytes, machines) and
//    workflow.execution.machines[] (nodeName, cpu.coreCount, cpu.speedInMHz);
//  - 1.4: workflow.tasks[] with everything on the task (name, id, category,
//    parents/children by task name, files[] with name, sizeInBytes and link
//    input|output, runtimeInSeconds, cores, avgCPU, machine) and
//    workflow.machines[] (nodeName, cpu.count, cpu.speed).
// nlohmann-json keeps no source positions for values, so semantic errors are
// positioned by finding the offending id or key in the text (the first match
// after the task's own id); syntax errors use the parser's byte offset. Each task's
// own position comes from an index of the text's "key": "value" pairs, built in one
// pass, and every other lookup is by hash, so an import takes time in proportion to
// the file; most of it goes to nlohmann-json building and freeing its tree.
#include "hetsched/io/wfcommons_importer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "hetsched/core/text_file.hpp"
#include "json_syntax_error.hpp"
#include "workflow_builder.hpp"

namespace hetsched {
namespace {

using nlohmann::json;

// Finds ids and keys in the JSON text to position semantic errors. Every task and
// file is positioned by its `"id": "value"` pair, so pair() looks values up in an
// index of the text's pairs, built in one pass per key on first use: a search of the
// whole text per id made an import quadratic in the number of tasks.
class JsonTextLocator {
 public:
  JsonTextLocator(const std::string& file, const std::string& text)
      : file_(file), text_(text), lines_(file, text) {}

  // Offset of the `nth` occurrence of `"key": "value"` (any spacing) at or after
  // `from`, or npos.
  std::size_t pair(std::string_view key, std::string_view value, int nth = 0,
                   std::size_t from = 0) const {
    if (from == std::string::npos) return from;
    if (!indexable(key, value)) return pair_by_search(key, value, nth, from);
    const PairIndex& index = pairs_with_key(key);
    const auto found = index.by_value.find(value);
    if (found == index.by_value.end()) return std::string::npos;
    for (std::uint32_t i = found->second.first; i != PairIndex::kNone; i = index.next[i])
      if (index.offsets[i] >= from && nth-- == 0) return index.offsets[i];
    return std::string::npos;
  }
  // Offset of the first JSON string `"value"` at or after `from`, or npos.
  std::size_t string_after(std::size_t from, std::string_view value) const {
    if (from == std::string::npos) return from;
    searched_.assign(1, '"').append(value).push_back('"');
    return text_.find(searched_, from);
  }
  // Offset of the first key `"key"`, or npos.
  std::size_t key(std::string_view key) const { return text_.find(quote(key)); }
  SourcePosition at(std::size_t offset) const { return lines_.at(offset); }
  const detail::LineIndex& lines() const { return lines_; }
  const std::string& file() const { return file_; }

 private:
  // The pairs of one key: each occurrence's offset (its value's opening quote) in text
  // order, chained to the next occurrence of the same value.
  struct PairIndex {
    static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
    struct Chain {
      std::uint32_t first, last;
    };
    std::unordered_map<std::string_view, Chain> by_value;  // the text between the quotes
    std::vector<std::size_t> offsets;
    std::vector<std::uint32_t> next;
  };

  static std::string quote(std::string_view s) { return fmt::format("\"{}\"", s); }
  // std::isspace in the C locale (the program never sets another), inlined: the
  // index calls it for every quote of the text.
  static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  }

  // The index answers exactly as the search when neither the key nor the value holds
  // a quote, and the value is not only a colon and spaces (the one value whose quoted
  // form can overlap a key's closing quote, which the search steps over).
  static bool indexable(std::string_view key, std::string_view value) {
    if (key.find('"') != std::string_view::npos || value.find('"') != std::string_view::npos)
      return false;
    return value.find(':') == std::string_view::npos ||
           !std::all_of(value.begin(), value.end(), [](char c) { return c == ':' || is_space(c); });
  }

  // Where the text before the quote at `quote_at` is `"key"`, a colon and spaces:
  // the offset of the colon's key, else npos.
  std::size_t key_before(std::size_t quote_at, const std::string& quoted_key) const {
    std::size_t before = quote_at;
    while (before > 0 && is_space(text_[before - 1])) --before;
    if (before == 0 || text_[before - 1] != ':') return std::string::npos;
    --before;
    while (before > 0 && is_space(text_[before - 1])) --before;
    if (before >= quoted_key.size() &&
        text_.compare(before - quoted_key.size(), quoted_key.size(), quoted_key) == 0)
      return before - quoted_key.size();
    return std::string::npos;
  }

  // Every `"key": "value"` of the text with a quote-free value, by value. A value's
  // opening quote follows a colon and spaces, so the scan goes from colon to colon.
  const PairIndex& pairs_with_key(std::string_view key) const {
    const auto known = pairs_by_key_.find(key);
    if (known != pairs_by_key_.end()) return known->second;
    PairIndex& index = pairs_by_key_[std::string(key)];
    const std::string quoted_key = quote(key);
    const std::string_view text(text_);
    for (std::size_t colon = text.find(':'); colon != std::string_view::npos;
         colon = text.find(':', colon + 1)) {
      std::size_t at = colon + 1;
      while (at < text.size() && is_space(text[at])) ++at;
      if (at == text.size() || text[at] != '"' || key_before(at, quoted_key) == std::string::npos)
        continue;
      const std::size_t close = text.find('"', at + 1);
      if (close == std::string_view::npos) break;
      const auto occurrence = static_cast<std::uint32_t>(index.offsets.size());
      index.offsets.push_back(at);
      index.next.push_back(PairIndex::kNone);
      const auto [chain, added] = index.by_value.try_emplace(
          text.substr(at + 1, close - at - 1), PairIndex::Chain{occurrence, occurrence});
      if (!added) {
        index.next[chain->second.last] = occurrence;
        chain->second.last = occurrence;
      }
    }
    return index;
  }

  // The search the index stands in for, for the pairs it does not hold.
  std::size_t pair_by_search(std::string_view key, std::string_view value, int nth,
                             std::size_t from) const {
    const std::string quoted_value = quote(value);
    const std::string quoted_key = quote(key);
    std::size_t at = from;
    while ((at = text_.find(quoted_value, at)) != std::string::npos) {
      if (key_before(at, quoted_key) != std::string::npos && nth-- == 0) return at;
      at += quoted_value.size();
    }
    return std::string::npos;
  }

  const std::string& file_;
  const std::string& text_;
  detail::LineIndex lines_;
  mutable std::map<std::string, PairIndex, std::less<>> pairs_by_key_;
  mutable std::string searched_;  // string_after's quoted value, its buffer reused
};

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// The checks below take what they check and where as a value or as a function that
// returns one: a function's message is built only when the check fails, since an
// import checks several values of every task.
template <class T>
decltype(auto) resolve(const T& x) {
  if constexpr (std::is_invocable_v<const T&>)
    return x();
  else
    return x;
}

template <class What, class Where>
const json& required(const json& object, const char* key, const What& what, const Where& where) {
  const json* value = member(object, key);
  if (!value) throw InputError(resolve(where), fmt::format("{} has no '{}'", resolve(what), key));
  return *value;
}

template <class What, class Where>
const std::string& string_of(const json& value, const What& what, const Where& where) {
  if (!value.is_string())
    throw InputError(resolve(where),
                     fmt::format("{} must be a string, not {}", resolve(what), value.type_name()));
  return value.get_ref<const std::string&>();
}

template <class What, class Where>
double number_of(const json& value, const What& what, const Where& where) {
  if (!value.is_number())
    throw InputError(resolve(where),
                     fmt::format("{} must be a number, not {}", resolve(what), value.type_name()));
  return value.get<double>();
}

template <class What, class Where>
double non_negative(const json& value, const What& what, const Where& where) {
  const double x = number_of(value, what, where);
  if (!(x >= 0))
    throw InputError(resolve(where), fmt::format("{} is negative ({})", resolve(what), x));
  return x;
}

template <class What, class Where>
const json& array_of(const json& value, const What& what, const Where& where) {
  if (!value.is_array())
    throw InputError(resolve(where),
                     fmt::format("{} must be an array, not {}", resolve(what), value.type_name()));
  return value;
}

// What the execution record says about one task, common to both layouts.
struct Measured {
  double runtime_seconds = 0;
  double busy_cores = 1;  // cores kept busy on average
  double memory_bytes = 0;
  double io_bytes = 0;
  std::string machine;
};

// Runtime, CPU use and memory from a task's execution record (1.5/1.6) or the task
// itself (1.4, where the core count is "cores").
Measured read_measured(const json& record, const std::string& task_id, const char* cores_key,
                       const JsonTextLocator& locate, std::size_t task_offset) {
  const auto where_key = [&locate, task_offset](std::string_view key) {
    return [&locate, task_offset, key] { return locate.at(locate.string_after(task_offset, key)); };
  };
  const auto of_task = [&task_id](std::string_view what) {
    return [&task_id, what] { return fmt::format("{} of task '{}'", what, task_id); };
  };
  Measured m;
  const json* runtime = member(record, "runtimeInSeconds");
  if (!runtime)
    throw InputError(locate.at(task_offset),
                     fmt::format("task '{}' has no 'runtimeInSeconds'", task_id));
  m.runtime_seconds = non_negative(*runtime, of_task("runtime"), where_key("runtimeInSeconds"));
  // avgCPU is the process's CPU time over its wall time in percent, so it already
  // counts every core it used (160 % = 1.6 cores busy); without it, the requested
  // core count is taken as fully busy.
  double cores = 1;
  if (const json* c = member(record, cores_key))
    cores = non_negative(*c, of_task("core count"), where_key(cores_key));
  if (const json* cpu = member(record, "avgCPU")) {
    const double percent = non_negative(*cpu, of_task("avgCPU"), where_key("avgCPU"));
    m.busy_cores = percent > 0 ? percent / 100.0 : cores;
  } else {
    m.busy_cores = cores;
  }
  if (const json* mem = member(record, "memoryInBytes"))
    m.memory_bytes = non_negative(*mem, of_task("memoryInBytes"), where_key("memoryInBytes"));
  for (const char* key : {"readBytes", "writtenBytes"})
    if (const json* b = member(record, key))
      m.io_bytes += non_negative(*b, of_task(key), where_key(key));
  if (const json* machines = member(record, "machines");
      machines && machines->is_array() && !machines->empty() && machines->front().is_string())
    m.machine = machines->front().get<std::string>();
  else if (const json* machine = member(record, "machine"); machine && machine->is_string())
    m.machine = machine->get<std::string>();
  return m;
}

// Per-core peak flop rate of each machine: clock × flops per cycle.
std::map<std::string, double> machine_core_flops(const json* machines, const char* speed_key,
                                                 const WorkflowImportOptions& options,
                                                 const JsonTextLocator& locate) {
  std::map<std::string, double> rates;
  if (!machines || !machines->is_array()) return rates;
  for (const json& m : *machines) {
    const json* name = member(m, "nodeName");
    if (!name || !name->is_string()) continue;
    const std::string& node_name = name->get_ref<const std::string&>();
    double rate = options.reference_core_flops;
    if (const json* cpu = member(m, "cpu"))
      if (const json* speed = member(*cpu, speed_key)) {
        const double mhz = non_negative(
            *speed, [&] { return fmt::format("CPU speed of machine '{}'", node_name); },
            [&] {
              return locate.at(locate.string_after(locate.pair("nodeName", node_name), speed_key));
            });
        if (mhz > 0) rate = mhz * 1e6 * options.flops_per_cycle;
      }
    rates[node_name] = rate;
  }
  return rates;
}

std::string category_of(const json& task, const json* execution, const std::string& name) {
  if (const json* c = member(task, "category"); c && c->is_string()) return c->get<std::string>();
  if (execution)
    if (const json* command = member(*execution, "command"))
      if (const json* program = member(*command, "program"); program && program->is_string())
        return program->get<std::string>();
  const std::size_t id_mark = name.find("_ID");
  return id_mark == std::string::npos ? name : name.substr(0, id_mark);
}

Task make_task(const std::string& name, const std::string& category, const Measured& m,
               const std::map<std::string, double>& core_flops,
               const WorkflowImportOptions& options) {
  Task task;
  task.name = name;
  task.kernel = workflow_kernel_class(options, category);
  task.precision = options.precision;
  const auto rate = core_flops.find(m.machine);
  const double core_peak = rate == core_flops.end() ? options.reference_core_flops : rate->second;
  task.flops = workflow_task_flops(m.runtime_seconds * m.busy_cores, core_peak, task.kernel);
  task.bytes = m.io_bytes;
  task.memory_bytes = m.memory_bytes;
  if (options.cpu_only) {
    task.allowed_kinds = DeviceKindSet::none();
    task.allowed_kinds.insert(DeviceKind::cpu);
  }
  return task;
}

// Schema 1.5 and 1.6: specification and execution apart.
Job parse_split_layout(const json& workflow, const std::string& name,
                       const WorkflowImportOptions& options, const JsonTextLocator& locate) {
  const SourcePosition file_position{locate.file()};
  const json& specification = required(workflow, "specification", "'workflow'", file_position);
  const json& spec_tasks =
      array_of(required(specification, "tasks", "'workflow.specification'", file_position),
               "'workflow.specification.tasks'", file_position);
  // Keyed by views of the document's strings, which outlive these maps.
  std::unordered_map<std::string_view, double> file_sizes;
  if (const json* files = member(specification, "files")) {
    file_sizes.reserve(array_of(*files, "'workflow.specification.files'", file_position).size());
    for (const json& f : *files) {
      const std::string& id =
          string_of(required(f, "id", "a file", file_position), "a file id", file_position);
      const double size = non_negative(
          required(
              f, "sizeInBytes", [&] { return fmt::format("file '{}'", id); },
              [&] { return locate.at(locate.pair("id", id)); }),
          [&] { return fmt::format("size of file '{}'", id); },
          [&] { return locate.at(locate.string_after(locate.pair("id", id), "sizeInBytes")); });
      if (!file_sizes.emplace(id, size).second)
        throw InputError(locate.at(locate.pair("id", id, 1)),
                         fmt::format("duplicate file id '{}'", id));
    }
  }
  const json* execution = member(workflow, "execution");
  std::unordered_map<std::string_view, const json*> records;
  std::map<std::string, double> core_flops;
  if (execution) {
    if (const json* tasks = member(*execution, "tasks")) {
      records.reserve(array_of(*tasks, "'workflow.execution.tasks'", file_position).size());
      for (const json& r : *tasks)
        records.emplace(string_of(required(r, "id", "an execution task", file_position),
                                  "a task id", file_position),
                        &r);
    }
    core_flops = machine_core_flops(member(*execution, "machines"), "speedInMHz", options, locate);
  }
  const std::size_t execution_offset = locate.key("execution");
  detail::WorkflowBuilder builder(locate.lines());
  builder.reserve_tasks(spec_tasks.size());
  for (const json& t : spec_tasks) {
    const std::string& id =
        string_of(required(t, "id", "a task", file_position), "a task id", file_position);
    // A repeated id is an error at its second occurrence, so a task id seen before is
    // positioned at that one.
    const std::size_t offset = locate.pair("id", id, builder.has_task(id) ? 1 : 0);
    const auto where = [&] { return locate.at(offset); };
    const std::string task_name =
        member(t, "name") ? string_of(*member(t, "name"), "a task name", where) : id;
    const std::uint32_t index = builder.add_task(id, Task{}, offset);
    const auto record = records.find(id);
    if (record == records.end())
      throw InputError(where(), fmt::format("task '{}' has no record in 'workflow.execution.tasks' "
                                            "(its measured runtime)",
                                            id));
    const Measured m = read_measured(*record->second, id, "coreCount", locate,
                                     locate.pair("id", id, 0, execution_offset));
    builder.task(index) =
        make_task(task_name, category_of(t, record->second, task_name), m, core_flops, options);
    for (const char* key : {"inputFiles", "outputFiles"}) {
      const json* files = member(t, key);
      if (!files) continue;
      const auto what = [&] { return fmt::format("'{}' of task '{}'", key, id); };
      for (const json& f : array_of(*files, what, where)) {
        const std::string& file_id = string_of(f, "a file id", where);
        const auto size = file_sizes.find(file_id);
        if (size == file_sizes.end())
          throw InputError(locate.at(locate.string_after(offset, file_id)),
                           fmt::format("task '{}' uses file '{}', which "
                                       "'workflow.specification.files' does not list",
                                       id, file_id));
        if (key[0] == 'i')
          builder.add_input_file(index, file_id, size->second);
        else
          builder.add_output_file(index, file_id, size->second);
      }
    }
    for (const char* key : {"parents", "children"}) {
      const json* links = member(t, key);
      if (!links) continue;
      const auto what = [&] { return fmt::format("'{}' of task '{}'", key, id); };
      for (const json& l : array_of(*links, what, where)) {
        const std::string& other = string_of(l, "a task id", where);
        const std::size_t at = locate.string_after(offset + id.size() + 2, other);
        if (key[0] == 'p')
          builder.add_parent(index, other, at);
        else
          builder.add_child(index, other, at);
      }
    }
  }
  // The first such record in id order, when there are several.
  const std::string_view* orphan = nullptr;
  for (const auto& [id, record] : records)
    if (!builder.has_task(id) && (!orphan || id < *orphan)) orphan = &id;
  if (orphan)
    throw InputError(locate.at(locate.pair("id", *orphan, 0, execution_offset)),
                     fmt::format("execution record for task '{}', which "
                                 "'workflow.specification.tasks' does not define",
                                 *orphan));
  return builder.finish(name, "scientific");
}

// Schema 1.4: one list of tasks carrying their files and measurements; parents and
// children are named by task name.
Job parse_combined_layout(const json& workflow, const std::string& name,
                          const WorkflowImportOptions& options, const JsonTextLocator& locate) {
  const SourcePosition file_position{locate.file()};
  const json& tasks = array_of(required(workflow, "tasks", "'workflow'", file_position),
                               "'workflow.tasks'", file_position);
  const auto core_flops =
      machine_core_flops(member(workflow, "machines"), "speed", options, locate);
  detail::WorkflowBuilder builder(locate.lines());
  builder.reserve_tasks(tasks.size());
  for (const json& t : tasks) {
    const std::string& task_name =
        string_of(required(t, "name", "a task", file_position), "a task name", file_position);
    const std::size_t offset = locate.pair("name", task_name, builder.has_task(task_name) ? 1 : 0);
    const auto where = [&] { return locate.at(offset); };
    const std::uint32_t index = builder.add_task(task_name, Task{}, offset);
    const Measured m = read_measured(t, task_name, "cores", locate, offset);
    builder.task(index) =
        make_task(task_name, category_of(t, nullptr, task_name), m, core_flops, options);
    const auto files_what = [&] { return fmt::format("'files' of task '{}'", task_name); };
    if (const json* files = member(t, "files"))
      for (const json& f : array_of(*files, files_what, where)) {
        const std::string& file_id =
            string_of(required(f, "name", "a file", where), "a file name", where);
        const auto file_offset = [&] { return locate.string_after(offset, file_id); };
        const double size = non_negative(
            required(
                f, "sizeInBytes", [&] { return fmt::format("file '{}'", file_id); },
                [&] { return locate.at(file_offset()); }),
            [&] { return fmt::format("size of file '{}'", file_id); },
            [&] { return locate.at(locate.string_after(file_offset(), "sizeInBytes")); });
        const json* link = member(f, "link");
        const std::string direction = link ? string_of(*link, "a file link", where) : "input";
        if (direction == "input")
          builder.add_input_file(index, file_id, size);
        else if (direction == "output")
          builder.add_output_file(index, file_id, size);
        else
          throw InputError(locate.at(file_offset()),
                           fmt::format("file '{}' of task '{}' has link '{}' (expected input or "
                                       "output)",
                                       file_id, task_name, direction));
      }
    for (const char* key : {"parents", "children"}) {
      const json* links = member(t, key);
      if (!links) continue;
      const auto what = [&] { return fmt::format("'{}' of task '{}'", key, task_name); };
      for (const json& l : array_of(*links, what, where)) {
        const std::string& other = string_of(l, "a task name", where);
        const std::size_t at = locate.string_after(offset + task_name.size() + 2, other);
        if (key[0] == 'p')
          builder.add_parent(index, other, at);
        else
          builder.add_child(index, other, at);
      }
    }
  }
  return builder.finish(name, "scientific");
}

}  // namespace

Job parse_wfcommons(const std::string& text, const std::string& file,
                    const WorkflowImportOptions& options) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based: the byte where the parser stopped.
    const std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    if (const auto colon = what.rfind(": "); colon != std::string::npos)
      what = what.substr(colon + 2);
    throw InputError(detail::LineIndex(file, text).at(offset),
                     fmt::format("malformed JSON: {}", what));
  } catch (const json::out_of_range& e) {
    // A number beyond a double's range ("1e999"), which the parser reports without
    // a position: a second, event-only pass finds where it stopped.
    const auto stop = io_detail::first_json_syntax_error(text);
    std::string what = e.what();
    if (const auto bracket = what.find("] "); bracket != std::string::npos)
      what = what.substr(bracket + 2);
    throw InputError(detail::LineIndex(file, text).at(stop ? stop->offset : text.size()),
                     fmt::format("malformed JSON: {}", what));
  }
  const JsonTextLocator locate(file, text);
  const SourcePosition file_position{file, 1, 1};
  if (!root.is_object())
    throw InputError(file_position, "a WfCommons instance must be a JSON object");
  const json* version = member(root, "schemaVersion");
  if (!version) throw InputError(file_position, "no 'schemaVersion' (expected 1.4, 1.5 or 1.6)");
  // An array or object is named by its type: dump() would recurse through its nesting.
  const std::string v = version->is_string()       ? version->get<std::string>()
                        : version->is_structured() ? version->type_name()
                                                   : version->dump();
  const std::size_t version_offset = text.find("\"schemaVersion\"");
  if (v != "1.4" && v != "1.5" && v != "1.6")
    throw InputError(
        locate.at(version_offset),
        fmt::format("unknown WfCommons schema version '{}' (supported: 1.4, 1.5, 1.6)", v));
  const json& workflow = required(root, "workflow", "the instance", file_position);
  std::string name = file;
  if (const json* n = member(root, "name"); n && n->is_string()) name = n->get<std::string>();
  if (v == "1.4") return parse_combined_layout(workflow, name, options, locate);
  return parse_split_layout(workflow, name, options, locate);
}

Job import_wfcommons_file(const std::string& path, const WorkflowImportOptions& options) {
  return parse_wfcommons(read_text_file(path, "workflow file"), path, options);
}

}  // namespace hetsched
