// Renderer 1: one self-contained HTML page. uPlot (third_party/uplot, MIT)
// and its CSS are embedded at build time (report/CMakeLists.txt generates
// uplot_embed.cpp from the vendored dist files), so the page opens offline.
// Line, scatter and histogram figures are uPlot charts (zoom by dragging,
// double click to reset); heat maps are drawn on a canvas (viridis);
// tables and text are HTML. The first inline script records window.onerror
// and console.error into the page (the <html> attribute data-errors and
// <pre id="report-errors">); every chart sets data-drawn="1" once drawn.
#include <cmath>
#include <cstdio>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/report/figure.hpp"

namespace stribeck::report {

extern const char* const kUplotJs;
extern const char* const kUplotCss;

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

// A JSON string literal, safe inside <script> (no "</").
std::string js_str(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"') o += "\\\"";
    else if (c == '\\') o += "\\\\";
    else if (c == '<') o += "\\u003c";
    else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else o += static_cast<char>(c);
  }
  return o + "\"";
}

void js_nums(std::string& o, const std::vector<double>& v) {
  o += '[';
  char b[32];
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) o += ',';
    if (std::isfinite(v[i])) {
      std::snprintf(b, sizeof b, "%.7g", v[i]);
      o += b;
    } else {
      o += "null";
    }
  }
  o += ']';
}

std::string figure_json(const Figure& f) {
  std::string o = "{\"id\":" + js_str(f.id) + ",\"kind\":\"" + kind_name(f.kind) + "\",\"title\":" + js_str(f.title) +
                  ",\"x\":" + js_str(f.x_label) + ",\"y\":" + js_str(f.y_label) +
                  ",\"xlog\":" + (f.x_log ? "true" : "false") + ",\"ylog\":" + (f.y_log ? "true" : "false") +
                  ",\"series\":[";
  for (std::size_t i = 0; i < f.series.size(); ++i) {
    if (i) o += ',';
    o += "{\"name\":" + js_str(f.series[i].name) + ",\"line\":" + (f.series[i].line ? "true" : "false") + ",\"x\":";
    js_nums(o, f.series[i].x);
    o += ",\"y\":";
    js_nums(o, f.series[i].y);
    o += '}';
  }
  o += ']';
  if (f.kind == FigureKind::kHeatmap) {
    o += ",\"heat\":{\"xe\":";
    js_nums(o, f.heat.x_edges);
    o += ",\"ye\":";
    js_nums(o, f.heat.y_edges);
    o += ",\"z\":";
    js_nums(o, f.heat.z);
    o += ",\"xlog\":" + std::string(f.heat.x_log ? "true" : "false") +
         ",\"ylog\":" + std::string(f.heat.y_log ? "true" : "false") + ",\"zl\":" + js_str(f.heat.z_label) + "}";
  }
  return o + "}";
}

std::string table_html(const Figure& f) {
  std::string o = "<table class=\"data\"><thead><tr>";
  for (const auto& h : f.table.header) o += "<th>" + esc(h) + "</th>";
  o += "</tr></thead><tbody>";
  for (std::size_t r = 0; r < f.table.rows.size(); ++r) {
    o += "<tr>";
    for (std::size_t c = 0; c < f.table.rows[r].size(); ++c) {
      std::string style;
      if (r < f.table.shade.size() && c < f.table.shade[r].size() && std::isfinite(f.table.shade[r][c])) {
        // Red for +1, blue for -1, white for 0.
        const double v = std::max(-1.0, std::min(1.0, f.table.shade[r][c]));
        const int a = static_cast<int>(255 - 180 * std::abs(v));
        char b[64];
        std::snprintf(b, sizeof b, " style=\"background:rgb(%d,%d,%d)\"", v > 0 ? 255 : a, a, v < 0 ? 255 : a);
        style = b;
      }
      o += "<td" + style + ">" + esc(f.table.rows[r][c]) + "</td>";
    }
    o += "</tr>";
  }
  return o + "</tbody></table>";
}

