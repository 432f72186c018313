// Pegasus DAX importer on pugixml. pugixml reports each node's byte offset in the
// buffer (offset_debug), which is turned into line and column for error messages.
// A job's runtime is its `runtime` attribute (DAX 2.x, WorkflowSim) or, in DAX 3,
// a <profile namespace="pegasus" key="runtime"> child.
#include "hetsched/io/pegasus_dax_importer.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <pugixml.hpp>
#include <sstream>

#include "hetsched/core/text_file.hpp"
#include "workflow_builder.hpp"

namespace hetsched {
namespace {

class DaxReader {
 public:
  DaxReader(const std::string& text, const std::string& file, const WorkflowImportOptions& options)
      : text_(text), file_(file), options_(options), lines_(file, text), builder_(lines_) {}

  Job read() {
    pugi::xml_document document;
    const pugi::xml_parse_result parsed =
        document.load_buffer(text_.data(), text_.size(), pugi::parse_default, pugi::encoding_utf8);
    if (!parsed)
      throw InputError(lines_.at(static_cast<std::size_t>(parsed.offset)),
                       fmt::format("malformed XML: {}", parsed.description()));
    const pugi::xml_node adag = document.child("adag");
    if (!adag) throw InputError(SourcePosition{file_}, "not a Pegasus DAX: no <adag> root element");
    for (pugi::xml_node job : adag.children("job")) read_job(job);
    for (pugi::xml_node child : adag.children("child")) read_child(child);
    std::string name = adag.attribute("name").as_string();
    if (name.empty()) name = file_;
    return builder_.finish(name, "scientific");
  }

 private:
  // The node's byte offset in the text, or npos.
  static std::size_t offset(const pugi::xml_node& node) {
    const std::ptrdiff_t offset = node.offset_debug();
    return offset < 0 ? std::string::npos : static_cast<std::size_t>(offset);
  }
  SourcePosition at(const pugi::xml_node& node) const { return lines_.at(offset(node)); }

  std::string required(const pugi::xml_node& node, const char* attribute) const {
    const pugi::xml_attribute a = node.attribute(attribute);
    if (!a)
      throw InputError(at(node), fmt::format("<{}> has no '{}' attribute", node.name(), attribute));
    return a.value();
  }

  double non_negative_number(const pugi::xml_node& node, const std::string& text,
                             const std::string& what) const {
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, error] = std::from_chars(text.data(), end, value);
    if (error != std::errc() || ptr != end || !std::isfinite(value))
      throw InputError(at(node), fmt::format("{} is '{}', not a number", what, text));
    if (value < 0) throw InputError(at(node), fmt::format("{} is negative ({})", what, text));
    return value;
  }

  std::string runtime_text(const pugi::xml_node& job) const {
    if (const pugi::xml_attribute a = job.attribute("runtime")) return a.value();
    for (pugi::xml_node profile : job.children("profile"))
      if (std::string_view(profile.attribute("namespace").as_string()) == "pegasus" &&
          std::string_view(profile.attribute("key").as_string()) == "runtime")
        return profile.child_value();
    throw InputError(at(job), fmt::format("job '{}' has no runtime (a 'runtime' attribute or a "
                                          "pegasus runtime profile)",
                                          job.attribute("id").as_string()));
  }

  void read_job(const pugi::xml_node& job) {
    const std::string id = required(job, "id");
    const std::string program = job.attribute("name").as_string();
    const std::uint32_t index = builder_.add_task(id, Task{}, offset(job));
    const double runtime =
        non_negative_number(job, runtime_text(job), fmt::format("runtime of job '{}'", id));
    Task& task = builder_.task(index);
    task.name = program.empty() ? id : fmt::format("{}_{}", program, id);
    task.kernel = workflow_kernel_class(options_, program);
    task.precision = options_.precision;
    task.flops = workflow_task_flops(runtime, options_.reference_core_flops, task.kernel);
    if (options_.cpu_only) {
      task.allowed_kinds = DeviceKindSet::none();
      task.allowed_kinds.insert(DeviceKind::cpu);
    }
    for (pugi::xml_node uses : job.children("uses")) {
      std::string file = uses.attribute("file").as_string();
      if (file.empty()) file = uses.attribute("name").as_string();
      if (file.empty())
        throw InputError(at(uses), fmt::format("a <uses> of job '{}' names no file", id));
      const pugi::xml_attribute size_attribute = uses.attribute("size");
      const double size = size_attribute
                              ? non_negative_number(uses, size_attribute.value(),
                                                    fmt::format("size of file '{}'", file))
                              : 0.0;
      const std::string link = uses.attribute("link").as_string();
      if (link == "input")
        builder_.add_input_file(index, file, size);
      else if (link == "output")
        builder_.add_output_file(index, file, size);
      else if (link == "inout")
        builder_.add_input_file(index, file, size), builder_.add_output_file(index, file, size);
      else
        throw InputError(at(uses), fmt::format("file '{}' of job '{}' has link '{}' (expected "
                                               "input, output or inout)",
                                               file, id, link));
    }
  }

  void read_child(const pugi::xml_node& child) {
    const std::string child_id = required(child, "ref");
    if (!builder_.has_task(child_id))
      throw InputError(at(child),
                       fmt::format("<child ref=\"{}\"> names no job of the workflow", child_id));
    const std::uint32_t index = builder_.task_index(child_id);
    for (pugi::xml_node parent : child.children("parent"))
      builder_.add_parent(index, required(parent, "ref"), offset(parent));
  }

  const std::string& text_;
  const std::string& file_;
  const WorkflowImportOptions& options_;
  detail::LineIndex lines_;
  detail::WorkflowBuilder builder_;  // positions through lines_
};

}  // namespace

Job parse_pegasus_dax(const std::string& text, const std::string& file,
                      const WorkflowImportOptions& options) {
  return DaxReader(text, file, options).read();
}

Job import_pegasus_dax_file(const std::string& path, const WorkflowImportOptions& options) {
  return parse_pegasus_dax(read_text_file(path, "workflow file"), path, options);
}

}  // namespace hetsched
