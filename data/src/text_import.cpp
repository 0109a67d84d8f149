// Delimited text → RawColumns → Experiment.
#include <cctype>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

constexpr char kWhitespace = ' ';
constexpr size_t kSniffLines = 50;  // data rows looked at to choose the delimiter

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string_view unquote(std::string_view s) {
  s = trim(s);
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    s = trim(s.substr(1, s.size() - 2));
  return s;
}

struct Line {
  std::string_view text;
  long number;  // 1-based
};

bool is_comment(std::string_view t) {
  t = trim(t);
  return t.empty() || t.front() == '#' || t.front() == '%' || t.rfind("//", 0) == 0;
}

// Whitespace split keeps "[...]" and "(...)" groups together so a header
// like "velocity [mm / s]" stays one cell.
void split(std::string_view line, char delim, std::vector<std::string_view>& cells) {
  cells.clear();
  if (delim == kWhitespace) {
    size_t i = 0;
    const size_t n = line.size();
    while (i < n) {
      while (i < n && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      if (i >= n) break;
      const size_t start = i;
      int depth = 0;
      while (i < n && (depth > 0 || !std::isspace(static_cast<unsigned char>(line[i])))) {
        if (line[i] == '[' || line[i] == '(') ++depth;
        if ((line[i] == ']' || line[i] == ')') && depth > 0) --depth;
        ++i;
      }
      cells.push_back(line.substr(start, i - start));
    }
    return;
  }
  // Delimiters inside double quotes ("Force, N",...) do not split.
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '"') quoted = !quoted;
    if (i == line.size() || (line[i] == delim && !quoted)) {
      cells.push_back(trim(line.substr(start, i - start)));
      start = i + 1;
    }
  }
}

bool parse_cell(std::string_view cell, bool decimal_comma, double& out) {
  cell = unquote(cell);
  if (!decimal_comma || cell.find(',') == std::string_view::npos) return parse_double(cell, out);
  char buf[64];
  if (cell.size() >= sizeof buf || cell.find('.') != std::string_view::npos) return false;
  for (size_t i = 0; i < cell.size(); ++i) buf[i] = cell[i] == ',' ? '.' : cell[i];
  return parse_double(std::string_view(buf, cell.size()), out);
}

// Does every sampled line split into the same number of numeric cells?
// Returns that number, or 0.
size_t fits(const std::vector<Line>& lines, size_t first, char delim, bool& decimal_comma) {
  std::vector<std::string_view> cells;
  size_t k = 0;
  decimal_comma = false;
  for (size_t i = first; i < lines.size() && i < first + kSniffLines; ++i) {
    split(lines[i].text, delim, cells);
    if (k == 0) k = cells.size();
    if (cells.size() != k) return 0;
    for (auto c : cells) {
      double x;
      if (delim != ',' && c.find(',') != std::string_view::npos) decimal_comma = true;
      if (!parse_cell(c, delim != ',', x)) return 0;
    }
  }
  return k;
}

std::string where(const std::string& source, long line) { return source + ":" + std::to_string(line); }

}  // namespace

void split_header_cell(std::string_view cell, std::string& name, std::string& unit) {
  std::string_view s = unquote(cell);
  name.assign(s);
  unit.clear();
  auto take = [&](size_t open, size_t close) {
    name.assign(trim(s.substr(0, open)));
    unit.assign(trim(s.substr(open + 1, close - open - 1)));
  };
  if (!s.empty() && s.back() == ']') {
    const size_t open = s.find('[');
    if (open != std::string_view::npos && open > 0) return take(open, s.size() - 1);
  }
  if (!s.empty() && s.back() == ')') {
    const size_t open = s.find('(');
    if (open != std::string_view::npos && open > 0) return take(open, s.size() - 1);
  }
  if (const size_t slash = s.find('/'); slash != std::string_view::npos && slash > 0) {
    if (find_unit(trim(s.substr(slash + 1)))) return take(slash, s.size());
  }
  if (const size_t in = s.rfind(" in "); in != std::string_view::npos && in > 0) {
    if (find_unit(trim(s.substr(in + 4)))) {
      name.assign(trim(s.substr(0, in)));
      unit.assign(trim(s.substr(in + 4)));
    }
  }
}

