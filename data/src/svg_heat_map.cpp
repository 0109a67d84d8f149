#include "stribeck/data/svg_heat_map.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

// Page layout in SVG units (px).
constexpr double kWidth = 800, kHeight = 620;
constexpr double kLeft = 100, kRight = 640, kTop = 70, kBottom = 540;  // plot area
constexpr double kBarLeft = 680, kBarWidth = 22;                       // colour bar
constexpr const char* kMissing = "#d0d0d0";

// Text and attribute values: the five XML entities escaped, control
// characters XML 1.0 forbids and bytes that are not UTF-8 replaced by
// U+FFFD, so a label read from a file (a channel or parameter name) can
// neither end an element nor make the document ill-formed.
std::string xml(const std::string& s) {
  std::string o;
  const auto* b = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const unsigned char c = b[i];
    if (c < 0x80) {
      switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        case '\'': o += "&apos;"; break;
        default:
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') o += "\xEF\xBF\xBD";
          else o += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    // A well-formed UTF-8 sequence is copied; anything else is one U+FFFD.
    const size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    bool ok = len > 0 && i + len <= n;
    for (size_t k = 1; ok && k < len; ++k) ok = (b[i + k] & 0xC0) == 0x80;
    if (ok && len == 3) ok = !(c == 0xE0 && b[i + 1] < 0xA0) && !(c == 0xED && b[i + 1] >= 0xA0);
    if (ok && len == 4) ok = !(c == 0xF0 && b[i + 1] < 0x90) && !(c == 0xF4 && b[i + 1] >= 0x90);
    if (ok && len == 3 && c == 0xEF && b[i + 1] == 0xBF && (b[i + 2] == 0xBE || b[i + 2] == 0xBF)) ok = false;
    if (ok) {
      o.append(s, i, len);
      i += len;
    } else {
      o += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return o;
}

std::string num(double v, int digits = 4) {
  char b[40];
  std::snprintf(b, sizeof b, "%.*g", digits, v);
  return b;
}

// Coordinates (px, 3 decimals: enough for a screen, small files).
std::string px(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", v);
  std::string s = b;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

struct Scale {
  double lo, hi, a, b;  // data range [lo, hi] onto pixels [a, b]
  bool log;
  double operator()(double v) const {
    const double t = log ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (v - lo) / (hi - lo);
    return a + t * (b - a);
  }
};

// Tick values inside [lo, hi]: 1-2-5 steps on a linear axis (about six),
// decades on a log axis (with 2 and 5 when it spans three or fewer).
std::vector<double> ticks(double lo, double hi, bool log) {
  std::vector<double> t;
  if (log) {
    const int d0 = static_cast<int>(std::floor(std::log10(lo))), d1 = static_cast<int>(std::ceil(std::log10(hi)));
    const bool fine = d1 - d0 <= 3;
    for (int d = d0; d <= d1; ++d)
      for (double m : {1.0, 2.0, 5.0}) {
        if (m != 1.0 && !fine) continue;
        const double v = m * std::pow(10.0, d);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
      }
    return t;
  }
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / 6, mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    t.push_back(std::abs(v) < step * 1e-9 ? 0.0 : v);
  return t;
}

void check(const HeatMap& m) {
  auto axis = [](const HeatMapAxis& a, const char* name) {
    if (a.edges.size() < 2 || a.centers.size() + 1 != a.edges.size())
      throw std::invalid_argument(std::string("heat map: the ") + name + " axis needs cells + 1 edges");
    for (size_t i = 1; i < a.edges.size(); ++i)
      if (!(a.edges[i] > a.edges[i - 1]))
        throw std::invalid_argument(std::string("heat map: the ") + name + " edges must increase");
    if (a.log && !(a.edges.front() > 0))
      throw std::invalid_argument(std::string("heat map: a log ") + name + " axis needs edges > 0");
  };
  axis(m.x, "x");
  axis(m.y, "y");
  const size_t cells = m.x.centers.size() * m.y.centers.size();
  if (m.values.size() != cells || m.points.size() != cells)
    throw std::invalid_argument("heat map: values and points need one entry per cell");
  if (m.log_values)
    for (double v : m.values)
      if (std::isfinite(v) && !(v > 0)) throw std::invalid_argument("heat map: a log colour scale needs values > 0");
}

}  // namespace

std::string viridis_hex(double t) {
  // matplotlib's viridis at nine evenly spaced points, linearly interpolated.
  static const unsigned char stops[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                            {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                            {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
  t = std::isnan(t) ? 0.0 : std::clamp(t, 0.0, 1.0);
  const double s = t * 8;
  const int i = std::min(7, static_cast<int>(s));
  const double f = s - i;
  char b[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = static_cast<int>(std::lround(stops[i][c] + f * (stops[i + 1][c] - stops[i][c])));
  std::snprintf(b, sizeof b, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return b;
}

std::string heat_map_svg(const HeatMap& m) {
  check(m);
  const size_t nx = m.x.centers.size(), ny = m.y.centers.size();
  double vmin = INFINITY, vmax = -INFINITY;
  for (double v : m.values)
    if (std::isfinite(v)) {
      vmin = std::min(vmin, v);
      vmax = std::max(vmax, v);
    }
  const bool any = vmin <= vmax;
  // Position of a value on the colour scale, 0 (smallest) to 1 (largest).
  auto level = [&](double v) {
    if (!(vmax > vmin)) return 0.5;
    return m.log_values ? std::log(v / vmin) / std::log(vmax / vmin) : (v - vmin) / (vmax - vmin);
  };
  const Scale sx{m.x.edges.front(), m.x.edges.back(), kLeft, kRight, m.x.log};
  const Scale sy{m.y.edges.front(), m.y.edges.back(), kBottom, kTop, m.y.log};  // y grows upwards
  auto colour_of = [&](double v) {
    if (!std::isfinite(v)) return std::string(kMissing);
    return viridis_hex(level(v));
  };

  std::string s;
  s.reserve(nx * ny * 160 + 8192);
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + px(kWidth) + "\" height=\"" + px(kHeight) +
       "\" viewBox=\"0 0 " + px(kWidth) + " " + px(kHeight) + "\" font-family=\"sans-serif\" font-size=\"13\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  s += "<text x=\"" + px(kWidth / 2) + "\" y=\"28\" text-anchor=\"middle\" font-size=\"17\">" + xml(m.title) +
       "</text>\n";
  s += "<text x=\"" + px(kWidth / 2) + "\" y=\"50\" text-anchor=\"middle\" fill=\"#555\">" + xml(m.subtitle) +
       "</text>\n";
  // Cells: each with a tooltip. shape-rendering crispEdges keeps neighbours seamless.
  s += "<g id=\"cells\" shape-rendering=\"crispEdges\">\n";
  for (size_t j = 0; j < ny; ++j) {
    const double y0 = sy(m.y.edges[j + 1]), y1 = sy(m.y.edges[j]);
    for (size_t i = 0; i < nx; ++i) {
      const double x0 = sx(m.x.edges[i]), x1 = sx(m.x.edges[i + 1]);
      const size_t c = j * nx + i;
      const double v = m.values[c];
      s += "<rect x=\"" + px(x0) + "\" y=\"" + px(y0) + "\" width=\"" + px(x1 - x0) + "\" height=\"" + px(y1 - y0) +
           "\" fill=\"" + colour_of(v) + "\"><title>" + xml(m.x.label) + " = " + num(m.x.centers[i], 6) + ", " +
           xml(m.y.label) + " = " + num(m.y.centers[j], 6) + ": " +
           (std::isfinite(v) ? num(v, 6) : std::string("no point that finished normally")) + " (" +
           std::to_string(m.points[c]) + (m.points[c] == 1 ? " point" : " points") + ")</title></rect>\n";
    }
  }
  s += "</g>\n";
  // Frame, ticks and axis labels.
  s += "<rect x=\"" + px(kLeft) + "\" y=\"" + px(kTop) + "\" width=\"" + px(kRight - kLeft) + "\" height=\"" +
       px(kBottom - kTop) + "\" fill=\"none\" stroke=\"black\"/>\n";
  for (double t : ticks(sx.lo, sx.hi, sx.log)) {
    const double x = sx(t);
    s += "<line x1=\"" + px(x) + "\" y1=\"" + px(kBottom) + "\" x2=\"" + px(x) + "\" y2=\"" + px(kBottom + 6) +
         "\" stroke=\"black\"/><text x=\"" + px(x) + "\" y=\"" + px(kBottom + 21) + "\" text-anchor=\"middle\">" +
         num(t) + "</text>\n";
  }
  for (double t : ticks(sy.lo, sy.hi, sy.log)) {
    const double y = sy(t);
    s += "<line x1=\"" + px(kLeft - 6) + "\" y1=\"" + px(y) + "\" x2=\"" + px(kLeft) + "\" y2=\"" + px(y) +
         "\" stroke=\"black\"/><text x=\"" + px(kLeft - 9) + "\" y=\"" + px(y + 4) + "\" text-anchor=\"end\">" +
         num(t) + "</text>\n";
  }
  s += "<text x=\"" + px((kLeft + kRight) / 2) + "\" y=\"" + px(kBottom + 48) + "\" text-anchor=\"middle\">" +
       xml(m.x.label) + (m.x.log ? " (log)" : "") + "</text>\n";
  s += "<text transform=\"translate(" + px(kLeft - 66) + " " + px((kTop + kBottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + xml(m.y.label) + (m.y.log ? " (log)" : "") + "</text>\n";
  // Colour bar: 64 bands from the smallest value (bottom) to the largest.
  s += "<g id=\"colour-bar\" shape-rendering=\"crispEdges\">\n";
  const int bands = 64;
  const double band = (kBottom - kTop) / bands;
  for (int b = 0; b < bands; ++b)
    s += "<rect x=\"" + px(kBarLeft) + "\" y=\"" + px(kBottom - (b + 1) * band) + "\" width=\"" + px(kBarWidth) +
         "\" height=\"" + px(band + 0.5) + "\" fill=\"" + viridis_hex((b + 0.5) / bands) + "\"/>\n";
  s += "</g>\n<rect x=\"" + px(kBarLeft) + "\" y=\"" + px(kTop) + "\" width=\"" + px(kBarWidth) + "\" height=\"" +
       px(kBottom - kTop) + "\" fill=\"none\" stroke=\"black\"/>\n";
  if (any) {
    const std::vector<double> vt = vmax > vmin ? ticks(vmin, vmax, m.log_values) : std::vector<double>{vmin};
    for (double t : vt) {
      const double y = kBottom - level(t) * (kBottom - kTop);
      s += "<line x1=\"" + px(kBarLeft + kBarWidth) + "\" y1=\"" + px(y) + "\" x2=\"" + px(kBarLeft + kBarWidth + 5) +
           "\" y2=\"" + px(y) + "\" stroke=\"black\"/><text x=\"" + px(kBarLeft + kBarWidth + 8) + "\" y=\"" +
           px(y + 4) + "\">" + num(t) + "</text>\n";
    }
  }
  s += "<text transform=\"translate(" + px(kBarLeft - 8) + " " + px((kTop + kBottom) / 2) +
       ") rotate(-90)\" text-anchor=\"middle\">" + xml(m.value_label) + (m.log_values ? " (log)" : "") + "</text>\n";
  s += "<rect x=\"" + px(kLeft) + "\" y=\"" + px(kHeight - 26) + "\" width=\"12\" height=\"12\" fill=\"" + kMissing +
       "\" stroke=\"black\"/><text x=\"" + px(kLeft + 18) + "\" y=\"" + px(kHeight - 16) +
       "\" fill=\"#555\">no point that finished normally (invalid parameters, non-finite, limits)</text>\n";
  s += "</svg>\n";
  return s;
}

void write_heat_map(const std::string& path, const HeatMap& m) {
  check(m);
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  std::string text;
  if (csv) {
    // RFC 4180: a name holding a comma, quote or line break is quoted.
    for (const std::string* f : {&m.x.label, &m.y.label, &m.value_label}) {
      append_csv_field(text, *f);
      text += ',';
    }
    text += "points\n";
    for (size_t j = 0; j < m.y.centers.size(); ++j)
      for (size_t i = 0; i < m.x.centers.size(); ++i) {
        const size_t c = j * m.x.centers.size() + i;
        append_double(text, m.x.centers[i]);
        text += ',';
        append_double(text, m.y.centers[j]);
        text += ',';
        if (std::isfinite(m.values[c])) append_double(text, m.values[c]);
        else text += "nan";
        text += ',' + std::to_string(m.points[c]) + '\n';
      }
  } else {
    text = heat_map_svg(m);
  }
  AtomicFile out(path);
  out.write(text);
  out.commit();
}

}  // namespace stribeck::data
