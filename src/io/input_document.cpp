#include "input_document.hpp"

#include <fmt/format.h>
#include <simdjson.h>
#include <yaml.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <unordered_map>

#include "hetsched/core/text_file.hpp"
#include "hetsched/io/input_progress.hpp"
#include "input_syntax.hpp"
#include "json_syntax_error.hpp"
#include "padded_json_text.hpp"

namespace hetsched::io_detail {
static_assert(kTextFileRoomAfter >= simdjson::SIMDJSON_PADDING,
              "read_text_file's strings are read in place");

namespace {

// Bytes between two progress reports.
constexpr std::size_t kProgressStepBytes = 1u << 20;

}  // namespace

// ---- InputNode ----------------------------------------------------------------------

SourcePosition InputNode::position() const {
  if (document_ == nullptr) return {};
  return document_->position_of(document_->entries_[index_]);
}

// ---- InputDocument ------------------------------------------------------------------

InputNode InputDocument::root() const { return has_root_ ? InputNode(this, root_) : InputNode(); }

SourcePosition InputDocument::position_of(const Entry& entry) const {
  return position_at_offset(entry.position);
}

SourcePosition InputDocument::position_at_offset(std::uint32_t offset) const {
  const std::string_view text = source_;
  const std::lock_guard lock(*line_index_mutex_);
  if (line_starts_.empty()) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text.size(); ++i) {
      const char c = text[i];
      if (c == '\n') {
        line_starts_.push_back(static_cast<std::uint32_t>(i + 1));
      } else if (yaml_line_breaks_) {
        if (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))
          line_starts_.push_back(static_cast<std::uint32_t>(i + 1));
        else if (text.substr(i, 2) == "\xC2\x85")  // NEL
          line_starts_.push_back(static_cast<std::uint32_t>(i + 2));
        else if (text.substr(i, 3) == "\xE2\x80\xA8" || text.substr(i, 3) == "\xE2\x80\xA9")
          line_starts_.push_back(static_cast<std::uint32_t>(i + 3));  // LS, PS
      }
    }
  }
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text.size()));
  const auto line = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) - 1;
  // Columns count characters: every byte but UTF-8 continuation bytes (and a leading BOM).
  std::size_t start = *line;
  if (start == 0 && text.substr(0, 3) == "\xEF\xBB\xBF") start = std::min<std::size_t>(3, offset);
  const auto characters =
      std::count_if(text.begin() + static_cast<std::ptrdiff_t>(start), text.begin() + offset,
                    [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
  return SourcePosition{file_, static_cast<int>(line - line_starts_.begin()) + 1,
                        static_cast<int>(characters) + 1};
}

// Builds the tree from libyaml's events: a stack of open containers, each collecting its
// children's indices until its end event moves them into the document's one child array.
class YamlTreeBuilder {
 public:
  YamlTreeBuilder(InputDocument& document) : document_(document) {}

  void build() {
    std::unique_ptr<yaml_parser_t, void (*)(yaml_parser_t*)> parser(new yaml_parser_t,
                                                                    [](yaml_parser_t* p) {
                                                                      yaml_parser_delete(p);
                                                                      delete p;
                                                                    });
    if (!yaml_parser_initialize(parser.get()))
      throw InputError(SourcePosition{document_.file_, 0, 0}, "out of memory reading YAML");
    const std::string_view text = document_.source_;
    if (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF")
      throw InputError(SourcePosition{document_.file_, 1, 1},
                       "the file is UTF-16 or UTF-32 (it starts with a byte-order mark); "
                       "hetsched reads UTF-8: save it as UTF-8");
    if (text.substr(0, 3) == "\xEF\xBB\xBF") cursor_byte_ = bom_bytes_ = 3;
    document_.yaml_line_breaks_ = true;
    yaml_parser_set_input_string(parser.get(),
                                 reinterpret_cast<const unsigned char*>(document_.source_.data()),
                                 document_.source_.size());
    bool in_document = false;
    while (true) {
      yaml_event_t event;
      if (!yaml_parser_parse(parser.get(), &event)) throw syntax_error(*parser);
      std::unique_ptr<yaml_event_t, void (*)(yaml_event_t*)> owned(&event, yaml_event_delete);
      if (event.start_mark.index >= next_report_) {
        InputProgressScope::report(event.start_mark.index, document_.source_.size());
        next_report_ = event.start_mark.index + kProgressStepBytes;
      }
      switch (event.type) {
        case YAML_STREAM_END_EVENT:
          return;
        case YAML_DOCUMENT_START_EVENT:
          in_document = true;
          break;
        case YAML_DOCUMENT_END_EVENT:
          if (in_document) return;  // only the first document is read
          break;
        case YAML_SCALAR_EVENT:
          add_scalar(event);
          break;
        case YAML_ALIAS_EVENT:
          add_alias(event);
          break;
        case YAML_SEQUENCE_START_EVENT:
          open(InputDocument::Kind::sequence, event.start_mark, event.data.sequence_start.anchor);
          break;
        case YAML_MAPPING_START_EVENT:
          open(InputDocument::Kind::map, event.start_mark, event.data.mapping_start.anchor);
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          close();
          break;
        default:
          break;
      }
    }
  }

 private:
  InputError syntax_error(const yaml_parser_t& parser) const {
    const yaml_mark_t& mark = parser.problem_mark;
    std::string what = parser.problem != nullptr ? parser.problem : "malformed input";
    if (parser.context != nullptr) what = std::string(parser.context) + ": " + what;
    return InputError(SourcePosition{document_.file_, static_cast<int>(mark.line) + 1,
                                     static_cast<int>(mark.column) + 1},
                      "YAML syntax error: " + what);
  }

  // libyaml counts marks in characters; the tree keeps byte offsets. Marks come in
  // document order, so one cursor walks the text once.
  std::uint32_t byte_offset(std::size_t character) {
    if (character < cursor_character_) {
      cursor_character_ = 0;
      cursor_byte_ = bom_bytes_;
    }
    const std::string_view text = document_.source_;
    while (cursor_character_ < character && cursor_byte_ < text.size()) {
      ++cursor_byte_;
      while (cursor_byte_ < text.size() &&
             (static_cast<unsigned char>(text[cursor_byte_]) & 0xC0) == 0x80)
        ++cursor_byte_;
      ++cursor_character_;
    }
    return static_cast<std::uint32_t>(cursor_byte_);
  }

  InputDocument::Entry entry_at(const yaml_mark_t& mark, InputDocument::Kind kind) {
    InputDocument::Entry entry;
    entry.set(kind, 0);
    entry.position = byte_offset(mark.index);
    return entry;
  }

  // A plain scalar spelled as YAML's null (or nothing) is null (YAML 1.2's core schema).
  static bool is_null_scalar(const yaml_event_t& event) {
    const auto& scalar = event.data.scalar;
    if (scalar.style != YAML_PLAIN_SCALAR_STYLE || !scalar.plain_implicit) return false;
    const std::string_view text(reinterpret_cast<const char*>(scalar.value), scalar.length);
    return text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL";
  }

  void add_scalar(const yaml_event_t& event) {
    const bool null = is_null_scalar(event);
    InputDocument::Entry entry =
        entry_at(event.start_mark, null ? InputDocument::Kind::null : InputDocument::Kind::scalar);
    if (!null) {
      const auto& scalar = event.data.scalar;
      const std::string_view value(reinterpret_cast<const char*>(scalar.value), scalar.length);
      // Read in place when the file spells the value as is (after the opening quote).
      const std::size_t quote = scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                                        scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                                    ? 1
                                    : 0;
      const std::string_view source = document_.source_;
      const std::size_t at = entry.position + quote;
      if (at + value.size() <= source.size() && source.compare(at, value.size(), value) == 0) {
        entry.first = static_cast<std::uint32_t>(at);
        entry.set(InputDocument::Kind::scalar, static_cast<std::uint32_t>(value.size()), true);
      } else {
        entry.first = static_cast<std::uint32_t>(document_.text_.size());
        entry.set(InputDocument::Kind::scalar, static_cast<std::uint32_t>(value.size()));
        document_.text_.append(value);
      }
    }
    const std::uint32_t index = append(entry);
    remember_anchor(event.data.scalar.anchor, index);
    attach(index);
  }

  void add_alias(const yaml_event_t& event) {
    const std::string name(reinterpret_cast<const char*>(event.data.alias.anchor));
    const auto it = anchors_.find(name);
    if (it == anchors_.end())
      throw InputError(document_.position_at_offset(byte_offset(event.start_mark.index)),
                       fmt::format("alias *{} names no complete node before it (an anchor &{} "
                                   "must come first, outside the aliased node)",
                                   printable_text(name), printable_text(name)));
    attach(it->second);
  }

  void open(InputDocument::Kind kind, const yaml_mark_t& mark, const yaml_char_t* anchor) {
    if (static_cast<int>(open_.size()) >= kMaxInputDepth)
      throw InputError(SourcePosition{document_.file_, static_cast<int>(mark.line) + 1,
                                      static_cast<int>(mark.column) + 1},
                       fmt::format("nesting deeper than {} levels", kMaxInputDepth));
    const std::uint32_t index = append(entry_at(mark, kind));
    if (open_.size() == pending_.size()) pending_.emplace_back();
    pending_[open_.size()].clear();
    open_.push_back({index, anchor != nullptr ? reinterpret_cast<const char*>(anchor) : ""});
  }

  void close() {
    const Open container = open_.back();
    std::vector<std::uint32_t>& children = pending_[open_.size() - 1];
    InputDocument::Entry& entry = document_.entries_[container.index];
    entry.first = static_cast<std::uint32_t>(document_.children_.size());
    entry.set(entry.kind(), static_cast<std::uint32_t>(children.size()));
    document_.children_.insert(document_.children_.end(), children.begin(), children.end());
    open_.pop_back();
    // Anchored containers can be aliased only once complete.
    if (!container.anchor.empty()) anchors_[container.anchor] = container.index;
    attach(container.index);
  }

  std::uint32_t append(const InputDocument::Entry& entry) {
    document_.entries_.push_back(entry);
    return static_cast<std::uint32_t>(document_.entries_.size() - 1);
  }

  void remember_anchor(const yaml_char_t* anchor, std::uint32_t index) {
    if (anchor != nullptr) anchors_[reinterpret_cast<const char*>(anchor)] = index;
  }

  // Makes the node a child of the innermost open container, or the root.
  void attach(std::uint32_t index) {
    if (open_.empty()) {
      if (!document_.has_root_) {
        document_.root_ = index;
        document_.has_root_ = true;
      }
      return;
    }
    pending_[open_.size() - 1].push_back(index);
  }

  struct Open {
    std::uint32_t index;
    std::string anchor;
  };
  InputDocument& document_;
  std::size_t next_report_ = kProgressStepBytes;
  std::size_t cursor_character_ = 0;  // byte_offset's place: this character ...
  std::size_t cursor_byte_ = 0;       // ... starts at this byte
  std::size_t bom_bytes_ = 0;         // a UTF-8 byte-order mark, which libyaml does not count
  std::vector<Open> open_;
  std::vector<std::vector<std::uint32_t>> pending_;  // children of open_[depth], reused
  std::unordered_map<std::string, std::uint32_t> anchors_;
};

// Builds the tree from simdjson's On-Demand parser, which validates the JSON as it is
// walked; the walk recurses once per nesting level (at most kMaxInputDepth).
class JsonTreeBuilder {
 public:
  JsonTreeBuilder(InputDocument& document) : document_(document) {}

  void build() {
    pending_.resize(kMaxInputDepth + 1);
    // In place when the text has room after it, else a padded copy (PaddedJsonText).
    // (The document's size limit, checked before, also tells the compiler the copy is bounded.)
    const std::string_view text = document_.source_.substr(0, InputDocument::Entry::kCountMask);
    const PaddedJsonText padded(text, document_.room_after_);
    base_ = padded.data();
    simdjson::ondemand::parser parser(std::max<std::size_t>(text.size(), 64));
    simdjson::ondemand::document json;
    if (const auto error = parser.iterate(padded.view()).get(json)) fail(error, nullptr);
    simdjson::ondemand::json_type type;
    if (const auto error = json.type().get(type)) fail(error, &json);
    document_.root_ = add(json, type, 0, &json);
    document_.has_root_ = true;
    // Past the root value, the iterator has a location only if something follows it.
    const char* rest = nullptr;
    if (!json.current_location().get(rest)) {
      last_offset_ = offset_of(rest);
      fail(simdjson::TRAILING_CONTENT, nullptr);
    }
  }

 private:
  // simdjson says what is wrong but not always where; nlohmann's parser, run only on a
  // file simdjson refused, names the position and the token it expected.
  [[noreturn]] void fail(simdjson::error_code error, simdjson::ondemand::document* json) const {
    InputDocument::Entry at;
    std::string what = simdjson::error_message(error);
    if (const auto diagnosis = first_json_syntax_error(document_.source_)) {
      at.position = static_cast<std::uint32_t>(diagnosis->offset);
      // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error
      // while parsing ..." without the parts our own position replaces.
      what = diagnosis->what;
      if (const auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
    } else {
      const char* location = nullptr;
      at.position = json != nullptr && !json->current_location().get(location) && location >= base_
                        ? offset_of(location)
                        : last_offset_;
    }
    throw InputError(document_.position_of(at), "JSON syntax error: " + what);
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, RFC 8259's number.
  static bool is_json_number(std::string_view text) {
    std::size_t i = 0;
    const auto digits = [&] {
      const std::size_t start = i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
      return i - start;
    };
    if (i < text.size() && text[i] == '-') ++i;
    if (i < text.size() && text[i] == '0')
      ++i;
    else if (digits() == 0)
      return false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      if (digits() == 0) return false;
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      ++i;
      if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
      if (digits() == 0) return false;
    }
    return i == text.size();
  }

  std::uint32_t offset_of(const char* location) const {
    return static_cast<std::uint32_t>(location - base_);
  }

  template <class Value>
  std::uint32_t add(Value& value, simdjson::ondemand::json_type type, int depth,
                    simdjson::ondemand::document* json) {
    using simdjson::ondemand::json_type;
    InputDocument::Entry entry;
    const char* location = nullptr;
    if (!value.current_location().get(location)) last_offset_ = offset_of(location);
    entry.position = last_offset_;
    switch (type) {
      case json_type::object:
      case json_type::array: {
        if (last_offset_ >= next_report_) {
          InputProgressScope::report(last_offset_, document_.source_.size());
          next_report_ = last_offset_ + kProgressStepBytes;
        }
        if (depth >= kMaxInputDepth)
          throw InputError(document_.position_of(entry),
                           fmt::format("nesting deeper than {} levels", kMaxInputDepth));
        return type == json_type::object ? add_object(value, entry, depth, json)
                                         : add_array(value, entry, depth, json);
      }
      case json_type::string: {
        // The quoted token, read before the string is unescaped (which consumes it).
        std::string_view token;
        if constexpr (std::is_same_v<Value, simdjson::ondemand::document>) {
          if (const auto error = value.raw_json_token().get(token)) fail(error, json);
        } else {
          token = value.raw_json_token();
        }
        const std::uint32_t raw = offset_of(token.data()) + 1;
        if (const auto plain = plain_string_at(raw)) return append_in_source(entry, raw, *plain);
        std::string_view text;
        if (const auto error = value.get_string().get(text)) fail(error, json);
        return append_copy(entry, text);
      }
      case json_type::number: {
        std::string_view token;
        if constexpr (std::is_same_v<Value, simdjson::ondemand::document>) {
          if (const auto error = value.raw_json_token().get(token)) fail(error, json);
        } else {
          token = value.raw_json_token();
        }
        while (!token.empty() && (token.back() == ' ' || token.back() == '\t' ||
                                  token.back() == '\n' || token.back() == '\r'))
          token.remove_suffix(1);
        // On-Demand leaves a number unchecked until it is converted; the readers convert
        // the text themselves, so its grammar is checked here.
        if (!is_json_number(token)) fail(simdjson::NUMBER_ERROR, json);
        return append_in_source(entry, offset_of(token.data()), token.size());
      }
      case json_type::boolean: {
        bool flag = false;
        if (const auto error = value.get_bool().get(flag)) fail(error, json);
        return append_in_source(entry, entry.position, flag ? 4 : 5);
      }
      case json_type::null: {
        bool null = false;
        if (const auto error = value.is_null().get(null); error || !null)
          fail(error ? error : simdjson::N_ATOM_ERROR, json);
        entry.set(InputDocument::Kind::null, 0);
        return append(entry);
      }
    }
    fail(simdjson::INCORRECT_TYPE, json);
  }

  template <class Value>
  std::uint32_t add_object(Value& value, InputDocument::Entry entry, int depth,
                           simdjson::ondemand::document* json) {
    simdjson::ondemand::object object;
    if (const auto error = value.get_object().get(object)) fail(error, json);
    std::vector<std::uint32_t>& children = children_at(depth);
    for (auto field_result : object) {
      simdjson::ondemand::field field;
      if (const auto error = std::move(field_result).get(field)) fail(error, json);
      InputDocument::Entry key_entry;
      const std::uint32_t key_text = offset_of(field.key().raw());
      key_entry.position = key_text - 1;  // at its opening quote
      last_offset_ = key_entry.position;
      if (const auto plain = plain_string_at(key_text)) {
        children.push_back(append_in_source(key_entry, key_text, *plain));
      } else {
        std::string_view key;
        if (const auto error = field.unescaped_key().get(key)) fail(error, json);
        children.push_back(append_copy(key_entry, key));
      }
      simdjson::ondemand::value child = field.value();
      simdjson::ondemand::json_type type;
      if (const auto error = child.type().get(type)) fail(error, json);
      children.push_back(add(child, type, depth + 1, json));
    }
    entry.set(InputDocument::Kind::map, 0);
    return append_container(entry, children);
  }

  template <class Value>
  std::uint32_t add_array(Value& value, InputDocument::Entry entry, int depth,
                          simdjson::ondemand::document* json) {
    simdjson::ondemand::array array;
    if (const auto error = value.get_array().get(array)) fail(error, json);
    std::vector<std::uint32_t>& children = children_at(depth);
    for (auto element_result : array) {
      simdjson::ondemand::value child;
      if (const auto error = std::move(element_result).get(child)) fail(error, json);
      simdjson::ondemand::json_type type;
      if (const auto error = child.type().get(type)) fail(error, json);
      children.push_back(add(child, type, depth + 1, json));
    }
    entry.set(InputDocument::Kind::sequence, 0);
    return append_container(entry, children);
  }

  // The list that collects the children of the container open at `depth`, emptied.
  // (pending_ never grows during the walk, so an outer level's list stays where it is.)
  std::vector<std::uint32_t>& children_at(int depth) {
    pending_[depth].clear();
    return pending_[depth];
  }

  // The length of the string whose text starts at `raw` in the source, when it holds no
  // escape: then its text is the source's bytes up to the closing quote, read in place
  // (simdjson has already checked the string and its UTF-8).
  std::optional<std::size_t> plain_string_at(std::uint32_t raw) const {
    const std::string_view rest = document_.source_.substr(raw);
    for (std::size_t i = 0; i < rest.size(); ++i) {
      if (rest[i] == '"') return i;
      if (rest[i] == '\\') return std::nullopt;
    }
    return std::nullopt;
  }

  std::uint32_t append_copy(InputDocument::Entry entry, std::string_view text) {
    entry.set(InputDocument::Kind::scalar, static_cast<std::uint32_t>(text.size()));
    entry.first = static_cast<std::uint32_t>(document_.text_.size());
    document_.text_.append(text);
    return append(entry);
  }

  std::uint32_t append_in_source(InputDocument::Entry entry, std::uint32_t offset,
                                 std::size_t size) {
    entry.set(InputDocument::Kind::scalar, static_cast<std::uint32_t>(size), true);
    entry.first = offset;
    return append(entry);
  }

  std::uint32_t append_container(InputDocument::Entry entry,
                                 const std::vector<std::uint32_t>& children) {
    entry.first = static_cast<std::uint32_t>(document_.children_.size());
    entry.set(entry.kind(), static_cast<std::uint32_t>(children.size()));
    document_.children_.insert(document_.children_.end(), children.begin(), children.end());
    return append(entry);
  }

  std::uint32_t append(const InputDocument::Entry& entry) {
    document_.entries_.push_back(entry);
    return static_cast<std::uint32_t>(document_.entries_.size() - 1);
  }

  InputDocument& document_;
  std::vector<std::vector<std::uint32_t>> pending_;  // children of the container at each depth
  const char* base_ = nullptr;
  std::uint32_t last_offset_ = 0;
  std::size_t next_report_ = kProgressStepBytes;
};

InputDocument::InputDocument(std::string_view text, std::string file, std::size_t room_after)
    : source_(text), file_(std::move(file)), room_after_(room_after) {
  if (text.size() > Entry::kCountMask)
    throw InputError(SourcePosition{file_, 0, 0},
                     fmt::format("the text is too large to read ({} bytes; the limit is {})",
                                 text.size(), Entry::kCountMask));
  // Room for the densest input (a node every few bytes), reserved but not touched: pages
  // that stay unused cost no memory, and the arrays never move while they grow.
  entries_.reserve(text.size() / 3 + 16);
  children_.reserve(text.size() / 3 + 16);
  // JSON is a map whose first key is quoted ({"jobs": ...}) or a list; YAML's flow style
  // also starts with '{' ({nodes: [...]}) and goes to libyaml, which would also accept
  // what JSON refuses (a trailing comma), so the choice is made here, once.
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  const std::size_t next =
      first == std::string_view::npos ? first : text.find_first_not_of(" \t\r\n", first + 1);
  const bool json =
      first != std::string_view::npos &&
      (text[first] == '[' || (text[first] == '{' && (next == std::string_view::npos ||
                                                     text[next] == '"' || text[next] == '}')));
  if (json)
    JsonTreeBuilder(*this).build();
  else
    YamlTreeBuilder(*this).build();
}

}  // namespace hetsched::io_detail

namespace hetsched {

void check_input_syntax(std::string_view text, const std::string& file) {
  (void)io_detail::InputDocument(text, file);
}

}  // namespace hetsched
