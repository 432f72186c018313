// Content detection reads only the root's field names (and the values of `kind` and
// `cluster`): for JSON, simdjson skips every value it is not asked for; for YAML in block
// style, the root's fields are the lines at column 0; any other YAML goes through the full
// reader. A big file is told in a small part of the time its parse takes.
#include "hetsched/io/config_kind.hpp"

#include <simdjson.h>

#include <set>

#include "document_readers.hpp"
#include "hetsched/core/input_error.hpp"
#include "hetsched/core/text_file.hpp"
#include "input_document.hpp"
#include "padded_json_text.hpp"

namespace hetsched {
namespace {

// The root map's field names, and the scalar values of its `kind` and `cluster` fields.
struct RootFields {
  bool root_is_map = false;
  std::set<std::string, std::less<>> names;
  std::string kind;
  std::string cluster;

  bool has(std::string_view name) const { return names.count(name) > 0; }
  void add(std::string_view name, std::string_view value) {
    names.emplace(name);
    if (name == "kind") kind = value;
    if (name == "cluster") cluster = value;
  }
};

// JSON: simdjson walks the root object's fields and skips their values without reading
// them, so even a big file is told in a fraction of its parse.
// Returns false when the text is not JSON from its first field on (YAML in flow style).
// `room_after` bytes past the text may be read: with enough, it is read where it is.
bool read_json_root(std::string_view text, std::size_t room_after, RootFields& root) {
  const io_detail::PaddedJsonText padded(text, room_after);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document document;
  simdjson::ondemand::object object;
  if (parser.iterate(padded.view()).get(document) || document.get_object().get(object))
    return false;
  for (auto field_result : object) {
    simdjson::ondemand::field field;
    std::string_view name;
    if (std::move(field_result).get(field) || field.unescaped_key().get(name))
      return root.root_is_map;
    root.root_is_map = true;
    std::string_view value;
    if ((name == "kind" || name == "cluster") && !field.value().get_string().get(value))
      root.add(name, value);
    else
      root.names.emplace(name);
  }
  root.root_is_map = true;
  return true;
}

std::string_view trimmed(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

// A plain or quoted YAML scalar as written on one line, without a trailing comment.
std::string_view unquoted(std::string_view text) {
  text = trimmed(text);
  if (!text.empty() && (text.front() == '"' || text.front() == '\'')) {
    const std::size_t close = text.find(text.front(), 1);
    return close == std::string_view::npos ? text.substr(1) : text.substr(1, close - 1);
  }
  if (const std::size_t comment = text.find(" #"); comment != std::string_view::npos)
    text = trimmed(text.substr(0, comment));
  return text;
}

// YAML in block style (as every hetsched example is written): the root map's fields are
// the lines that start at column 0 with `name:`. Returns false when the root is written
// another way (flow style, a document marker with content), for the full reader to tell.
bool read_block_yaml_root(std::string_view text, RootFields& root) {
  bool content_seen = false;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line.front() == ' ' || line.front() == '\t' || line.front() == '#' ||
        line.front() == '\r' || line.front() == '%')
      continue;
    if (line.rfind("---", 0) == 0 || line.rfind("...", 0) == 0) {
      if (content_seen) break;  // the end of the first document
      if (!trimmed(line.substr(3)).empty()) return false;
      continue;
    }
    if (line.front() == '{' || line.front() == '[' || line.front() == '&' || line.front() == '!')
      return false;
    if (line.front() == '-') return true;  // the root is a list
    content_seen = true;
    root.root_is_map = true;
    std::size_t colon = std::string_view::npos;
    if (line.front() == '"' || line.front() == '\'') {
      const std::size_t close = line.find(line.front(), 1);
      if (close != std::string_view::npos && close + 1 < line.size() && line[close + 1] == ':')
        colon = close + 1;
    } else {
      for (std::size_t i = line.find(':'); i != std::string_view::npos; i = line.find(':', i + 1))
        if (i + 1 == line.size() || line[i + 1] == ' ' || line[i + 1] == '\t' ||
            line[i + 1] == '\r') {
          colon = i;
          break;
        }
    }
    if (colon == std::string_view::npos) continue;
    root.add(unquoted(line.substr(0, colon)), unquoted(line.substr(colon + 1)));
  }
  return true;
}

// The root keys of a parsed document.
void read_document_root(const io_detail::InputDocument& document, RootFields& root) {
  const io_detail::InputNode node = document.root();
  if (!node.is_map()) return;
  root.root_is_map = true;
  for (std::size_t i = 0; i < node.size(); ++i)
    root.add(node.key_at(i).scalar(), node.value_at(i).scalar());
}

// Any other YAML: the full reader's tree.
void read_yaml_root(std::string_view text, RootFields& root) {
  try {
    read_document_root(io_detail::InputDocument(text, ""), root);
  } catch (const InputError&) {
    // the loader reports it, with its position
  }
}

std::string_view without_leading_space(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte-order mark
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first == std::string_view::npos ? std::string_view{} : text.substr(first);
}

ConfigKind kind_of(const RootFields& root) {
  if (!root.root_is_map) return ConfigKind::unknown;
  if (root.kind == "stream") return ConfigKind::stream_workload;
  if (root.has("nodes")) return ConfigKind::cluster;
  if (root.has("workflow")) return ConfigKind::wfcommons;
  if (root.has("devices") && root.has("tasks")) return ConfigKind::cost_matrix;
  if (root.has("jobs")) return ConfigKind::workload;
  for (const char* name : {"model", "failures", "heartbeat", "retry", "checkpoint", "replicas",
                           "predictor", "telemetry"})
    if (root.has(name)) return ConfigKind::fault;
  return ConfigKind::unknown;
}

ConfigFileSummary summary_of(const RootFields& root) {
  const ConfigKind kind = kind_of(root);
  return {kind, kind == ConfigKind::workload ? root.cluster : std::string()};
}

}  // namespace

