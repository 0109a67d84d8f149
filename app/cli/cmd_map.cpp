// `stribeck map RESULTS.h5 --metric NAME -o MAP.svg`: a heat map of one metric
// of a sweep, an ensemble or a batch fit over two varying quantities, to look at.
#include <cmath>
#include <cstdio>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/heat_map.hpp"

namespace stribeck::cli {
namespace {

struct MapArgs {
  std::string input, output, json;
  workloads::HeatMapOptions map;
  bool list = false;
};

void list_columns(const data::PointFile& f, const std::string& json) {
  std::string text = f.path() + ": " + f.kind() + ", " + std::to_string(f.rows()) + " points\ncoordinates:";
  nlohmann::json coords = nlohmann::json::array();
  for (size_t d = 0; d < f.dimensions().size(); ++d) {
    const std::string& u = f.dimension_units()[d];
    text += " " + f.dimensions()[d] + (u.empty() ? "" : " [" + u + "]");
    coords.push_back({{"name", f.dimensions()[d]}, {"units", u}});
  }
  text += "\nmetrics:";
  for (const auto& m : f.metrics()) text += " " + m;
  result(text + "\n");
  write_json(json, {{"file", f.path()},
                    {"kind", f.kind()},
                    {"points", f.rows()},
                    {"coordinates", coords},
                    {"metrics", f.metrics()}});
}

void run(const MapArgs& a) {
  check_json_output(a.json, {a.input});
  const data::PointFile f(a.input);
  if (a.list) {
    list_columns(f, a.json);
    return;
  }
  if (a.output.empty()) throw data::InputError("map: --output is needed (an .svg, or a .csv for the cells as a table)");
  check_output(a.output, {a.input});
  if (a.json == a.output) throw data::InputError(a.json + ": given to both --output and --json");
  workloads::HeatMapSummary s;
  const data::HeatMap map = workloads::build_heat_map(f, a.map, &s);
  data::write_heat_map(a.output, map);
  summary("stribeck map: %s, %d x %d %s, %llu points (%llu left out) -> %s", map.title.c_str(), s.cells_x, s.cells_y,
          s.binned ? "bins" : "cells", static_cast<unsigned long long>(s.points),
          static_cast<unsigned long long>(s.left_out()), a.output.c_str());
  auto cell = [&](const char* which, double v, double x, double y) {
    summary("  %s: %s = %.6g at %s = %.6g, %s = %.6g", which, a.map.metric.c_str(), v, map.x.label.c_str(), x,
            map.y.label.c_str(), y);
  };
  if (!std::isnan(s.min)) {
    cell("smallest", s.min, s.min_x, s.min_y);
    cell("largest ", s.max, s.max_x, s.max_y);
  } else summary("  no cell holds a point that finished normally");
  auto where = [&](double v, double x, double y) {
    return std::isnan(v) ? nlohmann::json(nullptr)
                         : nlohmann::json{
                               {"value", json_number(v)}, {map.x.label, json_number(x)}, {map.y.label, json_number(y)}};
  };
  write_json(a.json, {{"input", a.input},
                      {"output", a.output},
                      {"metric", a.map.metric},
                      {"title", map.title},
                      {"x", map.x.label},
                      {"y", map.y.label},
                      {"binned", s.binned},
                      {"cells_x", s.cells_x},
                      {"cells_y", s.cells_y},
                      {"points", s.points},
                      {"left_out",
                       {{"total", s.left_out()},
                        {"status_not_ok", s.not_ok},
                        {"value_not_finite", s.non_finite},
                        {"coordinate_not_finite", s.off_map}}},
                      {"smallest", where(s.min, s.min_x, s.min_y)},
                      {"largest", where(s.max, s.max_x, s.max_y)}});
}

}  // namespace

void add_map_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "map",
      "Draw one metric of a sweep, an ensemble or a batch fit over two varying quantities (SVG heat map, or "
      "CSV cells)");
  auto a = std::make_shared<MapArgs>();
  cmd->add_option("results", a->input,
                  "Sweep file (stribeck sweep), ensemble (stribeck simulate) or batch fit (identify --batch), HDF5")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--output,-o", a->output, "Map to write: .svg, or .csv for the cells (x, y, value, points)")
      ->type_name("FILE");
  cmd->add_option("--metric,-m", a->map.metric, "Metric to draw (see --list)")->type_name("METRIC");
  cmd->add_option("--x", a->map.x, "Quantity along x (default: the first that takes more than one value)")
      ->type_name("NAME");
  cmd->add_option("--y", a->map.y, "Quantity along y (default: the next one that does)")->type_name("NAME");
  cmd->add_option("--reduce", a->map.reduce, "How a cell combines several points (needed when it holds more than one)")
      ->check(CLI::IsMember({"min", "max", "mean"}));
  cmd->add_option("--bins", a->map.bins, "Bin each axis into N cells (default: grid values; 48 for other designs)")
      ->type_name("N")
      ->check(kPositive);
  cmd->add_option("--x-scale", a->map.x_scale, "Scale of x (default auto)")
      ->check(CLI::IsMember({"auto", "linear", "log"}));
  cmd->add_option("--y-scale", a->map.y_scale, "Scale of y (default auto)")
      ->check(CLI::IsMember({"auto", "linear", "log"}));
  cmd->add_option("--value-scale", a->map.value_scale, "Colour scale (default linear; log: values > 0)")
      ->check(CLI::IsMember({"linear", "log"}));
  cmd->add_flag("--list", a->list, "List the file's varying quantities and metrics, and stop");
  add_json_option(cmd, a->json, "The map's summary (or with --list the file's quantities)");
  add_verbosity_flags(cmd);
  cmd->callback([a] { run(*a); });
}

}  // namespace stribeck::cli
