// Shared helpers for the input-boundary tests: capture the message of the InputError a
// parse raises, and check that a message contains a piece of text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "hetsched/core/input_error.hpp"

namespace hetsched::test_support {

// The what() of the InputError `parse` throws, or "(no error)" when it throws none.
// Any other exception type propagates and fails the test.
template <typename Parse>
std::string input_error_of(Parse&& parse) {
  try {
    parse();
  } catch (const InputError& error) {
    return error.what();
  }
  return "(no error)";
}

}  // namespace hetsched::test_support

#define EXPECT_CONTAINS(text, piece)                          \
  EXPECT_NE(std::string(text).find(piece), std::string::npos) \
      << "expected to find \"" << (piece) << "\" in:\n  " << (text)
