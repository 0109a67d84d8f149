#pragma once
// A heat map as a self-contained SVG file: one rectangle per cell coloured by
// its value (viridis from the smallest to the largest value, on a linear or
// a log scale), gray
// where a cell has no value, axes with ticks (linear or logarithmic), a
// colour bar, and a tooltip per cell (its coordinates, value and point
// count), so a map of a sweep or an ensemble opens in any browser.
#include <cstdint>
#include <string>
#include <vector>

namespace stribeck::data {

struct HeatMapAxis {
  std::string label;            // e.g. "stiffness [N/m]"
  bool log = false;             // logarithmic scale (all edges > 0)
  std::vector<double> edges;    // cell boundaries, increasing (cells + 1 values)
  std::vector<double> centers;  // the coordinate each cell stands for (tooltips, CSV)
};

struct HeatMap {
  std::string title, subtitle, value_label;
  HeatMapAxis x, y;
  bool log_values = false;  // colour by log(value) (every value > 0)
  // Row-major, y cell j and x cell i at j * x.cells + i; NaN: no value.
  std::vector<double> values;
  std::vector<std::uint64_t> points;  // points combined into each cell
};

// The SVG text. Throws std::invalid_argument for inconsistent sizes.
std::string heat_map_svg(const HeatMap& map);
// RGB of viridis at t in [0, 1] (clamped): #rrggbb.
std::string viridis_hex(double t);
// Writes the SVG (or, for a path ending in .csv, the cells as rows x, y,
// value, points) through a temporary file renamed into place.
void write_heat_map(const std::string& path, const HeatMap& map);

}  // namespace stribeck::data
