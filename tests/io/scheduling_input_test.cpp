// load_scheduling_input: a workload file of any format is told by its content, and a JSON
// file is parsed once for both (its kind and its reading); what it reads is what the
// format's own parser reads, and its errors are the parser's, with their positions.
#include "hetsched/io/scheduling_input.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hetsched/core/text_file.hpp"
#include "hetsched/io/cluster_file.hpp"
#include "hetsched/io/cost_matrix_file.hpp"
#include "hetsched/io/wfcommons_importer.hpp"
#include "hetsched/io/workload_file.hpp"
#include "io_test_support.hpp"

namespace hetsched {
namespace {

using test_support::input_error_of;

const std::string kExampleClusterJson = HETSCHED_SOURCE_DIR "/examples/cluster.json";

// A file in a folder of its own, removed with it.
class ScratchFile {
 public:
  ScratchFile(const std::string& name, const std::string& text)
      : folder_(std::filesystem::temp_directory_path() /
                ("hetsched_scheduling_input_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(folder_);
    path_ = (folder_ / name).string();
    std::ofstream(path_, std::ios::binary) << text;
  }
  ~ScratchFile() { std::filesystem::remove_all(folder_); }
  const std::string& path() const { return path_; }

 private:
  std::filesystem::path folder_;
  std::string path_;
};

TEST(SchedulingInput, AJsonWorkloadIsReadAsItsParserReadsItOnItsOwnCluster) {
  const std::string text =
      "{\"cluster\": \"" + kExampleClusterJson +
      "\", \"jobs\": [{\"name\": \"j\", \"tasks\": ["
      "{\"name\": \"a\", \"flops\": 1e9},"
      "{\"name\": \"b\", \"kernel\": \"dense_matmul\", \"flops\": 2e9, \"after\": [\"a\"]},"
      "{\"name\": \"c\", \"bytes\": 5e8, \"after\": [{\"task\": \"a\", \"bytes\": 1e6}, \"b\"]}"
      "]}]}";
  const ScratchFile file("workload.json", text);
  const SchedulingInput input = load_scheduling_input("", file.path(), 1);
  EXPECT_EQ(input.workload_kind, ConfigKind::workload);
  EXPECT_EQ(input.cluster_source, kExampleClusterJson);

  const Cluster cluster = load_cluster_file(kExampleClusterJson);
  EXPECT_EQ(input.cluster.device_count(), cluster.device_count());
  const Workload direct = parse_workload(text, file.path(), cluster);
  ASSERT_EQ(input.workload.jobs.size(), 1u);
  const Job& read = input.workload.jobs[0];
  ASSERT_EQ(read.tasks.size(), 3u);
  ASSERT_EQ(read.edges.size(), 3u);
  EXPECT_EQ(read.edges[1].bytes, 1e6);
  test_support::expect_same_job(read, direct.jobs[0]);
}

TEST(SchedulingInput, JsonCostMatricesAndWfCommonsWorkflowsAreReadAsTheirParsersReadThem) {
  const std::string matrix_text =
      "{\"name\": \"m\", \"devices\": [\"P1\", \"P2\"], \"tasks\": ["
      "{\"name\": \"T1\", \"costs\": [4, 6]}, {\"name\": \"T2\", \"costs\": [3, 2]}],"
      "\"edges\": [{\"from\": \"T1\", \"to\": \"T2\", \"cost\": 5}]}";
  const ScratchFile matrix_file("matrix.json", matrix_text);
  const SchedulingInput matrix = load_scheduling_input("", matrix_file.path(), 1);
  EXPECT_EQ(matrix.workload_kind, ConfigKind::cost_matrix);
  const CostMatrix direct = parse_cost_matrix(matrix_text, matrix_file.path());
  EXPECT_EQ(matrix.cluster.device_count(), direct.device_names.size());
  ASSERT_EQ(matrix.workload.jobs.size(), 1u);
  EXPECT_EQ(matrix.workload.jobs[0].tasks.size(), direct.task_names.size());
  EXPECT_EQ(matrix.workload.jobs[0].edges.size(), direct.edges.size());

  const std::string montage =
      std::string(HETSCHED_DATA_DIR) + "/wfcommons/montage-chameleon-2mass-005d-001.json";
  const SchedulingInput workflow = load_scheduling_input("", montage, 1);
  EXPECT_EQ(workflow.workload_kind, ConfigKind::wfcommons);
  const Job imported = import_wfcommons_file(montage);
  ASSERT_EQ(workflow.workload.jobs.size(), 1u);
  test_support::expect_same_job(workflow.workload.jobs[0], imported);
}

TEST(SchedulingInput, ABrokenOrForeignJsonFileGetsOneErrorWithItsPosition) {
  const ScratchFile broken("broken.json", "{\"jobs\": [\n  {\"name\": \"j\",, \"tasks\": []}]}");
  const std::string syntax = input_error_of([&] { load_scheduling_input("", broken.path(), 1); });
  EXPECT_CONTAINS(syntax, broken.path() + ":2:");
  EXPECT_CONTAINS(syntax, "JSON syntax error");

  const std::string cluster =
      input_error_of([&] { load_scheduling_input("", kExampleClusterJson, 1); });
  EXPECT_CONTAINS(cluster, "expected a workload");
  EXPECT_CONTAINS(cluster, "found a cluster");

  const ScratchFile task_error(
      "task.json",
      "{\"jobs\": [{\"name\": \"j\", \"tasks\": [{\"name\": \"a\", \"flops\": -1}]}]}");
  const std::string field =
      input_error_of([&] { load_scheduling_input("", task_error.path(), 1); });
  EXPECT_CONTAINS(field, task_error.path() + ":1:");
  EXPECT_CONTAINS(field, "field 'flops' expects a number >= 0");
}

}  // namespace
}  // namespace hetsched
