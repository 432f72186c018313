// `hetsched import` as a user meets it: a shared workflow summarised, the Topcuoglu
// matrix solved exactly, and a malformed workflow answered with one line naming
// the task and exit status 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli_runner.hpp"

namespace {

using ImportRun = hetsched::testing::CliResult;

ImportRun run_import(const std::string& arguments) {
  return hetsched::testing::run_cli("import " + arguments);
}

TEST(ImportCommand, SummarisesASharedWorkflow) {
  const ImportRun r =
      run_import(std::string(HETSCHED_DATA_DIR) + "/pegasus/Montage_25.xml --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["tasks"], 25);
  EXPECT_EQ(out["edges"], 45);
}

TEST(ImportCommand, SolvesTheTopcuogluMatrixExactly) {
  const ImportRun r = run_import(std::string(HETSCHED_SOURCE_DIR) +
                                 "/examples/topcuoglu.yaml --exact --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["exact_status"], "optimal");
  EXPECT_LE(out["exact_makespan_seconds"].get<double>(), 80.0);  // HEFT's, in the paper
}

TEST(ImportCommand, BadWorkflowIsOneLineAndStatusTwo) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("hetsched_import_bad_" + std::to_string(::getpid()) + ".xml");
  std::ofstream(path) << "<adag>\n  <job id=\"A\" runtime=\"1\"/>\n"
                         "  <child ref=\"A\"><parent ref=\"Q\"/></child>\n</adag>\n";
  const ImportRun r = run_import(path.string());
  std::filesystem::remove(path);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("task 'A' names parent 'Q'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace
