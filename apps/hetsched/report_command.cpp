// `hetsched report PATH... -o report.html`: the self-contained HTML report of runs written
// by `simulate --out` or `run --out` (a folder, or report files), side by side.
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "hetsched/io/report_page.hpp"
#include "hetsched/io/report_writer.hpp"

namespace hetsched::cli {
namespace {

struct ReportOptions {
  std::vector<std::string> paths;
  std::string out = "report.html";
  std::string title;
};

void run_report(const ReportOptions& options) {
  ReportPageInput page;
  for (const std::string& path : options.paths)
    for (const std::string& file : report_files(path)) {
      page.runs.push_back(read_report_file(file));
      page.sources.push_back(file);
    }
  page.title = options.title.empty() ? "hetsched report: " + options.paths.front() : options.title;
  write_text_file(options.out, render_report_page(page));
  std::cout << "report of " << page.runs.size() << (page.runs.size() == 1 ? " run" : " runs")
            << " written to " << options.out << "\n";
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* command = app.add_subcommand(
      "report",
      "write the HTML report (Gantt chart, series, job completion times) of runs "
      "that simulate --out or run --out wrote");
  command->add_option("PATH", options->paths, "a folder of *.report.json, or report files")
      ->required();
  command->add_option("-o,--out", options->out, "the HTML file to write")->capture_default_str();
  command->add_option("--title", options->title, "the page's title");
  command->callback([options] { run_report(*options); });
}

}  // namespace hetsched::cli
