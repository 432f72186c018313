#include "hetsched/energy/pareto_output.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "hetsched/core/csv_field.hpp"
#include "hetsched/core/markup_escape.hpp"

namespace hetsched {
namespace {

// Round tick steps: 1, 2 or 5 × 10^k, about five per axis.
double tick_step(double span) {
  if (!(span > 0)) return 1;
  const double raw = span / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

}  // namespace

std::string pareto_to_csv(const std::vector<ParetoPoint>& front, std::size_t picked) {
  std::string out = "makespan_seconds,energy_joules,cost_usd,picked,origin\n";
  for (std::size_t i = 0; i < front.size(); ++i)
    out += fmt::format("{:.9g},{:.9g},{:.9g},{},{}\n", front[i].makespan_seconds,
                       front[i].energy_joules, front[i].cost_usd, i == picked ? 1 : 0,
                       csv_field(front[i].origin));
  return out;
}

std::string pareto_to_svg(const std::vector<ParetoPoint>& front, std::size_t picked,
                          const std::string& title) {
  const double width = 640, height = 440, left = 80, right = 150, top = 40, bottom = 60;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  double x_low = 0, x_high = 1, y_low = 0, y_high = 1, c_low = 0, c_high = 0;
  if (!front.empty()) {
    x_low = x_high = front[0].makespan_seconds;
    y_low = y_high = front[0].energy_joules;
    c_low = c_high = front[0].cost_usd;
    for (const ParetoPoint& p : front) {
      x_low = std::min(x_low, p.makespan_seconds), x_high = std::max(x_high, p.makespan_seconds);
      y_low = std::min(y_low, p.energy_joules), y_high = std::max(y_high, p.energy_joules);
      c_low = std::min(c_low, p.cost_usd), c_high = std::max(c_high, p.cost_usd);
    }
  }
  // Margins of 5 % so points do not sit on the axes.
  const double x_pad = std::max((x_high - x_low) * 0.05, std::abs(x_high) * 1e-3 + 1e-12);
  const double y_pad = std::max((y_high - y_low) * 0.05, std::abs(y_high) * 1e-3 + 1e-12);
  x_low -= x_pad, x_high += x_pad, y_low -= y_pad, y_high += y_pad;
  auto px = [&](double x) { return left + (x - x_low) / (x_high - x_low) * plot_w; };
  auto py = [&](double y) { return top + plot_h - (y - y_low) / (y_high - y_low) * plot_h; };
  auto colour = [&](double cost) {
    const double f = c_high > c_low ? (cost - c_low) / (c_high - c_low) : 0.0;
    // Blue (cheap) to red (dear).
    return fmt::format("rgb({},{},{})", static_cast<int>(40 + 200 * f), 80,
                       static_cast<int>(220 - 180 * f));
  };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<text x=\"{2}\" y=\"22\" font-size=\"14\">{3}</text>\n",
      width, height, left, escape_markup(title));
  svg += fmt::format(
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", left,
      top, plot_w, plot_h);
  const double x_step = tick_step(x_high - x_low), y_step = tick_step(y_high - y_low);
  for (double x = std::ceil(x_low / x_step) * x_step; x <= x_high; x += x_step)
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4:.4g}</text>\n",
        px(x), top, top + plot_h, top + plot_h + 16, x);
  for (double y = std::ceil(y_low / y_step) * y_step; y <= y_high; y += y_step)
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.4g}</text>\n",
        left, py(y), left + plot_w, left - 6, py(y) + 4, y / 1e3);
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">makespan (s)</text>\n"
      "<text x=\"20\" y=\"{}\" text-anchor=\"middle\" transform=\"rotate(-90 20 {})\">energy "
      "(kJ)</text>\n",
      left + plot_w / 2, height - 20, top + plot_h / 2, top + plot_h / 2);
  if (front.size() > 1) {
    std::string points;
    for (const ParetoPoint& p : front)
      points += fmt::format("{:.1f},{:.1f} ", px(p.makespan_seconds), py(p.energy_joules));
    svg += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", points);
  }
  for (std::size_t i = 0; i < front.size(); ++i) {
    const ParetoPoint& p = front[i];
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"><title>{}: {:.4g} s, {:.4g} kJ, "
        "${:.4g}</title></circle>\n",
        px(p.makespan_seconds), py(p.energy_joules), colour(p.cost_usd), escape_markup(p.origin),
        p.makespan_seconds, p.energy_joules / 1e3, p.cost_usd);
    if (i == picked)
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"8\" fill=\"none\" stroke=\"black\" "
          "stroke-width=\"2\"/>\n",
          px(p.makespan_seconds), py(p.energy_joules));
  }
  // Legend: cost colour scale and the picked marker.
  const double lx = left + plot_w + 20;
  svg += fmt::format("<text x=\"{}\" y=\"{}\">cost (USD)</text>\n", lx, top + 10);
  for (int k = 0; k <= 4; ++k) {
    const double cost = c_low + (c_high - c_low) * k / 4.0;
    svg += fmt::format(
        "<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/><text x=\"{}\" y=\"{}\">{:.4g}</text>\n",
        lx + 5, top + 30 + 18 * k, colour(cost), lx + 15, top + 34 + 18 * k, cost);
  }
  svg += fmt::format(
      "<circle cx=\"{}\" cy=\"{}\" r=\"8\" fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>"
      "<text x=\"{}\" y=\"{}\">picked</text>\n",
      lx + 5, top + 140, lx + 18, top + 144);
  svg += "</svg>\n";
  return svg;
}

}  // namespace hetsched