RawColumns parse_delimited(std::string_view text, const std::string& source, TextInfo* info_out) {
  // UTF-8 byte-order mark from spreadsheet exports.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.remove_prefix(3);
  std::vector<Line> lines;
  long number = 0;
  while (!text.empty()) {
    size_t end = text.find_first_of("\r\n");
    std::string_view l = text.substr(0, end);
    ++number;
    if (end == std::string_view::npos) {
      text = {};
    } else {
      if (text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
      text.remove_prefix(end + 1);
    }
    if (!is_comment(l)) lines.push_back({l, number});
  }
  if (lines.empty()) throw InputError(source + ": no data (file is empty or only comments)");

  // The first content line is a header unless it splits like the data rows
  // into numbers. Choose the delimiter from the rows after it.
  TextInfo info;
  const size_t first_data = lines.size() > 1 ? 1 : 0;
  size_t k = 0;
  for (char d : {'\t', ';', ',', kWhitespace}) {
    bool dc = false;
    k = fits(lines, first_data, d, dc);
    // One column only when nothing in the first line looks like a delimiter
    // (else "0,1" rows under a "time,force" header would read as decimal commas).
    const bool single_ok = d == kWhitespace && lines[0].text.find_first_of(",;\t") == std::string_view::npos;
    if (k >= 2 || (k == 1 && single_ok)) {
      info.delimiter = d;
      info.decimal_comma = dc;
      break;
    }
    k = 0;
  }
  if (k == 0) {
    // Nothing fits: pick the delimiter the first data row suggests so the
    // error below points at the offending cell.
    const std::string_view l = lines[first_data].text;
    info.delimiter = l.find('\t') != std::string_view::npos   ? '\t'
                     : l.find(';') != std::string_view::npos  ? ';'
                     : l.find(',') != std::string_view::npos  ? ','
                                                              : kWhitespace;
    std::vector<std::string_view> cells;
    split(l, info.delimiter, cells);
    k = cells.size();
  }
  std::vector<std::string_view> cells;
  split(lines[0].text, info.delimiter, cells);
  {
    bool numeric = cells.size() == k;
    double x;
    for (auto c : cells) numeric = numeric && parse_cell(c, info.decimal_comma, x);
    info.header = !numeric;
  }
  RawColumns raw;
  raw.names.resize(k);
  raw.units.resize(k);
  raw.values.resize(k);
  size_t row0 = 0;
  if (info.header) {
    if (cells.size() != k)
      throw InputError(where(source, lines[0].number) + ": header has " + std::to_string(cells.size()) +
                       " names, data rows have " + std::to_string(k) + " cells");
    for (size_t c = 0; c < k; ++c) {
      split_header_cell(cells[c], raw.names[c], raw.units[c]);
      if (raw.names[c].empty())
        throw InputError(where(source, lines[0].number) + ": column " + std::to_string(c + 1) + " has no name");
    }
    row0 = 1;
  }
  if (row0 >= lines.size()) throw InputError(source + ": header row but no data rows");
  for (auto& v : raw.values) v.reserve(lines.size() - row0);
  for (size_t i = row0; i < lines.size(); ++i) {
    split(lines[i].text, info.delimiter, cells);
    if (cells.size() != k)
      throw InputError(where(source, lines[i].number) + ": expected " + std::to_string(k) + " cells, found " +
                       std::to_string(cells.size()));
    for (size_t c = 0; c < k; ++c) {
      double x;
      if (!parse_cell(cells[c], info.decimal_comma, x)) {
        const std::string col = raw.names[c].empty() ? "" : " '" + raw.names[c] + "'";
        throw InputError(where(source, lines[i].number) + ": column " + std::to_string(c + 1) + col + ": '" +
                         std::string(cells[c].substr(0, 40)) + "' is " +
                         (cells[c].empty() ? "empty" : "not a finite number"));
      }
      raw.values[c].push_back(x);
    }
  }
  if (info_out) *info_out = info;
  return raw;
}

std::vector<ColumnSpec> parse_column_specs(const std::string& text) {
  std::vector<ColumnSpec> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item(trim(std::string_view(text).substr(pos, end - pos)));
    pos = end + 1;
    if (item.empty()) {
      if (end == text.size()) break;
      throw InputError("--columns: empty entry in '" + text + "'");
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("--columns: '" + item + "' is not CHANNEL=COLUMN[:UNIT]");
    ColumnSpec s;
    s.channel = std::string(trim(std::string_view(item).substr(0, eq)));
    std::string rest = item.substr(eq + 1);
    const size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      s.unit = std::string(trim(std::string_view(rest).substr(colon + 1)));
      rest.resize(colon);
      if (!find_unit(s.unit)) throw InputError("--columns: '" + item + "': unknown unit '" + s.unit + "'");
    }
    s.source = std::string(trim(rest));
    if (s.source.empty()) throw InputError("--columns: '" + item + "' names no column");
    out.push_back(std::move(s));
    if (end == text.size()) break;
  }
  if (out.empty()) throw InputError("--columns: no columns given");
  return out;
}

