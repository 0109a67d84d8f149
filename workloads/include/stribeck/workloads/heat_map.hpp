#pragma once
// A map of one metric over two varying quantities of a sweep or an ensemble
// (`stribeck map`): the file is read twice, a block of rows at a time, so any
// size maps in bounded memory. Grid designs map cell by grid value; random,
// lhs and sobol designs (or grids too fine to draw) are binned.
#include <cstdint>
#include <string>

#include "stribeck/data/point_file.hpp"
#include "stribeck/data/svg_heat_map.hpp"

namespace stribeck::workloads {

struct HeatMapOptions {
  std::string metric;  // required: a metric column of the file
  std::string x, y;    // varying quantities; "" = the first ones that take more than one value
  // How a cell combines several points that finished normally: "min", "max"
  // or "mean". "" = not chosen: an error as soon as a cell holds more than
  // one point (a grid varying more than x and y, or any binned map).
  std::string reduce;
  // Cells per axis when binning (0 = 48). Points that fill the grid of their
  // distinct values (at most kMaxGridCells per axis) are drawn cell by grid
  // value unless bins is given; other points are binned.
  int bins = 0;
  // Axis scales: "auto", "linear" or "log". Auto picks log for positive grid
  // values spaced more evenly in log than linearly, and for binned positive
  // values that span 10x or more and spread evenly in log (their mean log
  // near the middle of the log range).
  std::string x_scale = "auto", y_scale = "auto";
  // Colour scale: "linear" or "log" (cost maps whose valley spans decades;
  // every drawn value must be > 0).
  std::string value_scale = "linear";
  std::uint64_t block_rows = std::uint64_t(1) << 20;  // rows read at a time
};

constexpr int kMaxGridCells = 512;
constexpr int kMaxBins = 512;

struct HeatMapSummary {
  std::uint64_t points = 0;      // rows of the file
  std::uint64_t not_ok = 0;      // points left out: status other than ok
  std::uint64_t non_finite = 0;  // ok points whose metric is NaN or infinite, left out
  std::uint64_t off_map = 0;     // ok points with a finite metric but a coordinate that is not finite
  std::uint64_t left_out() const { return not_ok + non_finite + off_map; }
  bool binned = false;
  int cells_x = 0, cells_y = 0;
  // The smallest and the largest cell value and where they are; NaN when
  // no cell has a value.
  double min = 0, min_x = 0, min_y = 0, max = 0, max_x = 0, max_y = 0;
};

// Builds the map; throws InputError for unknown names, bad options, or cells
// that would combine points without `reduce`.
data::HeatMap build_heat_map(const data::PointFile& file, const HeatMapOptions& options,
                             HeatMapSummary* summary = nullptr);

}  // namespace stribeck::workloads
