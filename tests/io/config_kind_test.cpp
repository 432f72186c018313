// Telling an input's kind by its content, whatever way the file is written.
#include "hetsched/io/config_kind.hpp"

#include <gtest/gtest.h>

namespace hetsched {
namespace {

TEST(ConfigKind, BlockYamlIsToldByTheFieldsAtColumnZero) {
  EXPECT_EQ(detect_config_kind_of_text("# a cluster\n---\nnetwork: {}\nnodes:\n  - name: a\n"),
            ConfigKind::cluster);
  EXPECT_EQ(detect_config_kind_of_text("jobs:\n  - name: j\n    kind: stream\n"),
            ConfigKind::workload);  // `kind` below the root is a task's, not the file's
  EXPECT_EQ(detect_config_kind_of_text("cluster: c.yaml\njobs: []\nkind: \"stream\" # late\n"),
            ConfigKind::stream_workload);
  EXPECT_EQ(detect_config_kind_of_text("'devices': [P1]\n\"tasks\": []\n"),
            ConfigKind::cost_matrix);
  EXPECT_EQ(detect_config_kind_of_text("model:\n  mtbf_hours: 5\n"), ConfigKind::fault);
  EXPECT_EQ(detect_config_kind_of_text("- a\n- b\n"), ConfigKind::unknown);
  EXPECT_EQ(detect_config_kind_of_text("jobs: []\n---\nnodes: []\n"), ConfigKind::workload);
  const ConfigFileSummary summary =
      summarize_config_text("cluster: 'clusters/big.yaml'  # its cluster\njobs: []\n");
  EXPECT_EQ(summary.kind, ConfigKind::workload);
  EXPECT_EQ(summary.cluster_file, "clusters/big.yaml");
}

TEST(ConfigKind, FlowYamlAndJsonAreToldByTheirRootFields) {
  EXPECT_EQ(detect_config_kind_of_text("{nodes: [{name: a}]}"), ConfigKind::cluster);
  EXPECT_EQ(detect_config_kind_of_text("--- {jobs: [], cluster: c.yaml}"), ConfigKind::workload);
  EXPECT_EQ(detect_config_kind_of_text("{\"jobs\": [{\"kind\": \"x\"}], \"kind\": \"stream\"}"),
            ConfigKind::stream_workload);
  EXPECT_EQ(detect_config_kind_of_text("{\"workflow\": {}, \"schemaVersion\": \"1.5\"}"),
            ConfigKind::wfcommons);
  EXPECT_EQ(summarize_config_text("{\"cluster\": \"c.json\", \"jobs\": []}").cluster_file,
            "c.json");
  EXPECT_EQ(detect_config_kind_of_text("<?xml version=\"1.0\"?><adag/>"), ConfigKind::pegasus_dax);
  EXPECT_EQ(detect_config_kind_of_text(""), ConfigKind::unknown);
  // Broken input whose root cannot be read is of no kind (the caller then reports the
  // syntax error with its position).
  EXPECT_EQ(detect_config_kind_of_text("{\"nodes\": [,]"), ConfigKind::unknown);
}

}  // namespace
}  // namespace hetsched
