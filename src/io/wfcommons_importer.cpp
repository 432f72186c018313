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
// after the task's own id); syntax errors use the parser's byte offset.
#include "hetsched/io/wfcommons_importer.hpp"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hetsched/core/text_file.hpp"
#include "workflow_builder.hpp"

namespace hetsched {
namespace {

using nlohmann::json;

// Finds ids and keys in the JSON text to position semantic errors.
class JsonTextLocator {
 public:
  JsonTextLocator(const std::string& file, const std::string& text)
      : file_(file), text_(text), lines_(file, text) {}

  // Offset of the `nth` occurrence of `"key": "value"` (any spacing) at or after
  // `from`, or npos.
  std::size_t pair(std::string_view key, std::string_view value, int nth = 0,
                   std::size_t from = 0) const {
    const std::string quoted_value = quote(value);
    std::size_t at = from;
    if (at == std::string::npos) return at;
    while ((at = text_.find(quoted_value, at)) != std::string::npos) {
      std::size_t before = at;
      while (before > 0 && std::isspace(static_cast<unsigned char>(text_[before - 1]))) --before;
      if (before > 0 && text_[before - 1] == ':') {
        --before;
        while (before > 0 && std::isspace(static_cast<unsigned char>(text_[before - 1]))) --before;
        const std::string quoted_key = quote(key);
        if (before >= quoted_key.size() &&
            text_.compare(before - quoted_key.size(), quoted_key.size(), quoted_key) == 0 &&
            nth-- == 0)
          return at;
      }
      at += quoted_value.size();
    }
    return std::string::npos;
  }
  // Offset of the first JSON string `"value"` at or after `from`, or npos.
  std::size_t string_after(std::size_t from, std::string_view value) const {
    return from == std::string::npos ? from : text_.find(quote(value), from);
  }
  // Offset of the first key `"key"`, or npos.
  std::size_t key(std::string_view key) const { return text_.find(quote(key)); }
  SourcePosition at(std::size_t offset) const {
    if (offset == std::string::npos) return SourcePosition{file_};
    return lines_.at(offset);
  }
  const std::string& file() const { return file_; }

