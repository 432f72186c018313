// The Pegasus DAX importer on the shared DAX files (task and edge counts, runtimes,
// file sizes; the Topcuoglu et al. 2002 graph with edge sizes = the paper's
// communication costs × 125) and on small malformed files.
#include "hetsched/io/pegasus_dax_importer.hpp"

#include <gtest/gtest.h>

#include <map>

#include "import_test_support.hpp"

namespace hetsched {
namespace {

using testing_support::data_file;
using testing_support::expect_input_error;
using testing_support::write_temp_file;

TEST(PegasusDaxImporter, ReadsEverySharedWorkflow) {
  struct Expected {
    const char* file;
    std::size_t tasks, edges;
  };
  for (const Expected& e :
       {Expected{"Montage_25.xml", 25, 45}, Expected{"Epigenomics_24.xml", 24, 27},
        Expected{"HEFT_paper.xml", 10, 15}}) {
    SCOPED_TRACE(e.file);
    const Job job = import_pegasus_dax_file(data_file(std::string("pegasus/") + e.file));
    EXPECT_EQ(job.tasks.size(), e.tasks);
    EXPECT_EQ(job.edges.size(), e.edges);
    for (const Edge& edge : job.edges) EXPECT_GT(edge.bytes, 0);  // every edge passes a file
  }
}

TEST(PegasusDaxImporter, RuntimesAndSizesOfMontage) {
  const Job job = import_pegasus_dax_file(data_file("pegasus/Montage_25.xml"));
  EXPECT_EQ(job.tasks[0].name, "mProjectPP_ID00000");
  // runtime 13.39 s on one reference core (EPYC-9654: 38.4 GFLOP/s fp64 per core) at the
  // roofline model's CPU efficiency for branchy code (0.30).
  EXPECT_NEAR(job.tasks[0].flops, 13.39 * 38.4e9 * 0.30, 1e-3);
  // Inputs region.hdr (304) and 2mass-atlas-ID00000s-jID00000.fits (4,222,080) come
  // from outside the workflow.
  EXPECT_EQ(job.tasks[0].input_bytes, 304.0 + 4222080.0);
  bool found = false;
  for (const Edge& e : job.edges)
    if (e.from == 0 && e.to == 5) {
      found = true;
      EXPECT_EQ(e.bytes, 8334624.0);  // p2mass-...fits and its _area.fits, 4,167,312 each
    }
  EXPECT_TRUE(found);
}

TEST(PegasusDaxImporter, HeftPaperGraphHasTheTopcuogluStructure) {
  const Job job = import_pegasus_dax_file(data_file("pegasus/HEFT_paper.xml"));
  ASSERT_EQ(job.tasks.size(), 10u);
  // Communication costs of Topcuoglu et al. 2002, Fig. 2 (tasks numbered from 1).
  const std::map<std::pair<int, int>, double> cost{
      {{1, 2}, 18}, {{1, 3}, 12}, {{1, 4}, 9},   {{1, 5}, 11},  {{1, 6}, 14},
      {{2, 8}, 19}, {{2, 9}, 16}, {{3, 7}, 23},  {{4, 8}, 27},  {{4, 9}, 23},
      {{5, 9}, 13}, {{6, 8}, 15}, {{7, 10}, 17}, {{8, 10}, 11}, {{9, 10}, 13}};
  ASSERT_EQ(job.edges.size(), cost.size());
  for (const Edge& e : job.edges) {
    const std::pair<int, int> link{static_cast<int>(e.from) + 1, static_cast<int>(e.to) + 1};
    const auto it = cost.find(link);
    ASSERT_NE(it, cost.end()) << e.from << " -> " << e.to;
    // The shared file departs from the paper on one edge: heft_file_3_7 has 2500
    // bytes (cost 20), where the paper's figure gives 23. The importer reads what
    // the file says; examples/topcuoglu.yaml holds the paper's figures.
    if (link == std::pair{3, 7})
      EXPECT_EQ(e.bytes, 2500.0);
    else
      EXPECT_EQ(e.bytes, it->second * 125) << link.first << " -> " << link.second;
  }
}

std::string dax(const std::string& jobs, const std::string& links) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<adag xmlns=\"http://pegasus.isi.edu/schema/DAX\" version=\"2.1\" name=\"tiny\">\n" +
         jobs + links + "</adag>\n";
}

const std::string two_jobs =
    "  <job id=\"A\" name=\"split\" runtime=\"4\">\n"       // line 3
    "    <uses file=\"x\" link=\"output\" size=\"10\"/>\n"  // line 4
    "  </job>\n"                                            // line 5
    "  <job id=\"B\" name=\"merge\" runtime=\"2\">\n"       // line 6
    "    <uses file=\"x\" link=\"input\" size=\"10\"/>\n"   // line 7
    "  </job>\n";                                           // line 8

TEST(PegasusDaxImporter, SmallWorkflowBuildsItsEdge) {
  const Job job = import_pegasus_dax_file(
      write_temp_file("ok.xml", dax(two_jobs, "  <child ref=\"B\"><parent ref=\"A\"/></child>\n")));
  ASSERT_EQ(job.edges.size(), 1u);
  EXPECT_EQ(job.edges[0].bytes, 10.0);
  EXPECT_EQ(job.name, "tiny");
}

TEST(PegasusDaxImporter, MissingParentIsNamedWithItsLine) {
  expect_input_error(
      [] {
        import_pegasus_dax_file(write_temp_file(
            "w.xml", dax(two_jobs, "  <child ref=\"B\">\n    <parent ref=\"Z\"/>\n  </child>\n")));
      },
      "names parent 'Z', which is not a task", 10);
}

TEST(PegasusDaxImporter, DuplicateIdIsNamed) {
  expect_input_error(
      [] {
        import_pegasus_dax_file(
            write_temp_file("w.xml", dax(two_jobs + "  <job id=\"A\" runtime=\"1\"/>\n", "")));
      },
      "duplicate task id 'A' (first defined at line 3)", 9);
}

TEST(PegasusDaxImporter, CycleIsRejected) {
  expect_input_error(
      [] {
        import_pegasus_dax_file(
            write_temp_file("w.xml", dax(two_jobs,
                                         "  <child ref=\"B\"><parent ref=\"A\"/></child>\n"
                                         "  <child ref=\"A\"><parent ref=\"B\"/></child>\n")));
      },
      "the dependencies form a cycle");
}

TEST(PegasusDaxImporter, NegativeRuntimeAndSizeAreRejected) {
  std::string negative_runtime = two_jobs;
  negative_runtime.replace(negative_runtime.find("runtime=\"2\""), 11, "runtime=\"-2\"");
  expect_input_error(
      [&] { import_pegasus_dax_file(write_temp_file("w.xml", dax(negative_runtime, ""))); },
      "runtime of job 'B' is negative", 6);
  std::string negative_size = two_jobs;
  negative_size.replace(negative_size.find("size=\"10\""), 9, "size=\"-10\"");
  expect_input_error(
      [&] { import_pegasus_dax_file(write_temp_file("w.xml", dax(negative_size, ""))); },
      "size of file 'x' is negative", 4);
}

TEST(PegasusDaxImporter, MalformedXmlGivesTheLine) {
  expect_input_error(
      [] {
        import_pegasus_dax_file(write_temp_file("w.xml", dax(two_jobs + "  <job id=\"C\"\n", "")));
      },
      "malformed XML", 10);
}

}  // namespace
}  // namespace hetsched
