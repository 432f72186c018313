// InputDocument: a YAML or JSON input file parsed into one compact, read-only tree, the
// form in which the cluster, workload and runtime-DAG readers see their files.
//
// Two event parsers build the same tree, so the readers never know which one ran:
//   - JSON (a map whose first key is quoted, or a list) goes through simdjson's On-Demand
//     parser;
//   - everything else (YAML, including its flow style `{nodes: [...]}`) through libyaml's
//     event parser.
// Neither builds a tree of its own: nodes are 12-byte entries in one array, a scalar whose
// text appears as is in the file (no escapes, no folding) is read in place and any other
// is copied into one text arena, and a container's children are one run of indices. The
// big arrays live on huge pages (HugePageAllocator): first touches of fresh pages are most
// of the cost of reading a big file on a virtual machine. Each node keeps the byte offset
// where it starts, turned into line and column (columns count characters, as libyaml
// does) only when asked, from a line index built on first use; every syntax error is an
// InputError with file:line:column. Only the first YAML document is read. An alias
// (*name) shares the anchored node instead of copying it. Nesting deeper than
// kMaxInputDepth is refused. Input is UTF-8 (a UTF-16 or UTF-32 file is refused).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "hetsched/core/huge_page_allocator.hpp"
#include "hetsched/core/input_error.hpp"

namespace hetsched::io_detail {

inline constexpr int kMaxInputDepth = 256;

class InputDocument;

// A handle to one node of a document (or to nothing: a missing field). Cheap to copy; valid
// while its document lives.
class InputNode {
 public:
  InputNode() = default;

  bool is_defined() const { return document_ != nullptr; }
  bool is_null() const;
  bool is_scalar() const;
  bool is_sequence() const;
  bool is_map() const;
  // The text of a scalar (escapes resolved); empty for anything else.
  std::string_view scalar() const;
  // Elements of a sequence, entries of a map; 0 otherwise.
  std::size_t size() const;
  // Element i of a sequence; key and value of entry i of a map.
  InputNode operator[](std::size_t i) const;
  InputNode key_at(std::size_t i) const;
  InputNode value_at(std::size_t i) const;
  // A scalar written in quotes: a JSON string (not a number, boolean or null), a quoted
  // YAML scalar.
  bool is_quoted() const;
  // Where the node starts in the file (line and column 1-based; 0 when undefined), and
  // as a byte offset in the text (npos when undefined).
  SourcePosition position() const;
  std::size_t offset() const;

 private:
  friend class InputDocument;
  InputNode(const InputDocument* document, std::uint32_t index)
      : document_(document), index_(index) {}
  InputNode child(std::size_t i) const;

  const InputDocument* document_ = nullptr;
  std::uint32_t index_ = 0;
};

class InputDocument {
 public:
  // Parses `text`, which must outlive the document. Throws InputError (file, line, column)
  // on a syntax error or too deep a nesting. An empty document has an undefined root.
  // `room_after`: bytes past the end of `text` that may be read (room_after of the
  // std::string it is): with enough, JSON is parsed where it is rather than in a copy.
  InputDocument(std::string_view text, std::string file, std::size_t room_after = 0);

  InputNode root() const;
  const std::string& file() const { return file_; }

 private:
  friend class InputNode;
  friend class YamlTreeBuilder;
  friend class JsonTreeBuilder;

  enum class Kind : std::uint8_t { null, scalar, sequence, map };
  // 12 bytes a node. `packed` holds the count (29 bits: texts are under 512 MiB), the
  // kind (2 bits) and whether a scalar's text lies in source_ (1 bit).
  struct Entry {
    std::uint32_t position = 0;  // byte offset in source_ where the node starts
    std::uint32_t first = 0;     // scalar: start of its text; container: first of children_
    std::uint32_t packed = 0;

    static constexpr std::uint32_t kCountBits = 29;
    static constexpr std::uint32_t kCountMask = (1u << kCountBits) - 1;
    std::uint32_t count() const { return packed & kCountMask; }  // text length or children
    Kind kind() const { return static_cast<Kind>((packed >> kCountBits) & 3u); }
    bool text_in_source() const { return (packed >> 31) != 0; }
    void set(Kind kind, std::uint32_t count, bool text_in_source = false) {
      packed = (count & kCountMask) | (static_cast<std::uint32_t>(kind) << kCountBits) |
               (static_cast<std::uint32_t>(text_in_source) << 31);
    }
  };
  static_assert(sizeof(Entry) == 12);

  SourcePosition position_of(const Entry& entry) const;
  SourcePosition position_at_offset(std::uint32_t offset) const;

  std::string_view source_;
  std::string file_;
  std::size_t room_after_ = 0;
  bool yaml_line_breaks_ = false;  // \r, NEL, LS and PS end lines too, as libyaml counts them
  LargeVector<Entry> entries_;
  LargeVector<std::uint32_t> children_;             // a map's are key, value, key, value, ...
  std::string text_;                                // scalar text that is not in source_ as is
  mutable std::vector<std::uint32_t> line_starts_;  // byte offset of each line, built lazily
  // Guards line_starts_ (threads that read parts of one document report errors at once);
  // held by pointer so that the document stays movable.
  std::unique_ptr<std::mutex> line_index_mutex_ = std::make_unique<std::mutex>();
  std::uint32_t root_ = 0;
  bool has_root_ = false;
};

// ---- InputNode's accessors, inline: a big file's readers call them for every field ----

inline bool InputNode::is_null() const {
  return document_ != nullptr && document_->entries_[index_].kind() == InputDocument::Kind::null;
}
inline bool InputNode::is_scalar() const {
  return document_ != nullptr && document_->entries_[index_].kind() == InputDocument::Kind::scalar;
}
inline bool InputNode::is_sequence() const {
  return document_ != nullptr &&
         document_->entries_[index_].kind() == InputDocument::Kind::sequence;
}
inline bool InputNode::is_map() const {
  return document_ != nullptr && document_->entries_[index_].kind() == InputDocument::Kind::map;
}

inline std::string_view InputNode::scalar() const {
  if (!is_scalar()) return {};
  const auto& entry = document_->entries_[index_];
  return (entry.text_in_source() ? document_->source_ : std::string_view(document_->text_))
      .substr(entry.first, entry.count());
}

inline std::size_t InputNode::size() const {
  if (document_ == nullptr) return 0;
  const auto& entry = document_->entries_[index_];
  if (entry.kind() == InputDocument::Kind::sequence) return entry.count();
  if (entry.kind() == InputDocument::Kind::map) return entry.count() / 2;
  return 0;
}

inline InputNode InputNode::child(std::size_t i) const {
  const auto& entry = document_->entries_[index_];
  return InputNode(document_, document_->children_[entry.first + i]);
}

inline InputNode InputNode::operator[](std::size_t i) const {
  return is_sequence() && i < size() ? child(i) : InputNode();
}
inline InputNode InputNode::key_at(std::size_t i) const {
  return is_map() && i < size() ? child(2 * i) : InputNode();
}
inline InputNode InputNode::value_at(std::size_t i) const {
  return is_map() && i < size() ? child(2 * i + 1) : InputNode();
}

inline bool InputNode::is_quoted() const {
  if (!is_scalar()) return false;
  const std::uint32_t at = document_->entries_[index_].position;
  return at < document_->source_.size() &&
         (document_->source_[at] == '"' || document_->source_[at] == '\'');
}

inline std::size_t InputNode::offset() const {
  return document_ == nullptr ? std::string_view::npos : document_->entries_[index_].position;
}

}  // namespace hetsched::io_detail
