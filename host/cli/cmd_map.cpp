// `stribeck map RESULTS.h5 --metric NAME -o MAP.svg`: a heat map of one metric
// of a sweep or an ensemble over two varying quantities, to look at.
#include <cmath>
#include <cstdio>
#include <memory>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/heat_map.hpp"

namespace stribeck::cli {
namespace {

struct MapArgs {
  std::string input, output;
  HeatMapOptions map;
  bool list = false;
};

void list_columns(const PointFile& f) {
  std::printf("%s: %s, %llu points\ncoordinates:", f.path().c_str(), f.kind().c_str(),
              static_cast<unsigned long long>(f.rows()));
  for (size_t d = 0; d < f.dimensions().size(); ++d) {
    const std::string& u = f.dimension_units()[d];
    std::printf(" %s%s", f.dimensions()[d].c_str(), u.empty() ? "" : (" [" + u + "]").c_str());
  }
  std::printf("\nmetrics:");
  for (const auto& m : f.metrics()) std::printf(" %s", m.c_str());
  std::printf("\n");
}

void run(const MapArgs& a) {
  const PointFile f(a.input);
  if (a.list) {
    list_columns(f);
    return;
  }
  if (a.output.empty()) throw InputError("map: --output is needed (an .svg, or a .csv for the cells as a table)");
  check_output(a.output, {a.input});
  HeatMapSummary s;
  const HeatMap map = build_heat_map(f, a.map, &s);
  write_heat_map(a.output, map);
  std::fprintf(stderr, "stribeck map: %s, %d x %d %s, %llu points (%llu left out) -> %s\n", map.title.c_str(),
               s.cells_x, s.cells_y, s.binned ? "bins" : "cells", static_cast<unsigned long long>(s.points),
               static_cast<unsigned long long>(s.left_out()), a.output.c_str());
  auto cell = [&](const char* which, double v, double x, double y) {
    std::fprintf(stderr, "  %s: %s = %.6g at %s = %.6g, %s = %.6g\n", which, a.map.metric.c_str(), v,
                 map.x.label.c_str(), x, map.y.label.c_str(), y);
  };
  if (!std::isnan(s.min)) {
    cell("smallest", s.min, s.min_x, s.min_y);
    cell("largest ", s.max, s.max_x, s.max_y);
  } else
    std::fprintf(stderr, "  no cell holds a point that finished normally\n");
}

}  // namespace

void add_map_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "map", "Draw one metric of a sweep or an ensemble over two varying quantities (SVG heat map, or CSV cells)");
  auto a = std::make_shared<MapArgs>();
  cmd->add_option("results", a->input, "Sweep file (stribeck sweep) or ensemble (stribeck simulate), HDF5")
      ->required();
  cmd->add_option("--output,-o", a->output, "Map to write: .svg, or .csv for the cells (x, y, value, points)");
  cmd->add_option("--metric,-m", a->map.metric, "Metric to draw (see --list)");
  cmd->add_option("--x", a->map.x, "Quantity along x (default: the first that takes more than one value)");
  cmd->add_option("--y", a->map.y, "Quantity along y (default: the next one that does)");
  cmd->add_option("--reduce", a->map.reduce,
                  "How a cell combines several points: min, max or mean (needed when it holds more than one)");
  cmd->add_option("--bins", a->map.bins, "Bin each axis into N cells (default: grid values; 48 for other designs)")
      ->check(kPositive);
  cmd->add_option("--x-scale", a->map.x_scale, "auto (default), linear or log");
  cmd->add_option("--y-scale", a->map.y_scale, "auto (default), linear or log");
  cmd->add_option("--value-scale", a->map.value_scale, "Colour scale: linear (default) or log (values > 0)");
  cmd->add_flag("--list", a->list, "List the file's varying quantities and metrics, and stop");
  cmd->callback([a] { run(*a); });
}

}  // namespace stribeck::cli