 private:
  static std::string quote(std::string_view s) { return fmt::format("\"{}\"", s); }
  const std::string& file_;
  const std::string& text_;
  detail::LineIndex lines_;
};

const json* member(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

const json& required(const json& object, const char* key, const char* what,
                     const SourcePosition& where) {
  const json* value = member(object, key);
  if (!value) throw InputError(where, fmt::format("{} has no '{}'", what, key));
  return *value;
}

std::string string_of(const json& value, const std::string& what, const SourcePosition& where) {
  if (!value.is_string())
    throw InputError(where, fmt::format("{} must be a string, not {}", what, value.type_name()));
  return value.get<std::string>();
}

double number_of(const json& value, const std::string& what, const SourcePosition& where) {
  if (!value.is_number())
    throw InputError(where, fmt::format("{} must be a number, not {}", what, value.type_name()));
  return value.get<double>();
}

double non_negative(const json& value, const std::string& what, const SourcePosition& where) {
  const double x = number_of(value, what, where);
  if (!(x >= 0)) throw InputError(where, fmt::format("{} is negative ({})", what, x));
  return x;
}

const json& array_of(const json& value, const std::string& what, const SourcePosition& where) {
  if (!value.is_array())
    throw InputError(where, fmt::format("{} must be an array, not {}", what, value.type_name()));
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
  const auto where_key = [&](std::string_view key) {
    return locate.at(locate.string_after(task_offset, key));
  };
  Measured m;
  const json* runtime = member(record, "runtimeInSeconds");
  if (!runtime)
    throw InputError(locate.at(task_offset),
                     fmt::format("task '{}' has no 'runtimeInSeconds'", task_id));
  m.runtime_seconds = non_negative(*runtime, fmt::format("runtime of task '{}'", task_id),
                                   where_key("runtimeInSeconds"));
  // avgCPU is the process's CPU time over its wall time in percent, so it already
  // counts every core it used (160 % = 1.6 cores busy); without it, the requested
  // core count is taken as fully busy.
  double cores = 1;
  if (const json* c = member(record, cores_key))
    cores = non_negative(*c, fmt::format("core count of task '{}'", task_id), where_key(cores_key));
  if (const json* cpu = member(record, "avgCPU")) {
    const double percent =
        non_negative(*cpu, fmt::format("avgCPU of task '{}'", task_id), where_key("avgCPU"));
    m.busy_cores = percent > 0 ? percent / 100.0 : cores;
  } else {
    m.busy_cores = cores;
  }
  if (const json* mem = member(record, "memoryInBytes"))
    m.memory_bytes = non_negative(*mem, fmt::format("memoryInBytes of task '{}'", task_id),
                                  where_key("memoryInBytes"));
  for (const char* key : {"readBytes", "writtenBytes"})
    if (const json* b = member(record, key))
      m.io_bytes += non_negative(*b, fmt::format("{} of task '{}'", key, task_id), where_key(key));
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
    const std::size_t offset = locate.pair("nodeName", name->get<std::string>());
    double rate = options.reference_core_flops;
    if (const json* cpu = member(m, "cpu"))
      if (const json* speed = member(*cpu, speed_key)) {
        const double mhz =
            non_negative(*speed, fmt::format("CPU speed of machine '{}'", name->get<std::string>()),
                         locate.at(locate.string_after(offset, speed_key)));
        if (mhz > 0) rate = mhz * 1e6 * options.flops_per_cycle;
      }
    rates[name->get<std::string>()] = rate;
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
  std::map<std::string, double> file_sizes;
  if (const json* files = member(specification, "files"))
    for (const json& f : array_of(*files, "'workflow.specification.files'", file_position)) {
      const std::string id =
          string_of(required(f, "id", "a file", file_position), "a file id", file_position);
      const std::size_t offset = locate.pair("id", id);
      const double size = non_negative(
          required(f, "sizeInBytes", fmt::format("file '{}'", id).c_str(), locate.at(offset)),
          fmt::format("size of file '{}'", id),
          locate.at(locate.string_after(offset, "sizeInBytes")));
      if (!file_sizes.emplace(id, size).second)
        throw InputError(locate.at(locate.pair("id", id, 1)),
                         fmt::format("duplicate file id '{}'", id));
    }
  const json* execution = member(workflow, "execution");
  std::map<std::string, const json*> records;
  std::map<std::string, double> core_flops;
  if (execution) {
    if (const json* tasks = member(*execution, "tasks"))
      for (const json& r : array_of(*tasks, "'workflow.execution.tasks'", file_position)) {
        const std::string id = string_of(required(r, "id", "an execution task", file_position),
                                         "a task id", file_position);
        records.emplace(id, &r);
      }
    core_flops = machine_core_flops(member(*execution, "machines"), "speedInMHz", options, locate);
  }
  const std::size_t execution_offset = locate.key("execution");
  detail::WorkflowBuilder builder(locate.file());
  std::map<std::string, int> seen;  // id → occurrences so far, to position duplicates
  for (const json& t : spec_tasks) {
    const std::string id =
        string_of(required(t, "id", "a task", file_position), "a task id", file_position);
    const std::size_t offset = locate.pair("id", id, seen[id]++);
    const SourcePosition where = locate.at(offset);
    const std::string task_name =
        member(t, "name") ? string_of(*member(t, "name"), "a task name", where) : id;
    const std::uint32_t index = builder.add_task(id, Task{}, where);
    const auto record = records.find(id);
    if (record == records.end())
      throw InputError(where, fmt::format("task '{}' has no record in 'workflow.execution.tasks' "
                                          "(its measured runtime)",
                                          id));
    const Measured m = read_measured(*record->second, id, "coreCount", locate,
                                     locate.pair("id", id, 0, execution_offset));
    builder.task(index) =
        make_task(task_name, category_of(t, record->second, task_name), m, core_flops, options);
    for (const char* key : {"inputFiles", "outputFiles"}) {
      const json* files = member(t, key);
      if (!files) continue;
      for (const json& f : array_of(*files, fmt::format("'{}' of task '{}'", key, id), where)) {
        const std::string file_id = string_of(f, "a file id", where);
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
      for (const json& l : array_of(*links, fmt::format("'{}' of task '{}'", key, id), where)) {
        const std::string other = string_of(l, "a task id", where);
        const SourcePosition at = locate.at(locate.string_after(offset + id.size() + 2, other));
        if (key[0] == 'p')
          builder.add_parent(index, other, at);
        else
          builder.add_child(index, other, at);
      }
    }
  }
  for (const auto& [id, record] : records)
    if (!builder.has_task(id))
      throw InputError(locate.at(locate.pair("id", id, 0, execution_offset)),
                       fmt::format("execution record for task '{}', which "
                                   "'workflow.specification.tasks' does not define",
                                   id));
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
  detail::WorkflowBuilder builder(locate.file());
  std::map<std::string, int> seen;
  for (const json& t : tasks) {
    const std::string task_name =
        string_of(required(t, "name", "a task", file_position), "a task name", file_position);
    const std::size_t offset = locate.pair("name", task_name, seen[task_name]++);
    const SourcePosition where = locate.at(offset);
    const std::uint32_t index = builder.add_task(task_name, Task{}, where);
    const Measured m = read_measured(t, task_name, "cores", locate, offset);
    builder.task(index) =
        make_task(task_name, category_of(t, nullptr, task_name), m, core_flops, options);
    if (const json* files = member(t, "files"))
      for (const json& f :
           array_of(*files, fmt::format("'files' of task '{}'", task_name), where)) {
        const std::string file_id =
            string_of(required(f, "name", "a file", where), "a file name", where);
        const std::size_t file_offset = locate.string_after(offset, file_id);
        const double size =
            non_negative(required(f, "sizeInBytes", fmt::format("file '{}'", file_id).c_str(),
                                  locate.at(file_offset)),
                         fmt::format("size of file '{}'", file_id),
                         locate.at(locate.string_after(file_offset, "sizeInBytes")));
        const json* link = member(f, "link");
        const std::string direction = link ? string_of(*link, "a file link", where) : "input";
        if (direction == "input")
          builder.add_input_file(index, file_id, size);
        else if (direction == "output")
          builder.add_output_file(index, file_id, size);
        else
          throw InputError(locate.at(file_offset),
                           fmt::format("file '{}' of task '{}' has link '{}' (expected input or "
                                       "output)",
                                       file_id, task_name, direction));
      }
    for (const char* key : {"parents", "children"}) {
      const json* links = member(t, key);
      if (!links) continue;
      for (const json& l :
           array_of(*links, fmt::format("'{}' of task '{}'", key, task_name), where)) {
        const std::string other = string_of(l, "a task name", where);
        const SourcePosition at =
            locate.at(locate.string_after(offset + task_name.size() + 2, other));
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
  }
  const JsonTextLocator locate(file, text);
  const SourcePosition file_position{file};
  if (!root.is_object())
    throw InputError(file_position, "a WfCommons instance must be a JSON object");
  const json* version = member(root, "schemaVersion");
  if (!version) throw InputError(file_position, "no 'schemaVersion' (expected 1.4, 1.5 or 1.6)");
  const std::string v = version->is_string() ? version->get<std::string>() : version->dump();
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