ConfigFileSummary summarize_config_text(std::string_view text) {
  return io_detail::summarize_text(text, 0);
}

ConfigFileSummary io_detail::summarize_text(std::string_view text, std::size_t room_after) {
  const std::string_view body = without_leading_space(text);
  if (body.empty()) return {};
  if (body.front() == '<') return {ConfigKind::pegasus_dax, {}};
  RootFields root;
  if (body.front() == '{') {
    if (!read_json_root(body, room_after, root)) read_yaml_root(text, root);  // flow YAML
  } else if (!read_block_yaml_root(text, root)) {
    read_yaml_root(text, root);
  }
  return summary_of(root);
}

ConfigFileSummary io_detail::summarize_document(const InputDocument& document) {
  RootFields root;
  read_document_root(document, root);
  return summary_of(root);
}

bool io_detail::kind_needs_a_parse(std::string_view text) {
  const std::string_view body = without_leading_space(text);
  return !body.empty() && body.front() == '{';
}

ConfigKind detect_config_kind_of_text(std::string_view text) {
  return summarize_config_text(text).kind;
}

ConfigKind detect_config_kind(const std::string& path) {
  const std::string text = read_text_file(path);
  return io_detail::summarize_text(text, room_after(text)).kind;
}

std::string_view config_kind_name(ConfigKind kind) {
  switch (kind) {
    case ConfigKind::cluster:
      return "cluster";
    case ConfigKind::workload:
      return "workload";
    case ConfigKind::stream_workload:
      return "stream workload";
    case ConfigKind::wfcommons:
      return "WfCommons workflow";
    case ConfigKind::cost_matrix:
      return "cost matrix";
    case ConfigKind::fault:
      return "fault file";
    case ConfigKind::pegasus_dax:
      return "Pegasus DAX workflow";
    case ConfigKind::unknown:
      break;
  }
  return "unknown";
}

}  // namespace hetsched
