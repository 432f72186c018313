// The WfCommons importer on the four shared executed workflows (task and edge
// counts, runtimes, file sizes as in the files) and on small malformed instances.
#include "hetsched/io/wfcommons_importer.hpp"

#include <gtest/gtest.h>

#include "hetsched/perf/roofline_model.hpp"
#include "import_test_support.hpp"

namespace hetsched {
namespace {

using testing_support::data_file;
using testing_support::expect_input_error;
using testing_support::write_temp_file;

const Task& task_named(const Job& job, const std::string& name) {
  for (const Task& t : job.tasks)
    if (t.name == name) return t;
  throw std::runtime_error("no task " + name);
}

const Edge* edge_between(const Job& job, const std::string& from, const std::string& to) {
  for (const Edge& e : job.edges)
    if (job.tasks[e.from].name == from && job.tasks[e.to].name == to) return &e;
  return nullptr;
}

// A one-core CPU of the given per-core fp64 peak, to check the runtime mapping.
double seconds_on_one_core(const Task& task, double core_flops) {
  DeviceSpec core;
  core.model = "one-core";
  core.kind = DeviceKind::cpu;
  core.vector_flops = {core_flops, 2 * core_flops, 4 * core_flops, 8 * core_flops};
  core.matrix_flops = core.vector_flops;
  core.memory_bytes = 1e12;
  core.memory_bandwidth = 1e15;  // the I/O volume costs nothing here
  Cluster cluster;
  cluster.add_node(Node{.name = "n"}, {core});
  const RooflineModel perf(cluster);
  return perf.task_seconds(task, cluster.device(0), 0);
}

TEST(WfCommonsImporter, ReadsEverySharedWorkflow) {
  struct Expected {
    const char* file;
    std::size_t tasks, edges;
  };
  for (const Expected& e : {Expected{"1000genome-chameleon-2ch-100k-001.json", 52, 76},
                            Expected{"epigenomics-chameleon-hep-1seq-100k-001.json", 41, 48},
                            Expected{"montage-chameleon-2mass-005d-001.json", 58, 114},
                            Expected{"srasearch-chameleon-10a-001.json", 22, 30}}) {
    SCOPED_TRACE(e.file);
    const Job job = import_wfcommons_file(data_file(std::string("wfcommons/") + e.file));
    EXPECT_EQ(job.tasks.size(), e.tasks);
    EXPECT_EQ(job.edges.size(), e.edges);
    for (const Task& t : job.tasks) {
      EXPECT_GE(t.flops, 0);
      EXPECT_EQ(t.kernel, KernelClass::branchy);
    }
  }
}

TEST(WfCommonsImporter, MeasuredRuntimesAndFileSizes) {
  const Job genome =
      import_wfcommons_file(data_file("wfcommons/1000genome-chameleon-2ch-100k-001.json"));
  EXPECT_EQ(genome.name, "1000genome-20200401T035039Z-0");
  // individuals_ID0000001 ran 53.6 s at 160.8619 % CPU on pegasus-5 (1200 MHz): on one
  // core of that machine (1200 MHz × 16 fp64 flops/cycle) the model predicts the
  // measured CPU-busy core-seconds.
  const Task& individuals = task_named(genome, "individuals_ID0000001");
  EXPECT_NEAR(seconds_on_one_core(individuals, 1200e6 * 16), 53.6 * 1.608619, 1e-9);
  // Its input ALL.chr21.100000.vcf (1,014,442,803 bytes) comes from outside.
  EXPECT_GE(individuals.input_bytes, 1014442803.0);
  const Edge* e = edge_between(genome, "individuals_ID0000001", "individuals_merge_ID0000011");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->bytes, 28281.0);  // chr21n-1-1001.tar.gz

  const Job montage =
      import_wfcommons_file(data_file("wfcommons/montage-chameleon-2mass-005d-001.json"));
  const Task& project = task_named(montage, "mProject_ID0000001");
  EXPECT_NEAR(seconds_on_one_core(project, 1200e6 * 16), 16.712 * 0.976723, 1e-9);
  EXPECT_EQ(project.memory_bytes, 14800000.0);
  const Edge* add_to_viewer = edge_between(montage, "mAdd_ID0000018", "mViewer_ID0000019");
  ASSERT_NE(add_to_viewer, nullptr);
  EXPECT_EQ(add_to_viewer->bytes, 262080.0);

  const Job sra = import_wfcommons_file(data_file("wfcommons/srasearch-chameleon-10a-001.json"));
  const Edge* index_to_align = edge_between(sra, "bowtie2-build_ID0000001", "bowtie2_ID0000003");
  ASSERT_NE(index_to_align, nullptr);
  EXPECT_EQ(index_to_align->bytes, 8526566.0);  // the six reference.*.bt2 index files
}

TEST(WfCommonsImporter, OptionsChooseKernelAndDeviceKinds) {
  WorkflowImportOptions options;
  options.kernel_by_category["mProject"] = KernelClass::elementwise;
  options.cpu_only = true;
  const Job montage =
      import_wfcommons_file(data_file("wfcommons/montage-chameleon-2mass-005d-001.json"), options);
  EXPECT_EQ(task_named(montage, "mProject_ID0000001").kernel, KernelClass::elementwise);
  EXPECT_EQ(task_named(montage, "mAdd_ID0000018").kernel, KernelClass::branchy);
  EXPECT_FALSE(montage.tasks[0].allowed_kinds.contains(DeviceKind::gpu));
  EXPECT_TRUE(montage.tasks[0].allowed_kinds.contains(DeviceKind::cpu));
}

// A two-task instance in the 1.5 layout, with `a_parents` as a's parent list and
// `a_runtime`, `file_size` and `version` substituted.
std::string instance(const std::string& version, const std::string& a_parents,
                     const std::string& a_runtime = "2.0", const std::string& file_size = "100",
                     const std::string& b_id = "b") {
  return R"({
  "name": "tiny",
  "schemaVersion": ")" +
         version + R"(",
  "workflow": {
    "specification": {
      "tasks": [
        {"name": "a", "id": "a", "parents": )" +
         a_parents + R"(, "children": [], "inputFiles": ["f"], "outputFiles": []},
        {"name": "b", "id": ")" +
         b_id + R"(", "parents": [], "children": [], "inputFiles": [], "outputFiles": ["f"]}
      ],
      "files": [
        {"id": "f", "sizeInBytes": )" +
         file_size + R"(}
      ]
    },
    "execution": {
      "makespanInSeconds": 3, "executedAt": "2021-01-01T00:00:00",
      "tasks": [
        {"id": "a", "runtimeInSeconds": )" +
         a_runtime + R"(, "avgCPU": 100},
        {"id": ")" +
         b_id + R"(", "runtimeInSeconds": 1.0}
      ]
    }
  }
}
)";
}

