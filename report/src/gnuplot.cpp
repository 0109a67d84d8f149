// Renderer 2: a publication figure through gnuplot (Debian gnuplot-nox:
// terminals svg, pngcairo, pdfcairo). A script and a data file are written
// to a temporary directory; gnuplot draws to its stdout, a pipe read into
// AtomicFile's temporary next to the output, which is renamed into place
// only when gnuplot succeeded. gnuplot does not check its own writes (on a
// full disk it exits 0 with an empty or cut figure), so every byte of the
// figure goes through AtomicFile's checked writes instead.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/report/figure.hpp"

namespace stribeck::report {
namespace {

// A gnuplot single-quoted string ('' is a quote).
std::string gq(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'') o += "''";
    else if (c == '\n' || c == '\r') o += ' ';
    else o += c;
  }
  return o + "'";
}

std::string shell_quote(const std::string& s) {
  std::string o = "'";
  for (char c : s) {
    if (c == '\'') o += "'\\''";
    else o += c;
  }
  return o + "'";
}

std::string ext_of(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string e = path.substr(dot + 1);
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e;
}

// A scratch file (the figure's data or script) with its writes checked: a
// full TMPDIR is named, never drawn as an empty figure.
void write_scratch(const std::string& path, const std::string& text) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int err = errno;
  if (f && std::fclose(f) != 0 && ok) ok = false, err = errno;
  if (ok) return;
  std::string cause = err ? std::strerror(err) : "write error";
  cause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(cause[0])));
  throw data::InputError("writing " + path + " (the figure's scratch file in TMPDIR): " + cause);
}

// Ticks and range of one axis (x, y, cb) from axis_ticks, so a figure's
// labels read as the page's: "2e-6", not "0" or gnuplot's "2x10^{-6}".
std::string axis_commands(const char* axis, double lo, double hi, bool log) {
  std::ostringstream o;
  o.precision(17);
  if (log) o << "set logscale " << axis << "\n";
  if (!(lo < hi)) return o.str();
  o << "set " << axis << "range [" << lo << ":" << hi << "]\n";
  const Ticks t = axis_ticks(lo, hi, log);
  if (t.values.empty()) return o.str();
  o << "set " << axis << "tics (";
  for (std::size_t i = 0; i < t.values.size(); ++i) o << (i ? ", " : "") << gq(t.labels[i]) << " " << t.values[i];
  o << ")\n";
  return o.str();
}

// The smallest and largest finite value of one coordinate over every series
// (positive only on a log axis), widened by 4 % (linear) or a factor 1.1
// (log) when `pad`.
std::pair<double, double> data_range(const Figure& f, bool y, bool log, bool pad) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : f.series)
    for (double v : y ? s.y : s.x)
      if (std::isfinite(v) && (!log || v > 0)) lo = std::min(lo, v), hi = std::max(hi, v);
  if (pad && lo < hi) {
    if (log) lo /= 1.1, hi *= 1.1;
    else {
      const double d = 0.04 * (hi - lo);
      lo -= d, hi += d;
    }
  }
  return {lo, hi};
}

struct TempDir {
  std::string path;
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string t = std::string(base && *base ? base : "/tmp") + "/stribeck-plot-XXXXXX";
    if (!mkdtemp(t.data()))
      throw data::InputError("cannot create a temporary directory in " + t.substr(0, t.rfind('/')));
    path = t;
  }
  ~TempDir() {
    std::remove((path + "/figure.gp").c_str());
    std::remove((path + "/figure.dat").c_str());
    std::remove((path + "/gnuplot.log").c_str());
    rmdir(path.c_str());
  }
};

}  // namespace

const std::vector<std::string>& plot_whats() {
  static const std::vector<std::string> w{"fit",        "force-velocity", "residuals", "map",
                                          "timeseries", "profile",        "stribeck"};
  return w;
}