const char* kHead = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<script>
window.__errors = [];
function __record(m) {
  window.__errors.push(String(m));
  document.documentElement.setAttribute('data-errors', String(window.__errors.length));
  var p = document.getElementById('report-errors');
  if (p) { p.textContent = window.__errors.join('\n'); p.hidden = false; }
}
window.onerror = function (m, s, l, c) { __record('error: ' + m + ' (line ' + l + ':' + c + ')'); };
window.addEventListener('unhandledrejection', function (e) { __record('unhandled rejection: ' + e.reason); });
(function () { var ce = console.error; console.error = function () {
  __record('console.error: ' + Array.prototype.join.call(arguments, ' ')); return ce.apply(console, arguments); }; })();
</script>
)HTML";

const char* kStyle = R"CSS(
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 1100px; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
.fig { margin: 1em 0 1.5em 0; } .fig h3 { font-size: 1em; margin: 0.3em 0; }
table.data { border-collapse: collapse; font-size: 0.9em; }
table.data td, table.data th { border: 1px solid #ccc; padding: 2px 8px; text-align: right; }
table.data td:first-child, table.data th:first-child { text-align: left; }
#report-errors { color: #b00; white-space: pre-wrap; }
.note { color: #555; font-size: 0.9em; }
canvas.heat { border: 1px solid #ccc; }
)CSS";

const char* kScript = R"JS(
(function () {
  var t0 = performance.now();
  var palette = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                 '#bcbd22', '#17becf'];
  var width = Math.min(1050, Math.max(500, document.body.clientWidth - 20));
  function drawn(el) { el.setAttribute('data-drawn', '1'); }
  function viridis(t) {
    var c = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
    t = Math.max(0, Math.min(1, t)) * 4; var i = Math.min(3, Math.floor(t)), f = t - i;
    return 'rgb(' + [0, 1, 2].map(function (k) { return Math.round(c[i][k] + f * (c[i + 1][k] - c[i][k])); }).join(',') + ')';
  }
  // Axis ticks: the rules of report/src/ticks.cpp (axis_ticks, tick_label),
  // which gnuplot's figures use, so both media label an axis alike.
  function decade(x) { return Math.floor(Math.log10(x) + 1e-9); }
  function sciFor(small, large) { var h = decade(large), l = decade(small); return h > 5 || h < -3 || l < -3; }
  function trim(m) { return m.indexOf('.') < 0 ? m : m.replace(/0+$/, '').replace(/\.$/, ''); }
  function tickLabel(v, step, sci) {
    step = Math.abs(step);
    if (v === 0 || !(step > 0) || Math.abs(v) < step * 1e-6) { if (v === 0 || step > 0) return '0'; step = Math.abs(v); }
    var es = decade(step), em = decade(Math.max(Math.abs(v), step));
    if (!sci) return trim(v.toFixed(Math.min(100, Math.max(0, -es))));
    var s = v.toExponential(Math.min(100, Math.max(0, em - es))), e = s.indexOf('e');
    return trim(s.slice(0, e)) + 'e' + parseInt(s.slice(e + 1), 10);
  }
  function linearTicks(lo, hi, target) {
    var raw = (hi - lo) / Math.max(1, target), mag = Math.pow(10, Math.floor(Math.log10(raw))), n = raw / mag;
    var step = (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10) * mag, t = {v: [], l: []};
    var k0 = Math.ceil(lo / step - 1e-9), k1 = Math.floor(hi / step + 1e-9), small = Math.max(Math.abs(lo), Math.abs(hi)), large = 0;
    for (var k = k0; k <= k1; ++k) {
      var v = k === 0 ? 0 : k * step; t.v.push(v);
      if (v !== 0) { small = Math.min(small, Math.abs(v)); large = Math.max(large, Math.abs(v)); }
    }
    var sci = sciFor(small, Math.max(large, small));
    t.l = t.v.map(function (v) { return tickLabel(v, step, sci); });
    return t;
  }
  function axisTicks(lo, hi, log, target) {
    if (lo > hi) { var s = lo; lo = hi; hi = s; }
    if (!isFinite(lo) || !isFinite(hi)) return {v: [], l: []};
    if (!(hi - lo > 1e-12 * Math.max(Math.abs(lo), Math.abs(hi)))) {
      var a = Math.abs(lo);
      return {v: [lo], l: [tickLabel(lo, lo === 0 ? 1 : a * 1e-6, lo !== 0 && sciFor(a, a))]};
    }
    if (log && lo > 0) {
      var d0 = Math.ceil(Math.log10(lo) - 1e-9), d1 = decade(hi), n = d1 - d0 + 1, sci = sciFor(lo, hi), t = {v: [], l: []};
      if (n >= 2) {
        var k = Math.max(1, Math.ceil(n / Math.max(1, target)));
        for (var d = d0; d <= d1; ++d) if ((d - d0) % k === 0) { var v = Math.pow(10, d); t.v.push(v); t.l.push(tickLabel(v, v, sci)); }
        return t;
      }
      for (var d = decade(lo); d <= d1; ++d) [1, 2, 5].forEach(function (m) {
        var v = m * Math.pow(10, d);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) { t.v.push(v); t.l.push(tickLabel(v, Math.pow(10, d), sci)); }
      });
      if (t.v.length >= 2) return t;
    }
    return linearTicks(lo, hi, target);
  }
  // A uPlot axis whose ticks are axisTicks'; the labels drawn are kept on
  // the chart's element (data-ticks-x, data-range-x, ...) for the tests.
  function axis(label, log, target, el, key) {
    var last = {v: [], l: []};
    return {label: label, size: key === 'y' ? 80 : 50,
      splits: function (u, i, lo, hi) { last = axisTicks(lo, hi, log, target); return last.v.slice(); },
      values: function (u, splits) {
        var l = splits.map(function (v, i) { return last.v[i] === v ? last.l[i] : tickLabel(v, v, false); });
        el.setAttribute('data-ticks-' + key, JSON.stringify(l));
        return l;
      }};
  }
  function chart(fig, el) {
    var kind = fig.kind, tables = [], series = [{label: fig.x}];
    fig.series.forEach(function (s, i) {
      var x = s.x.slice(), y = s.y.slice();
      if (kind === 'scatter') {  // uPlot wants x increasing
        var idx = x.map(function (_, k) { return k; }).sort(function (a, b) { return x[a] - x[b]; });
        x = idx.map(function (k) { return s.x[k]; }); y = idx.map(function (k) { return s.y[k]; });
      }
      tables.push([x, y]);
      var col = palette[i % palette.length];
      var opt = {label: s.name, stroke: col, width: 1, spanGaps: kind === 'line' || s.line};
      if (kind === 'scatter' && !s.line) {
        opt.paths = function () { return null; };
        opt.points = {show: true, size: 3, stroke: col, fill: col};
      } else if (kind === 'histogram') {
        opt.paths = uPlot.paths.bars({size: [0.9, 100]}); opt.fill = col + '99'; opt.points = {show: false};
      } else {
        opt.points = {show: false};
      }
      series.push(opt);
    });
    var data = tables.length === 1 ? tables[0] : uPlot.join(tables);
    var opts = {
      width: width, height: 320, series: series,
      scales: {x: {time: false, distr: fig.xlog ? 3 : 1}, y: {distr: fig.ylog ? 3 : 1}},
      axes: [axis(fig.x, fig.xlog, 8, el, 'x'), axis(fig.y, fig.ylog, 5, el, 'y')],
      cursor: {drag: {x: true, y: kind !== 'histogram'}},
      hooks: {draw: [function (u) {
        ['x', 'y'].forEach(function (k) {
          el.setAttribute('data-range-' + k, JSON.stringify([u.scales[k].min, u.scales[k].max]));
          el.setAttribute('data-log-' + k, u.scales[k].distr === 3 ? '1' : '0');
        });
        drawn(el);
      }]}
    };
    new uPlot(opts, data, el.querySelector('.plot'));
  }
  function heat(fig, el) {
    var h = fig.heat, nx = h.xe.length - 1, ny = h.ye.length - 1;
    var cv = el.querySelector('canvas'), W = cv.width, H = cv.height, L = 80, B = 50, T = 10, R = 110;
    var g = cv.getContext('2d'); g.fillStyle = '#fff'; g.fillRect(0, 0, W, H);
    var zs = h.z.filter(function (v) { return v !== null; });
    // One value everywhere: one colour, one tick.
    var lo = Math.min.apply(null, zs), hi = Math.max.apply(null, zs), span = hi > lo ? hi - lo : 1;
    function ax(v, e, log, a, b) {
      var e0 = log ? Math.log(e[0]) : e[0], e1 = log ? Math.log(e[e.length - 1]) : e[e.length - 1];
      return a + (b - a) * ((log ? Math.log(v) : v) - e0) / (e1 - e0);
    }
    for (var j = 0; j < ny; ++j) for (var i = 0; i < nx; ++i) {
      var z = h.z[j * nx + i];
      g.fillStyle = z === null ? '#ccc' : viridis((z - lo) / span);
      var x0 = ax(h.xe[i], h.xe, h.xlog, L, W - R), x1 = ax(h.xe[i + 1], h.xe, h.xlog, L, W - R);
      var y0 = ax(h.ye[j], h.ye, h.ylog, H - B, T), y1 = ax(h.ye[j + 1], h.ye, h.ylog, H - B, T);
      g.fillRect(Math.min(x0, x1), Math.min(y0, y1), Math.abs(x1 - x0) + 0.5, Math.abs(y1 - y0) + 0.5);
    }
    for (var k = 0; k < 100; ++k) { g.fillStyle = viridis(k / 99); g.fillRect(W - R + 20, H - B - (k + 1) * (H - B - T) / 100, 18, (H - B - T) / 100 + 1); }
    // Ticks at nice values of each axis (decades on a log axis) and of the
    // colour bar, in the data's units; kept on the element for the tests.
    g.fillStyle = '#222'; g.strokeStyle = '#222'; g.font = '12px sans-serif';
    var xt = axisTicks(h.xe[0], h.xe[nx], h.xlog, 6), yt = axisTicks(h.ye[0], h.ye[ny], h.ylog, 6);
    var zt = axisTicks(lo, hi, false, 6);
    g.textAlign = 'center';
    xt.v.forEach(function (v, k) {
      var p = ax(v, h.xe, h.xlog, L, W - R);
      g.fillRect(p, H - B, 1, 5); g.fillText(xt.l[k], p, H - B + 18);
    });
    g.textAlign = 'right';
    yt.v.forEach(function (v, k) {
      var p = ax(v, h.ye, h.ylog, H - B, T);
      g.fillRect(L - 5, p, 5, 1); g.fillText(yt.l[k], L - 8, p + 4);
    });
    g.textAlign = 'left';
    zt.v.forEach(function (v, k) {
      var p = H - B - (v - lo) / span * (H - B - T);
      g.fillRect(W - R + 38, p, 4, 1); g.fillText(zt.l[k], W - R + 44, p + 4);
    });
    g.textAlign = 'center';
    g.fillText(fig.x, L + (W - R - L) / 2, H - 10);
    g.save(); g.translate(15, T + (H - B - T) / 2); g.rotate(-Math.PI / 2); g.fillText(fig.y, 0, 0); g.restore();
    g.save(); g.translate(W - 8, T + (H - B - T) / 2); g.rotate(-Math.PI / 2); g.fillText(h.zl, 0, 0); g.restore();
    el.setAttribute('data-ticks-x', JSON.stringify(xt.l)); el.setAttribute('data-ticks-y', JSON.stringify(yt.l));
    el.setAttribute('data-ticks-z', JSON.stringify(zt.l));
    el.setAttribute('data-range-x', JSON.stringify([h.xe[0], h.xe[nx]]));
    el.setAttribute('data-range-y', JSON.stringify([h.ye[0], h.ye[ny]]));
    el.setAttribute('data-range-z', JSON.stringify([lo, hi]));
    el.setAttribute('data-log-x', h.xlog ? '1' : '0'); el.setAttribute('data-log-y', h.ylog ? '1' : '0');
    drawn(el);
  }
  var figs = JSON.parse(document.getElementById('report-data').textContent);
  figs.forEach(function (fig) {
    var el = document.getElementById(fig.id);
    try {
      if (fig.kind === 'heatmap') heat(fig, el); else chart(fig, el);
    } catch (e) { console.error('figure ' + fig.id + ': ' + e); }
  });
  document.documentElement.setAttribute('data-draw-ms', String(Math.round(performance.now() - t0)));
  document.documentElement.setAttribute('data-ready', '1');
})();
)JS";

}  // namespace

