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
// The file is read into an InputDocument (simdjson), whose nodes know where they are
// written, so every error points at the value it is about; ids and file names are
// looked up by hash, so an import takes time in proportion to the file.
#include "hetsched/io/wfcommons_importer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <map>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "document_readers.hpp"
#include "hetsched/core/text_file.hpp"
#include "input_document.hpp"
#include "workflow_builder.hpp"

namespace hetsched {
namespace {

using io_detail::InputDocument;
using io_detail::InputNode;

// The value of `key` in a JSON object, or an undefined node (also for a null value).
InputNode member(const InputNode& object, std::string_view key) {
  for (std::size_t i = 0; i < object.size(); ++i) {
    if (object.key_at(i).scalar() != key) continue;
    const InputNode value = object.value_at(i);
    return value.is_null() ? InputNode() : value;
  }
  return {};
}

bool is_string(const InputNode& value) { return value.is_scalar() && value.is_quoted(); }
bool is_boolean(const InputNode& value) {
  return value.is_scalar() && !value.is_quoted() &&
         (value.scalar() == "true" || value.scalar() == "false");
}
bool is_number(const InputNode& value) {
  return value.is_scalar() && !value.is_quoted() && !is_boolean(value);
}

// The JSON type of a value, for messages (as nlohmann-json names them).
std::string_view type_name(const InputNode& value) {
  if (!value.is_defined() || value.is_null()) return "null";
  if (value.is_map()) return "object";
  if (value.is_sequence()) return "array";
  if (is_string(value)) return "string";
  return is_boolean(value) ? "boolean" : "number";
}

// The checks below take what they check as a value or as a function that returns one:
// a function's message is built only when the check fails, since an import checks
// several values of every task.
template <class T>
decltype(auto) resolve(const T& x) {
  if constexpr (std::is_invocable_v<const T&>)
    return x();
  else
    return x;
}

template <class What>
InputNode required(const InputNode& object, std::string_view key, const What& what) {
  const InputNode value = member(object, key);
  if (!value.is_defined())
    throw InputError(object.position(), fmt::format("{} has no '{}'", resolve(what), key));
  return value;
}

template <class What>
std::string_view string_of(const InputNode& value, const What& what) {
  if (!is_string(value))
    throw InputError(value.position(),
                     fmt::format("{} must be a string, not {}", resolve(what), type_name(value)));
  return value.scalar();
}

template <class What>
double number_of(const InputNode& value, const What& what) {
  if (!is_number(value))
    throw InputError(value.position(),
                     fmt::format("{} must be a number, not {}", resolve(what), type_name(value)));
  // The document has checked the JSON number grammar; only the range is left.
  const std::string_view text = value.scalar();
  double x = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (error == std::errc::result_out_of_range) {
    const std::size_t exponent = text.find_first_of("eE");
    if (exponent != std::string_view::npos && text.substr(exponent + 1, 1) == "-") return 0.0;
    throw InputError(value.position(),
                     fmt::format("{} is too large a number ({})", resolve(what), text));
  }
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(x))
    throw InputError(value.position(),
                     fmt::format("{} must be a number, not '{}'", resolve(what), text));
  return x;
}

template <class What>
double non_negative(const InputNode& value, const What& what) {
  const double x = number_of(value, what);
  if (!(x >= 0))
    throw InputError(value.position(), fmt::format("{} is negative ({})", resolve(what), x));
  return x;
}

template <class What>
const InputNode& array_of(const InputNode& value, const What& what) {
  if (!value.is_sequence())
    throw InputError(value.position(),
                     fmt::format("{} must be an array, not {}", resolve(what), type_name(value)));
  return value;
}

// What the execution record says about one task, common to both layouts.
struct Measured {
  double runtime_seconds = 0;
  double busy_cores = 1;  // cores kept busy on average
  double memory_bytes = 0;
  double io_bytes = 0;
  std::string_view machine;
};

// Runtime, CPU use and memory from a task's execution record (1.5/1.6) or the task
// itself (1.4, where the core count is "cores").
Measured read_measured(const InputNode& record, std::string_view task_id, const char* cores_key) {
  const auto of_task = [&task_id](std::string_view what) {
    return [&task_id, what] { return fmt::format("{} of task '{}'", what, task_id); };
  };
  Measured m;
  const InputNode runtime = member(record, "runtimeInSeconds");
  if (!runtime.is_defined())
    throw InputError(record.position(),
                     fmt::format("task '{}' has no 'runtimeInSeconds'", task_id));
  m.runtime_seconds = non_negative(runtime, of_task("runtime"));
  // avgCPU is the process's CPU time over its wall time in percent, so it already
  // counts every core it used (160 % = 1.6 cores busy); without it, the requested
  // core count is taken as fully busy.
  double cores = 1;
  if (const InputNode c = member(record, cores_key); c.is_defined())
    cores = non_negative(c, of_task("core count"));
  if (const InputNode cpu = member(record, "avgCPU"); cpu.is_defined()) {
    const double percent = non_negative(cpu, of_task("avgCPU"));
    m.busy_cores = percent > 0 ? percent / 100.0 : cores;
  } else {
    m.busy_cores = cores;
  }
  if (const InputNode memory = member(record, "memoryInBytes"); memory.is_defined())
    m.memory_bytes = non_negative(memory, of_task("memoryInBytes"));
  for (const char* key : {"readBytes", "writtenBytes"})
    if (const InputNode bytes = member(record, key); bytes.is_defined())
      m.io_bytes += non_negative(bytes, of_task(key));
  if (const InputNode machines = member(record, "machines");
      machines.is_sequence() && machines.size() > 0 && is_string(machines[0]))
    m.machine = machines[0].scalar();
  else if (const InputNode machine = member(record, "machine"); is_string(machine))
    m.machine = machine.scalar();
  return m;
}

// Per-core peak flop rate of each machine: clock × flops per cycle.
std::map<std::string, double, std::less<>> machine_core_flops(
    const InputNode& machines, const char* speed_key, const WorkflowImportOptions& options) {
  std::map<std::string, double, std::less<>> rates;
  if (!machines.is_sequence()) return rates;
  for (std::size_t i = 0; i < machines.size(); ++i) {
    const InputNode name = member(machines[i], "nodeName");
    if (!is_string(name)) continue;
    const std::string_view node_name = name.scalar();
    double rate = options.reference_core_flops;
    if (const InputNode speed = member(member(machines[i], "cpu"), speed_key); speed.is_defined()) {
      const double mhz =
          non_negative(speed, [&] { return fmt::format("CPU speed of machine '{}'", node_name); });
      if (mhz > 0) rate = mhz * 1e6 * options.flops_per_cycle;
    }
    rates.insert_or_assign(std::string(node_name), rate);
  }
  return rates;
}

std::string category_of(const InputNode& task, const InputNode& execution, std::string_view name) {
  if (const InputNode c = member(task, "category"); is_string(c)) return std::string(c.scalar());
  if (const InputNode program = member(member(execution, "command"), "program"); is_string(program))
    return std::string(program.scalar());
  const std::size_t id_mark = name.find("_ID");
  return std::string(id_mark == std::string_view::npos ? name : name.substr(0, id_mark));
}

Task make_task(std::string_view name, const std::string& category, const Measured& m,
               const std::map<std::string, double, std::less<>>& core_flops,
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

// The parents or children a task lists, by id (1.5/1.6) or name (1.4).
template <class What>
void add_links(detail::WorkflowBuilder& builder, std::uint32_t index, const InputNode& task,
               std::string_view task_id, const What& what_id) {
  for (const char* key : {"parents", "children"}) {
    const InputNode links = member(task, key);
    if (!links.is_defined()) continue;
    array_of(links, [&] { return fmt::format("'{}' of task '{}'", key, task_id); });
    for (std::size_t i = 0; i < links.size(); ++i) {
      const std::string other(string_of(links[i], what_id));
      if (key[0] == 'p')
        builder.add_parent(index, other, links[i].offset());
      else
        builder.add_child(index, other, links[i].offset());
    }
  }
}

// Schema 1.5 and 1.6: specification and execution apart.
Job parse_split_layout(const InputNode& workflow, const std::string& name,
                       const WorkflowImportOptions& options, const detail::LineIndex& lines) {
  const InputNode specification = required(workflow, "specification", "'workflow'");
  const InputNode spec_tasks =
      array_of(required(specification, "tasks", "'workflow.specification'"),
               "'workflow.specification.tasks'");
  // Keyed by views of the document's strings, which outlive these maps.
  std::unordered_map<std::string_view, double> file_sizes;
  if (const InputNode files = member(specification, "files"); files.is_defined()) {
    file_sizes.reserve(array_of(files, "'workflow.specification.files'").size());
    for (std::size_t i = 0; i < files.size(); ++i) {
      const InputNode f = files[i];
      const std::string_view id = string_of(required(f, "id", "a file"), "a file id");
      const double size =
          non_negative(required(f, "sizeInBytes", [&] { return fmt::format("file '{}'", id); }),
                       [&] { return fmt::format("size of file '{}'", id); });
      if (!file_sizes.emplace(id, size).second)
        throw InputError(member(f, "id").position(), fmt::format("duplicate file id '{}'", id));
    }
  }
  const InputNode execution = member(workflow, "execution");
  std::unordered_map<std::string_view, InputNode> records;
  std::map<std::string, double, std::less<>> core_flops;
  if (execution.is_defined()) {
    if (const InputNode tasks = member(execution, "tasks"); tasks.is_defined()) {
      records.reserve(array_of(tasks, "'workflow.execution.tasks'").size());
      for (std::size_t i = 0; i < tasks.size(); ++i)
        records.emplace(string_of(required(tasks[i], "id", "an execution task"), "a task id"),
                        tasks[i]);
    }
    core_flops = machine_core_flops(member(execution, "machines"), "speedInMHz", options);
  }
  detail::WorkflowBuilder builder(lines);
  builder.reserve_tasks(spec_tasks.size());
  for (std::size_t i = 0; i < spec_tasks.size(); ++i) {
    const InputNode t = spec_tasks[i];
    const InputNode id_node = required(t, "id", "a task");
    const std::string_view id = string_of(id_node, "a task id");
    const InputNode name_node = member(t, "name");
    const std::string_view task_name =
        name_node.is_defined() ? string_of(name_node, "a task name") : id;
    const std::uint32_t index = builder.add_task(std::string(id), Task{}, id_node.offset());
    const auto record = records.find(id);
    if (record == records.end())
      throw InputError(id_node.position(),
                       fmt::format("task '{}' has no record in 'workflow.execution.tasks' "
                                   "(its measured runtime)",
                                   id));
    const Measured m = read_measured(record->second, id, "coreCount");
    builder.task(index) =
        make_task(task_name, category_of(t, record->second, task_name), m, core_flops, options);
    for (const char* key : {"inputFiles", "outputFiles"}) {
      const InputNode files = member(t, key);
      if (!files.is_defined()) continue;
      array_of(files, [&] { return fmt::format("'{}' of task '{}'", key, id); });
      for (std::size_t f = 0; f < files.size(); ++f) {
        const std::string_view file_id = string_of(files[f], "a file id");
        const auto size = file_sizes.find(file_id);
        if (size == file_sizes.end())
          throw InputError(files[f].position(),
                           fmt::format("task '{}' uses file '{}', which "
                                       "'workflow.specification.files' does not list",
                                       id, file_id));
        if (key[0] == 'i')
          builder.add_input_file(index, std::string(file_id), size->second);
        else
          builder.add_output_file(index, std::string(file_id), size->second);
      }
    }
    add_links(builder, index, t, id, "a task id");
  }
  // The first such record in id order, when there are several.
  const std::pair<const std::string_view, InputNode>* orphan = nullptr;
  for (const auto& entry : records)
    if (!builder.has_task(entry.first) && (!orphan || entry.first < orphan->first)) orphan = &entry;
  if (orphan)
    throw InputError(member(orphan->second, "id").position(),
                     fmt::format("execution record for task '{}', which "
                                 "'workflow.specification.tasks' does not define",
                                 orphan->first));
  return builder.finish(name, "scientific");
}

// Schema 1.4: one list of tasks carrying their files and measurements; parents and
// children are named by task name.
Job parse_combined_layout(const InputNode& workflow, const std::string& name,
                          const WorkflowImportOptions& options, const detail::LineIndex& lines) {
  const InputNode tasks = array_of(required(workflow, "tasks", "'workflow'"), "'workflow.tasks'");
  const auto core_flops = machine_core_flops(member(workflow, "machines"), "speed", options);
  detail::WorkflowBuilder builder(lines);
  builder.reserve_tasks(tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const InputNode t = tasks[i];
    const InputNode name_node = required(t, "name", "a task");
    const std::string_view task_name = string_of(name_node, "a task name");
    const std::uint32_t index =
        builder.add_task(std::string(task_name), Task{}, name_node.offset());
    const Measured m = read_measured(t, task_name, "cores");
    builder.task(index) =
        make_task(task_name, category_of(t, InputNode(), task_name), m, core_flops, options);
    if (const InputNode files = member(t, "files"); files.is_defined()) {
      array_of(files, [&] { return fmt::format("'files' of task '{}'", task_name); });
      for (std::size_t f = 0; f < files.size(); ++f) {
        const InputNode file = files[f];
        const std::string_view file_id = string_of(required(file, "name", "a file"), "a file name");
        const double size = non_negative(
            required(file, "sizeInBytes", [&] { return fmt::format("file '{}'", file_id); }),
            [&] { return fmt::format("size of file '{}'", file_id); });
        const InputNode link = member(file, "link");
        const std::string_view direction =
            link.is_defined() ? string_of(link, "a file link") : "input";
        if (direction == "input")
          builder.add_input_file(index, std::string(file_id), size);
        else if (direction == "output")
          builder.add_output_file(index, std::string(file_id), size);
        else
          throw InputError(link.position(),
                           fmt::format("file '{}' of task '{}' has link '{}' (expected input or "
                                       "output)",
                                       file_id, task_name, direction));
      }
    }
    add_links(builder, index, t, task_name, "a task name");
  }
  return builder.finish(name, "scientific");
}

}  // namespace

Job parse_wfcommons(const std::string& text, const std::string& file,
                    const WorkflowImportOptions& options) {
  return io_detail::read_wfcommons(InputDocument(text, file, room_after(text)), text, options);
}

Job io_detail::read_wfcommons(const InputDocument& document, const std::string& text,
                              const WorkflowImportOptions& options) {
  const std::string& file = document.file();
  const InputNode root = document.root();
  const SourcePosition file_position{file, 1, 1};
  if (!root.is_map()) throw InputError(file_position, "a WfCommons instance must be a JSON object");
  const InputNode version = member(root, "schemaVersion");
  if (!version.is_defined())
    throw InputError(file_position, "no 'schemaVersion' (expected 1.4, 1.5 or 1.6)");
  // An array or object is named by its type.
  const std::string v =
      version.is_scalar() ? std::string(version.scalar()) : std::string(type_name(version));
  if (v != "1.4" && v != "1.5" && v != "1.6")
    throw InputError(version.position(),
                     fmt::format("unknown WfCommons schema version '{}' (supported: 1.4, 1.5, 1.6)",
                                 printable_text(v)));
  const InputNode workflow = required(root, "workflow", "the instance");
  std::string name = file;
  if (const InputNode n = member(root, "name"); is_string(n)) name = std::string(n.scalar());
  const detail::LineIndex lines(file, text);
  if (v == "1.4") return parse_combined_layout(workflow, name, options, lines);
  return parse_split_layout(workflow, name, options, lines);
}

Job import_wfcommons_file(const std::string& path, const WorkflowImportOptions& options) {
  return parse_wfcommons(read_text_file(path, "workflow file"), path, options);
}

}  // namespace hetsched
