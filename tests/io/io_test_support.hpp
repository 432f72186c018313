// Shared helpers for the input-boundary tests: capture the message of the InputError a
// parse raises, and check that a message contains a piece of text.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "hetsched/core/input_error.hpp"
#include "hetsched/workload/workload.hpp"

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

// Two readings of one job agree: name, data node, every task's fields that files give, and
// every edge.
inline void expect_same_job(const Job& read, const Job& expected) {
  EXPECT_EQ(read.name, expected.name);
  EXPECT_EQ(read.data_node, expected.data_node);
  ASSERT_EQ(read.tasks.size(), expected.tasks.size());
  for (std::size_t t = 0; t < read.tasks.size(); ++t) {
    EXPECT_EQ(read.tasks[t].name, expected.tasks[t].name);
    EXPECT_EQ(read.tasks[t].kernel, expected.tasks[t].kernel);
    EXPECT_EQ(read.tasks[t].precision, expected.tasks[t].precision);
    EXPECT_EQ(read.tasks[t].flops, expected.tasks[t].flops);
    EXPECT_EQ(read.tasks[t].bytes, expected.tasks[t].bytes);
    EXPECT_EQ(read.tasks[t].cost_seconds, expected.tasks[t].cost_seconds);
  }
  ASSERT_EQ(read.edges.size(), expected.edges.size());
  for (std::size_t e = 0; e < read.edges.size(); ++e) {
    EXPECT_EQ(read.edges[e].from, expected.edges[e].from);
    EXPECT_EQ(read.edges[e].to, expected.edges[e].to);
    EXPECT_EQ(read.edges[e].bytes, expected.edges[e].bytes);
  }
}

}  // namespace hetsched::test_support

#define EXPECT_CONTAINS(text, piece)                          \
  EXPECT_NE(std::string(text).find(piece), std::string::npos) \
      << "expected to find \"" << (piece) << "\" in:\n  " << (text)