ChannelGain parse_channel_gain(const std::string& text, const std::string& option) {
  const std::string usage = option + " '" + text + "' is not CHANNEL=GAIN[UNIT[/RAW]][,OFFSET[UNIT]]";
  const size_t eq = text.find('=');
  if (eq == std::string::npos) throw InputError(usage);
  ChannelGain g;
  g.channel = canonical_channel(trim(std::string_view(text).substr(0, eq)));
  g.text = std::string(trim(std::string_view(text).substr(eq + 1)));
  if (g.channel.empty() || g.text.empty()) throw InputError(usage);
  if (g.channel == "time") throw InputError(option + " '" + text + "': time cannot be scaled (give its unit instead)");
  const size_t comma = g.text.find(',');
  const std::string gain_text(trim(std::string_view(g.text).substr(0, comma)));
  const std::string what = option + " " + g.channel;
  // The gain: a number, then an optional unit; a unit that is not one of the
  // known units is read as UNIT/RAW (split at the last '/'), RAW being the
  // recorded quantity's unit (V, mV, A, counts ...), kept as a label.
  std::string_view gs = gain_text;
  if (!gs.empty() && gs.front() == '+') gs.remove_prefix(1);
  double x = 0;
  auto [ptr, ec] = std::from_chars(gs.data(), gs.data() + gs.size(), x);
  if (ec != std::errc() || ptr == gs.data())
    throw InputError(what + ": gain '" + gain_text + "' is not a number (with an optional unit such as N/V)");
  if (!std::isfinite(x) || x == 0)
    throw InputError(what + ": gain '" + gain_text + "' must be finite and non-zero");
  const std::string unit(trim(std::string_view(ptr, static_cast<size_t>(gs.data() + gs.size() - ptr))));
  g.gain = x;
  if (!unit.empty()) {
    std::string num = unit;
    if (!find_unit(unit)) {
      const size_t slash = unit.rfind('/');
      if (slash == std::string::npos)
        throw InputError(what + ": unknown unit '" + unit + "' in gain '" + gain_text + "' (expected e.g. N/V)");
      num = std::string(trim(std::string_view(unit).substr(0, slash)));
      g.raw_unit = std::string(trim(std::string_view(unit).substr(slash + 1)));
      if (g.raw_unit.empty())
        throw InputError(what + ": gain '" + gain_text + "' names no recorded unit after '/'");
    }
    if (!num.empty()) {
      const auto u = find_unit(num);
      if (!u) throw InputError(what + ": unknown unit '" + num + "' in gain '" + gain_text + "'");
      if (u->offset != 0 || u->absolute_pressure)
        throw InputError(what + ": gain unit '" + num + "' has an offset; give the gain in " + u->si + " (and any "
                         "offset after a comma)");
      g.gain *= u->factor;
      g.unit = num;
      g.has_dimension = true;
      g.dimension = u->dimension;
    }
  }
  if (comma != std::string::npos) {
    const std::string off(trim(std::string_view(g.text).substr(comma + 1)));
    if (off.empty()) throw InputError(usage);
    std::optional<Dimension> dim;
    g.offset = parse_quantity(off, what + ": offset", &dim);
    if (dim) {
      g.offset_has_dimension = true;
      g.offset_dimension = *dim;
    }
  }
  return g;
}