std::string render_html(const Document& doc) {
  std::string o = kHead;
  o += "<title>" + esc(doc.title) + "</title>\n<style>" + std::string(kUplotCss) + "</style>\n<style>" + kStyle +
       "</style>\n</head><body>\n";
  o += "<h1>" + esc(doc.title) + "</h1>\n<pre id=\"report-errors\" hidden></pre>\n";
  o += "<p class=\"note\">Source: " + esc(doc.source) + " (" + esc(doc.kind) +
       "). Charts: drag to zoom, double-click to reset. Long series are decimated to the smallest and largest "
       "value per pixel column.</p>\n";
  for (const auto& n : doc.notes) o += "<p class=\"note\">Note: " + esc(n) + "</p>\n";
  std::string data = "[";
  for (const auto& s : doc.sections) {
    o += "<h2>" + esc(s.title) + "</h2>\n";
    for (const auto& f : s.figures) {
      o += "<div class=\"fig\" id=\"" + esc(f.id) + "\" data-kind=\"" + kind_name(f.kind) + "\"";
      const bool chart = f.kind != FigureKind::kTable && f.kind != FigureKind::kText;
      if (chart) o += " data-chart=\"1\"";
      o += "><h3>" + esc(f.title) + "</h3>";
      if (f.kind == FigureKind::kTable) o += table_html(f);
      else if (f.kind == FigureKind::kText) {
        o += "<ul>";
        for (const auto& t : f.text) o += "<li>" + esc(t) + "</li>";
        o += "</ul>";
      } else if (f.kind == FigureKind::kHeatmap) {
        o += "<canvas class=\"heat\" width=\"760\" height=\"480\"></canvas>";
      } else {
        o += "<div class=\"plot\"></div>";
      }
      o += "</div>\n";
      if (chart) {
        if (data.size() > 1) data += ",\n";
        data += figure_json(f);
      }
    }
  }
  data += "]";
  o += "<h2>Provenance</h2>\n<table class=\"data\">";
  for (const auto& [k, v] : doc.provenance) o += "<tr><td>" + esc(k) + "</td><td>" + esc(v) + "</td></tr>";
  o += "</table>\n";
  // JSON inside a script element: "</" never occurs (js_str escapes '<').
  o += "<script type=\"application/json\" id=\"report-data\">" + data + "</script>\n";
  o += "<script>" + std::string(kUplotJs) + "</script>\n<script>" + kScript + "</script>\n</body></html>\n";
  return o;
}

void write_html(const Document& doc, const std::string& output) {
  const std::string html = render_html(doc);
  data::AtomicFile out(output);
  out.write(html);
  out.commit();
}

}  // namespace stribeck::report
