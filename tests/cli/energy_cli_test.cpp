// The energy and partitioning subcommands as a user meets them: `bench energy` and
// `bench partition` print the JSON keys the issue names, `pareto` writes its CSV
// and SVG, and bad input gets one line and exit status 2.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../support/cli_runner.hpp"

namespace {

using CommandResult = hetsched::testing::CliResult;
using hetsched::testing::run_cli;

TEST(EnergyCli, BenchEnergyPrintsTheSavedFractions) {
  const CommandResult r =
      run_cli("bench energy --suite workflow --dags 2 --tasks 20 --format json --quiet");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_GT(json["energy_saved_no_stretch"].get<double>(), 0);
  EXPECT_GE(json["energy_saved_5pct_stretch"].get<double>(),
            json["energy_saved_no_stretch"].get<double>());
  EXPECT_LT(json["energy_saved_5pct_stretch"].get<double>(), 1);
}

TEST(EnergyCli, BenchPartitionPrintsTheSpeedups) {
  const CommandResult r = run_cli("bench partition --format json --cloning-runs 1");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto json = nlohmann::json::parse(r.out);
  EXPECT_GT(json["training_split_speedup"].get<double>(), 1);
  EXPECT_GT(json["stencil_split_speedup"].get<double>(), 1);
  EXPECT_GE(json["training_fastest_to_slowest"].get<double>(), 3);
  EXPECT_GT(json["map_reduce_split_speedup"].get<double>(), 1);
  EXPECT_EQ(json["cloning_runs"].get<int>(), 1);
  EXPECT_GT(json["cloning_mean_makespan_with"].get<double>(), 0);
}

TEST(EnergyCli, ParetoWritesTableCsvAndSvg) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("hetsched_pareto_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string csv = (dir / "front.csv").string(), svg = (dir / "front.svg").string();
  const CommandResult r = run_cli("pareto --tasks 12 --csv " + csv + " --svg " + svg);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("makespan (s)"), std::string::npos);
  std::ifstream csv_file(csv), svg_file(svg);
  std::stringstream csv_text, svg_text;
  csv_text << csv_file.rdbuf();
  svg_text << svg_file.rdbuf();
  EXPECT_EQ(csv_text.str().rfind("makespan_seconds,energy_joules,cost_usd", 0), 0u);
  EXPECT_NE(svg_text.str().find("</svg>"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(EnergyCli, ParetoBadInputIsOneLineAndStatusTwo) {
  for (const char* arguments :
       {"pareto --weights 1,-1,0 --csv '' --svg ''", "pareto --job nope --csv '' --svg ''"}) {
    const CommandResult r = run_cli(arguments);
    EXPECT_EQ(r.status, 2) << arguments;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

}  // namespace