namespace {
// Scales channel g.channel of e (read as recorded) to SI: gain * raw + offset.
void apply_gain(Experiment& e, const ChannelGain& g, const std::string& source, const std::string& raw_label,
                bool rotational) {
  auto it = e.channels.find(g.channel);
  if (it == e.channels.end()) {
    std::string have;
    for (const auto& [c, v] : e.channels) have += (have.empty() ? "" : ", ") + c;
    throw InputError(source + ": --gain " + g.channel + "=" + g.text + ": no channel '" + g.channel +
                     "' (channels: " + have + ")");
  }
  const auto need = channel_dimension(g.channel, rotational);
  std::optional<Dimension> dim = need;
  if (g.has_dimension) {
    if (need && *need != g.dimension)
      throw InputError(source + ": --gain " + g.channel + "=" + g.text + ": gain unit '" + g.unit + "' is " +
                       dimension_name(g.dimension) + ", channel '" + g.channel + "' needs " + dimension_name(*need));
    dim = g.dimension;
  }
  if (g.offset_has_dimension && dim && *dim != g.offset_dimension)
    throw InputError(source + ": --gain " + g.channel + "=" + g.text + ": the offset is " +
                     dimension_name(g.offset_dimension) + ", channel '" + g.channel + "' needs " + dimension_name(*dim));
  for (double& v : it->second) v = g.gain * v + g.offset;
  const std::string si = dim ? si_unit(*dim) : (g.offset_has_dimension ? si_unit(g.offset_dimension) : "1");
  e.units[g.channel] = si;
  const std::string raw = !g.raw_unit.empty() ? g.raw_unit : raw_label;
  auto& a = e.channel_attributes[g.channel];
  a["gain"] = format_number(g.gain);
  a["gain_unit"] = si + "/" + (raw.empty() ? "1" : raw);
  a["offset"] = format_number(g.offset);
  a["raw_unit"] = raw.empty() ? "1" : raw;
  a["scaling"] = g.text;
}
}  // namespace

