// Content detection reads only the root's field names (and the value of `kind`), through
// the parsers' event interfaces (yaml-cpp's EventHandler, nlohmann's SAX), so no tree of
// nodes is built for a file that a loader will then parse properly.
#include "hetsched/io/config_kind.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "hetsched/core/text_file.hpp"

namespace hetsched {
namespace {

// The root map's field names, and the scalar value of its `kind` field.
struct RootFields {
  bool root_is_map = false;
  std::set<std::string, std::less<>> names;
  std::string kind;
  std::string cluster;  // the scalar value of a `cluster` field

  bool has(std::string_view name) const { return names.count(name) > 0; }
};

// Collects RootFields from yaml-cpp's parse events: depth 1 is the root map, where
// scalars alternate between field name and value.
class RootFieldsFromYaml : public YAML::EventHandler {
 public:
  explicit RootFieldsFromYaml(RootFields& out) : out_(out) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override { value_at_root(); }
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { value_at_root(); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string& value) override {
    if (depth_ != 1) return;
    if (expect_name_) {
      out_.names.insert(value);
      last_name_ = value;
      expect_name_ = false;
    } else {
      if (last_name_ == "kind") out_.kind = value;
      if (last_name_ == "cluster") out_.cluster = value;
      expect_name_ = true;
    }
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    ++depth_;
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    if (depth_ == 0) out_.root_is_map = true;
    ++depth_;
  }
  void OnMapEnd() override { close(); }

 private:
  void value_at_root() {
    if (depth_ == 1) expect_name_ = !expect_name_;
  }
  void close() {
    --depth_;
    if (depth_ == 1) expect_name_ = true;  // a nested value ended
  }

  RootFields& out_;
  int depth_ = 0;
  bool expect_name_ = true;
  std::string last_name_;
};

// The same from nlohmann's SAX events for JSON, which it reads much faster.
class RootFieldsFromJson : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit RootFieldsFromJson(RootFields& out) : out_(out) {}

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t& value) override {
    if (depth_ == 1 && last_name_ == "kind") out_.kind = value;
    if (depth_ == 1 && last_name_ == "cluster") out_.cluster = value;
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (depth_ == 0) out_.root_is_map = true;
    ++depth_;
    return true;
  }
  bool key(string_t& name) override {
    if (depth_ == 1) {
      out_.names.insert(name);
      last_name_ = name;
    }
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  RootFields& out_;
  int depth_ = 0;
  std::string last_name_;
};

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

}  // namespace

ConfigFileSummary summarize_config_text(std::string_view text) {
  const std::string_view body = without_leading_space(text);
  if (body.empty()) return {};
  if (body.front() == '<') return {ConfigKind::pegasus_dax, {}};
  RootFields root;
  if (body.front() == '{') {
    RootFieldsFromJson handler(root);
    // A syntax error stops the walk; the fields seen so far still tell the kind, and the
    // loader reports the error with its position.
    (void)nlohmann::json::sax_parse(body, &handler, nlohmann::json::input_format_t::json, false);
  } else {
    try {
      std::istringstream stream{std::string(body)};
      YAML::Parser parser(stream);
      RootFieldsFromYaml handler(root);
      parser.HandleNextDocument(handler);
    } catch (const YAML::Exception&) {
      // as above: the loader reports it
    }
  }
  const ConfigKind kind = kind_of(root);
  return {kind, kind == ConfigKind::workload ? root.cluster : std::string()};
}

ConfigKind detect_config_kind_of_text(std::string_view text) {
  return summarize_config_text(text).kind;
}

ConfigKind detect_config_kind(const std::string& path) {
  return detect_config_kind_of_text(read_text_file(path));
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