TEST(WfCommonsImporter, SmallInstanceBuildsTheEdgeFromItsFile) {
  const Job job = import_wfcommons_file(write_temp_file("ok.json", instance("1.6", R"(["b"])")));
  ASSERT_EQ(job.edges.size(), 1u);
  EXPECT_EQ(job.edges[0].from, 1u);
  EXPECT_EQ(job.edges[0].to, 0u);
  EXPECT_EQ(job.edges[0].bytes, 100.0);
  EXPECT_EQ(job.tasks[0].input_bytes, 0.0);  // f is produced inside the workflow
}

TEST(WfCommonsImporter, MissingParentIsNamed) {
  expect_input_error(
      [] { import_wfcommons_file(write_temp_file("w.json", instance("1.5", R"(["ghost"])"))); },
      "names parent 'ghost', which is not a task", 7);
}

TEST(WfCommonsImporter, DuplicateIdIsNamed) {
  expect_input_error(
      [] {
        import_wfcommons_file(write_temp_file("w.json", instance("1.5", "[]", "2.0", "100", "a")));
      },
      "duplicate task id 'a'", 8);
}

TEST(WfCommonsImporter, CycleIsSpelledOut) {
  std::string text = instance("1.5", R"(["b"])");
  text.replace(text.find(R"("parents": [], "children": [])"),
               std::string(R"("parents": [], "children": [])").size(),
               R"("parents": ["a"], "children": [])");
  expect_input_error([&] { import_wfcommons_file(write_temp_file("w.json", text)); },
                     "the dependencies form a cycle");
}

TEST(WfCommonsImporter, NegativeRuntimeAndSizeAreRejected) {
  expect_input_error(
      [] { import_wfcommons_file(write_temp_file("w.json", instance("1.5", "[]", "-2"))); },
      "runtime of task 'a' is negative", 17);
  expect_input_error(
      [] { import_wfcommons_file(write_temp_file("w.json", instance("1.5", "[]", "2.0", "-5"))); },
      "size of file 'f' is negative", 11);
}

TEST(WfCommonsImporter, UnknownSchemaVersionIsRejected) {
  expect_input_error(
      [] { import_wfcommons_file(write_temp_file("w.json", instance("2.0", "[]"))); },
      "unknown WfCommons schema version '2.0' (supported: 1.4, 1.5, 1.6)", 3);
}

TEST(WfCommonsImporter, MalformedJsonGivesLineAndColumn) {
  try {
    import_wfcommons_file(write_temp_file("w.json", "{\n  \"name\": \"x\",\n  oops\n}"));
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("JSON syntax error"), std::string::npos) << e.what();
    EXPECT_EQ(e.where().line, 3) << e.what();
    EXPECT_EQ(e.where().column, 3) << e.what();
  }
}

TEST(WfCommonsImporter, ReadsTheOlderCombinedLayout) {
  const std::string text = R"({
  "name": "old", "schemaVersion": "1.4",
  "workflow": {
    "makespanInSeconds": 10, "executedAt": "2020-01-01T00:00:00",
    "machines": [{"nodeName": "m1", "cpu": {"count": 8, "speed": 2000}}],
    "tasks": [
      {"name": "split_ID1", "category": "split", "parents": [], "runtimeInSeconds": 4,
       "cores": 2, "machine": "m1",
       "files": [{"name": "in", "sizeInBytes": 50, "link": "input"},
                 {"name": "part", "sizeInBytes": 30, "link": "output"}]},
      {"name": "merge_ID2", "category": "merge", "parents": ["split_ID1"], "runtimeInSeconds": 3,
       "machine": "m1", "files": [{"name": "part", "sizeInBytes": 30, "link": "input"}]}
    ]
  }
})";
  const Job job = import_wfcommons_file(write_temp_file("old.json", text));
  ASSERT_EQ(job.tasks.size(), 2u);
  ASSERT_EQ(job.edges.size(), 1u);
  EXPECT_EQ(job.edges[0].bytes, 30.0);
  EXPECT_EQ(job.tasks[0].input_bytes, 50.0);
  // No avgCPU: the 2 requested cores count as busy; m1's core: 2000 MHz × 16.
  EXPECT_NEAR(seconds_on_one_core(job.tasks[0], 2000e6 * 16), 4.0 * 2, 1e-9);
  expect_input_error(
      [&] {
        std::string bad = text;
        bad.replace(bad.find(R"(["split_ID1"])"), 13, R"(["split_ID9"])");
        import_wfcommons_file(write_temp_file("bad.json", bad));
      },
      "names parent 'split_ID9'", 11);
}

}  // namespace
}  // namespace hetsched