Experiment columns_to_experiment(const RawColumns& raw, const ReadOptions& o, const std::string& source,
                                 const std::string& name) {
  std::map<std::string, const ChannelGain*> gained;
  for (const auto& g : o.gains) {
    if (gained.count(g.channel))
      throw InputError("--gain given twice for channel '" + g.channel + "'");
    gained[g.channel] = &g;
  }
  std::map<std::string, std::string> raw_labels;  // gained channel -> its column's unit as recorded
  struct Pick {
    size_t col;
    std::string channel, unit;
  };
  std::vector<Pick> picks;
  const size_t k = raw.values.size();
  auto label = [&](size_t c) {
    return "column " + std::to_string(c) + (raw.names[c].empty() ? "" : " '" + raw.names[c] + "'");
  };
  std::vector<bool> used(k, false);
  for (const auto& s : o.columns) {
    size_t col = k;
    const bool numeric = !s.source.empty() && s.source.find_first_not_of("0123456789") == std::string::npos;
    if (numeric) {
      col = s.source.size() > 9 ? k : std::stoul(s.source);
      if (col >= k)
        throw InputError(source + ": --columns " + s.channel + "=" + s.source + ": the file has " +
                         std::to_string(k) + " columns (0 to " + std::to_string(k - 1) + ")");
    } else {
      for (size_t c = 0; c < k; ++c)
        if (raw.names[c] == s.source) col = c;
      if (col == k)
        for (size_t c = 0; c < k; ++c)
          if (canonical_channel(raw.names[c]) == canonical_channel(s.source)) col = c;
      if (col == k) throw InputError(source + ": --columns " + s.channel + "=" + s.source + ": no such column");
    }
    used[col] = true;
    picks.push_back({col, canonical_channel(s.channel), s.unit.empty() ? raw.units[col] : s.unit});
  }
  if (o.columns.empty() || !o.only_mapped) {
    for (size_t c = 0; c < k; ++c) {
      if (used[c]) continue;
      if (raw.names[c].empty())
        throw InputError(source + ": no header row; map the columns with --columns, e.g. "
                                  "--columns time=0:s,position=1:mm,force=2:N");
      picks.push_back({c, canonical_channel(raw.names[c]), raw.units[c]});
    }
  }
  // Rotational if any schema channel is given in an angular unit.
  bool rotational = false;
  for (const auto& p : picks) {
    const auto u = find_unit(p.unit);
    if (u && is_schema_channel(p.channel) &&
        (u->dimension == Dimension::kAngle || u->dimension == Dimension::kAngularVelocity ||
         u->dimension == Dimension::kAngularAcceleration || u->dimension == Dimension::kTorque))
      rotational = true;
  }
  Experiment e;
  e.name = name;
  e.source = source;
  bool any_pressure = false, any_absolute = false;
  std::map<std::string, size_t> seen;
  for (const auto& p : picks) {
    if (auto it = seen.find(p.channel); it != seen.end())
      throw InputError(source + ": " + label(it->second) + " and " + label(p.col) + " both map to channel '" +
                       p.channel + "'");
    seen[p.channel] = p.col;
    std::vector<double> v = raw.values[p.col];
    const auto dim = channel_dimension(p.channel, rotational);
    std::string unit = p.unit;
    if (auto g = gained.find(p.channel); g != gained.end()) {
      // Kept as recorded: the gain scales it to SI below.
      if (!unit.empty() && !g->second->raw_unit.empty() && unit != g->second->raw_unit)
        throw InputError(source + ": " + label(p.col) + " is in '" + unit + "', but --gain " + p.channel + "=" +
                         g->second->text + " scales '" + g->second->raw_unit + "'");
      raw_labels[p.channel] = unit;
      e.units[p.channel] = "1";
      e.channels[p.channel] = std::move(v);
      continue;
    }
    if (!unit.empty()) {
      const auto u = find_unit(unit);
      if (!u) throw InputError(source + ": " + label(p.col) + ": unknown unit '" + unit + "'");
      if (dim && *dim != u->dimension)
        throw InputError(source + ": " + label(p.col) + ": unit '" + unit + "' is " +
                         dimension_name(u->dimension) + ", channel '" + p.channel + "' needs " +
                         dimension_name(*dim) + (rotational ? " (log is rotational: other columns use angular units)" : ""));
      const bool absolute = u->dimension == Dimension::kPressure && (u->absolute_pressure || o.absolute_pressure);
      const double off = u->offset - (absolute ? o.ambient_pressure : 0.0);
      for (double& x : v) x = u->factor * x + off;
      unit = u->si;
      any_absolute |= absolute;
    } else if (dim) {
      unit = si_unit(*dim);  // no unit given: the schema's SI unit
      if (*dim == Dimension::kPressure && o.absolute_pressure) {
        for (double& x : v) x -= o.ambient_pressure;
        any_absolute = true;
      }
    }
    any_pressure |= dim && *dim == Dimension::kPressure;
    e.units[p.channel] = unit;
    e.channels[p.channel] = std::move(v);
  }
  if (rotational) e.attributes["motion"] = "rotational";
  if (any_pressure) {
    e.attributes["pressure_reference"] = "gauge";
    if (any_absolute) e.attributes["ambient_pressure"] = format_number(o.ambient_pressure);
  }
  for (const auto& g : o.gains) apply_gain(e, g, source, raw_labels[g.channel], rotational);
  const size_t slash = source.find_last_of('/');
  e.attributes["source_file"] = slash == std::string::npos ? source : source.substr(slash + 1);
  validate_experiment(e);
  return e;
}

Experiment read_text_log(const std::string& path, const ReadOptions& o) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open: " + std::strerror(errno));
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw InputError(path + ": read error");
  if (const size_t nul = text.find('\0'); nul != std::string::npos) {
    const std::string why = text_encoding_problem(text);
    const size_t line = 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + nul, '\n'));
    throw InputError(path + ":" + std::to_string(line) + ": " +
                     (why.rfind("holds a NUL", 0) == 0 ? "holds a NUL byte (at byte " + std::to_string(nul) +
                                                             "): not a text file"
                                                       : why));
  }
  const RawColumns raw = parse_delimited(text, path);
  return columns_to_experiment(raw, o, path, o.name.empty() ? file_stem(path) : o.name);
}

}  // namespace stribeck
