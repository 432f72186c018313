// Helpers for the importer tests: writing small files into a temporary folder and
// checking the InputError they raise.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hetsched/core/input_error.hpp"

namespace hetsched::testing_support {

inline std::string data_file(const std::string& relative) {
  return std::string(HETSCHED_DATA_DIR) + "/" + relative;
}

// Writes `text` to a file in a per-test temporary folder and returns its path.
inline std::string write_temp_file(const std::string& name, const std::string& text) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      (std::string("hetsched_") + info->test_suite_name() + "_" + info->name());
  std::filesystem::create_directories(dir);
  const std::filesystem::path path = dir / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}

// Runs `load`, which must throw an InputError whose message contains `needle` and
// which points at `line` of the file (0: any line).
template <class Load>
void expect_input_error(Load load, const std::string& needle, int line = 0) {
  try {
    load();
    ADD_FAILURE() << "expected an InputError containing '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    if (line > 0) {
      EXPECT_EQ(e.where().line, line) << e.what();
    }
    EXPECT_FALSE(e.where().file.empty()) << e.what();
  }
}

}  // namespace hetsched::testing_support
