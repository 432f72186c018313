// PaddedJsonText: a text as simdjson takes it. simdjson reads up to SIMDJSON_PADDING bytes
// past the end of its input (what they hold does not matter), so a text that has that much
// room after it (the strings read_text_file returns) is read where it lies, and any other
// is copied once into a padded buffer on huge pages. Not a public header.
#pragma once

#include <simdjson.h>

#include <cstring>
#include <memory>
#include <string_view>

#include "hetsched/core/huge_page_allocator.hpp"

namespace hetsched::io_detail {

class PaddedJsonText {
 public:
  // `room_after`: bytes past the end of `text` that may be read.
  PaddedJsonText(std::string_view text, std::size_t room_after) : size_(text.size()) {
    if (room_after >= simdjson::SIMDJSON_PADDING) {
      data_ = text.data();
      return;
    }
    copy_ = std::make_unique_for_overwrite<char[]>(padded_size());  // written once: not cleared
    advise_huge_pages(copy_.get(), padded_size());
    if (!text.empty()) std::memcpy(copy_.get(), text.data(), text.size());
    std::memset(copy_.get() + text.size(), 0, simdjson::SIMDJSON_PADDING);
    data_ = copy_.get();
  }

  const char* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t padded_size() const { return size_ + simdjson::SIMDJSON_PADDING; }
  simdjson::padded_string_view view() const {
    return simdjson::padded_string_view(data_, size_, padded_size());
  }

 private:
  std::unique_ptr<char[]> copy_;
  const char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace hetsched::io_detail
