// The web files that hetsched's HTML report and its dashboard are made of, compiled into the
// binary (cmake/EmbedFiles.cmake) so that a report opens offline and `serve` needs no
// files beside it. ECharts comes from the npm registry (web/package.json, pinned by
// web/package-lock.json, installed by scripts/bootstrap.sh); the rest is hetsched's own.
#pragma once

#include <string_view>

namespace hetsched::web_assets {

extern const std::string_view echarts;         // ECharts (Apache-2.0), minified
extern const std::string_view report_script;   // web/report/report.js
extern const std::string_view report_style;    // web/report/report.css
extern const std::string_view dashboard_page;  // web/dashboard/index.html
extern const std::string_view dashboard_script;
extern const std::string_view dashboard_style;

}  // namespace hetsched::web_assets