void render_figure(const Document& doc, const std::string& what, const std::string& experiment,
                   const std::string& output) {
  const std::string ext = ext_of(output);
  if (ext != "svg" && ext != "png" && ext != "pdf")
    throw data::InputError(output + ": the figure's format comes from the extension: .svg, .png or .pdf");
  const Figure* fig = nullptr;
  std::vector<std::string> have;
  for (const auto& s : doc.sections)
    for (const auto& f : s.figures) {
      if (f.what.empty()) continue;
      if (std::find(have.begin(), have.end(), f.what) == have.end()) have.push_back(f.what);
      if (!fig && f.what == what && (experiment.empty() || f.experiment == experiment)) fig = &f;
    }
  if (!fig) {
    std::string list;
    for (const auto& h : have) list += (list.empty() ? "" : ", ") + h;
    throw data::InputError(doc.source + (doc.kind.find_first_of("aeiou") == 0 ? ": an " : ": a ") + doc.kind +
                           " result has no figure '" + what + "'" +
                           (experiment.empty() ? "" : " for experiment '" + experiment + "'") +
                           (list.empty() ? "" : " (it has: " + list + ")"));
  }
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0)
    throw data::InputError(
        "gnuplot not found: stribeck plot draws through gnuplot (Debian: apt-get install gnuplot-nox)");

  data::AtomicFile out(output);
  TempDir dir;
  const std::string dat = dir.path + "/figure.dat";
  const std::string gp = dir.path + "/figure.gp";
  {
    std::ostringstream d;
    d.precision(9);
    if (fig->kind == FigureKind::kHeatmap) {
      const Heatmap& h = fig->heat;
      const std::size_t nx = h.x_edges.size() - 1, ny = h.y_edges.size() - 1;
      for (std::size_t j = 0; j < ny; ++j)
        for (std::size_t i = 0; i < nx; ++i) {
          const double z = h.z[j * nx + i];
          if (!std::isfinite(z)) continue;
          d << h.x[i] << ' ' << h.y[j] << ' ' << h.x_edges[i] << ' ' << h.x_edges[i + 1] << ' ' << h.y_edges[j] << ' '
            << h.y_edges[j + 1] << ' ' << z << '\n';
        }
    } else {
      for (const auto& s : fig->series) {
        for (std::size_t i = 0; i < s.x.size(); ++i)
          if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) d << s.x[i] << ' ' << s.y[i] << '\n';
        d << "\n\n";
      }
    }
    write_scratch(dat, d.str());
  }
  {
    std::ostringstream g;
    if (ext == "svg") g << "set terminal svg size 800,500 dynamic noenhanced font 'Helvetica,13'\n";
    else if (ext == "png") g << "set terminal pngcairo size 1600,1000 noenhanced font 'Helvetica,22' linewidth 2\n";
    else g << "set terminal pdfcairo size 6in,3.75in noenhanced font 'Helvetica,10'\n";
    g << "set title " << gq(fig->title) << "\n";
    g << "set xlabel " << gq(fig->x_label) << "\nset ylabel " << gq(fig->y_label) << "\n";
    g << "set grid lc rgb '#dddddd'\nset key outside right top\nset datafile missing 'NaN'\n";
    if (fig->kind == FigureKind::kHeatmap) {
      const Heatmap& h = fig->heat;
      g << axis_commands("x", h.x_edges.front(), h.x_edges.back(), h.x_log);
      g << axis_commands("y", h.y_edges.front(), h.y_edges.back(), h.y_log);
      double zlo = INFINITY, zhi = -INFINITY;
      for (double z : h.z)
        if (std::isfinite(z)) zlo = std::min(zlo, z), zhi = std::max(zhi, z);
      g << axis_commands("cb", zlo, zhi, false);
      g << "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')\n";
      g << "set cblabel " << gq(h.z_label) << "\nunset key\n";
      g << "plot " << gq(dat) << " using 1:2:3:4:5:6:7 with boxxyerror fs solid 1.0 noborder fc palette\n";
    } else if (fig->kind == FigureKind::kLine || fig->kind == FigureKind::kScatter ||
               fig->kind == FigureKind::kHistogram) {
      if (fig->kind == FigureKind::kHistogram) g << "set style fill solid 0.6 border -1\nset boxwidth 0.9 relative\n";
      const auto [xlo, xhi] = data_range(*fig, false, fig->x_log, fig->kind == FigureKind::kHistogram);
      const auto [ylo, yhi] = data_range(*fig, true, fig->y_log, true);
      g << axis_commands("x", xlo, xhi, fig->x_log) << axis_commands("y", ylo, yhi, fig->y_log);
      g << "plot ";
      for (std::size_t i = 0; i < fig->series.size(); ++i) {
        g << (i ? ", " : "") << gq(dat) << " index " << i << " using 1:2 ";
        if (fig->kind == FigureKind::kLine || fig->series[i].line) g << "with lines lw 1.2";
        else if (fig->kind == FigureKind::kScatter) g << "with points pt 7 ps 0.3";
        else g << "with boxes";
        g << " lc " << (i + 1) << " title " << gq(fig->series[i].name);
      }
      g << "\n";
    } else {
      throw data::InputError(doc.source + ": figure '" + what + "' is a " + kind_name(fig->kind) + ", not a plot");
    }
    g << "set output\n";
    write_scratch(gp, g.str());
  }
  const std::string log = dir.path + "/gnuplot.log";
  // No `set output`: the figure comes on gnuplot's stdout.
  std::FILE* pipe = ::popen(("gnuplot " + shell_quote(gp) + " 2>" + shell_quote(log)).c_str(), "r");
  if (!pipe) throw data::InputError(output + ": cannot run gnuplot: " + std::strerror(errno));
  std::size_t bytes = 0;
  try {
    std::vector<char> buf(std::size_t(1) << 16);
    for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0; bytes += n) out.write(buf.data(), n);
  } catch (...) {
    ::pclose(pipe);  // gnuplot's next write fails (EPIPE) and it ends
    throw;
  }
  const int rc = ::pclose(pipe);
  if (rc != 0 || bytes == 0) {
    std::ifstream l(log);
    std::string line, last;
    while (std::getline(l, line))
      if (!line.empty()) last = line;
    throw data::InputError(output + ": gnuplot " +
                           (rc != 0 ? "failed (exit " + std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) + ")"
                                    : std::string("drew nothing")) +
                           (last.empty() ? "" : ": " + last));
  }
  out.commit();
}

}  // namespace stribeck::report
