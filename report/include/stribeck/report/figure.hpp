#pragma once
// One figure model for everything Stribeck draws from a result file, and its
// two renderers: `stribeck report` (one self-contained HTML page, uPlot
// embedded) and `stribeck plot` (a publication figure through gnuplot).
// Both draw the same Figure objects, built once by read_document() from
// what the file already holds (nothing is computed again), so the page and
// the figure never disagree. docs/reports.md.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace stribeck::report {

enum class FigureKind { kLine, kScatter, kHistogram, kHeatmap, kTable, kText };
const char* kind_name(FigureKind k);

struct Series {
  std::string name;
  std::vector<double> x, y;  // equal lengths; NaN: a gap
  bool line = false;         // in a scatter figure: drawn as a line over x (a fitted curve), not as points
};

struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // Optional cell shading in [-1, 1] (a correlation), same shape as rows;
  // NaN: not shaded. Empty: no shading.
  std::vector<std::vector<double>> shade;
};

struct Heatmap {
  std::vector<double> x, y;              // cell centres, increasing (nx, ny)
  std::vector<double> z;                 // row-major: y cell j, x cell i at j * nx + i; NaN: no value
  std::vector<double> x_edges, y_edges;  // cell boundaries (nx + 1, ny + 1)
  bool x_log = false, y_log = false;     // logarithmic axes
  std::string z_label;                   // e.g. "amp_spring_force [N]"
};

struct Figure {
  std::string id;          // unique within the document (HTML element id)
  std::string what;        // which `stribeck plot --what` draws it (plot_whats(); "" none)
  std::string experiment;  // the experiment it belongs to ("" none)
  std::string title;
  std::string x_label, y_label;       // with units, "time [s]"
  bool x_log = false, y_log = false;  // logarithmic axes (data log-spaced; every value > 0)
  FigureKind kind = FigureKind::kLine;
  std::vector<Series> series;  // line, scatter, histogram (x = bin centres, y = counts)
  Table table;
  Heatmap heat;
  std::vector<std::string> text;  // kText: paragraphs (warnings in words, notes)
};

struct Section {
  std::string title;
  std::vector<Figure> figures;
};

struct Document {
  std::string kind;                                             // "identification", "sweep", "ensemble", "simulation"
  std::string title;                                            // e.g. "Identification: simscape-cylinder"
  std::string source;                                           // the result file
  std::vector<std::pair<std::string, std::string>> provenance;  // command, version, date, device, ...
  std::vector<Section> sections;
  std::vector<std::string> notes;  // what was left out or decimated, in words
};

struct ReadOptions {
  // The measured log of an identification result when it is not the result
  // file itself (identify -o FIT.h5 with the log elsewhere). "" = look in the
  // result file; measured force is then fitted + residual, and the
  // force-velocity figures need the log's velocity.
  std::string log;
  // Pixel columns for min/max decimation of long series (each column keeps
  // its smallest and largest sample): 2 * columns points per series at most.
  std::size_t columns = 4000;
  // Identification: the results group prefix of the run to show
  // ("identify_<model>[_N]"; "" = the first in the file).
  std::string group;
  // Sweeps and ensembles: the pair of parameters of the 2-D cost map ("" = the first two).
  std::string x, y;
};

// Reads any result file Stribeck writes: identify -o (groups identify_*),
// a sweep file, an ensemble (simulate with [ensemble]) or a single
// simulation. Throws InputError naming the file and what is wrong (not a
// result file, an empty or inconsistent result).
Document read_document(const std::string& path, const ReadOptions& options = {});

// Axis ticks of both renderers: nice values in [lo, hi] (steps of 1, 2 or
// 5 x 10^k, about `target` of them; on a log axis every decade, or 1, 2, 5
// per decade when the range spans less than two) and their labels.
struct Ticks {
  std::vector<double> values;
  std::vector<std::string> labels;
};
Ticks axis_ticks(double lo, double hi, bool log = false, int target = 6);
// A tick's label: as many digits as the ticks' spacing `step` needs, plain
// decimals (0.25, 60) or scientific notation (2e-6, 1.5e12) as the axis
// chose (`scientific`: a tick outside 1e-3...1e6); "0" only for zero.
std::string tick_label(double value, double step, bool scientific);

// Min/max decimation per pixel column over x (assumed increasing): splits
// [x0, xn] into `columns` equal columns and keeps, in x order, the sample of
// smallest and of largest y in each. Series of at most 2 * columns points
// are returned unchanged. NaN samples are dropped.
Series decimate_minmax(const Series& s, std::size_t columns);

// Renderer 1: the self-contained HTML page (uPlot and its CSS inline; the
// first inline script records window.onerror and console.error into the
// page; every chart sets data-drawn="1" once drawn).
std::string render_html(const Document& doc);

// Renderer 2: the figure `what` (of `experiment`, "" = the first) written to
// `output` (.svg, .png or .pdf, by extension) through gnuplot, atomically.
// Throws InputError when the document has no such figure, the extension is
// unknown, or gnuplot is missing or fails.
void render_figure(const Document& doc, const std::string& what, const std::string& experiment,
                   const std::string& output);
// The values --what takes.
const std::vector<std::string>& plot_whats();

// Writes the HTML page atomically (temporary + rename).
void write_html(const Document& doc, const std::string& output);

}  // namespace stribeck::report
