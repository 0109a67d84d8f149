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
#include <set>

#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {

void split_header_cell(std::string_view cell, std::string& name, std::string& unit) {
  std::string_view s = unquote_cell(cell);
  name.assign(s);
  unit.clear();
  auto take = [&](size_t open, size_t close) {
    name.assign(trim_text(s.substr(0, open)));
    unit.assign(trim_text(s.substr(open + 1, close - open - 1)));
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
    if (find_unit(trim_text(s.substr(slash + 1)))) return take(slash, s.size());
  }
  if (const size_t in = s.rfind(" in "); in != std::string_view::npos && in > 0) {
    if (find_unit(trim_text(s.substr(in + 4)))) {
      name.assign(trim_text(s.substr(0, in)));
      unit.assign(trim_text(s.substr(in + 4)));
    }
  }
}

static RawColumns read_columns(TextTable& table, TextInfo* info_out) {
  RawColumns raw;
  const size_t k = table.width();
  raw.names = table.names();
  raw.units = table.units();
  raw.values.resize(k);
  std::vector<double> row;
  while (table.next(row))
    for (size_t c = 0; c < k; ++c) raw.values[c].push_back(row[c]);
  if (info_out) {
    info_out->delimiter = table.dialect().delimiter;
    info_out->decimal_comma = table.dialect().decimal_comma;
    info_out->header = table.dialect().header;
  }
  return raw;
}

RawColumns parse_delimited(std::string_view text, const std::string& source, TextInfo* info_out) {
  TextTable table(text, source);
  return read_columns(table, info_out);
}

std::vector<ColumnSpec> parse_column_specs(const std::string& text) {
  std::vector<ColumnSpec> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    const std::string item(trim_text(std::string_view(text).substr(pos, end - pos)));
    pos = end + 1;
    if (item.empty()) {
      if (end == text.size()) break;
      throw InputError("--columns: empty entry in '" + text + "'");
    }
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("--columns: '" + item + "' is not CHANNEL=COLUMN[:UNIT]");
    ColumnSpec s;
    s.channel = std::string(trim_text(std::string_view(item).substr(0, eq)));
    std::string rest = item.substr(eq + 1);
    const size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      s.unit = std::string(trim_text(std::string_view(rest).substr(colon + 1)));
      rest.resize(colon);
      if (!find_unit(s.unit)) throw InputError("--columns: '" + item + "': unknown unit '" + s.unit + "'");
    }
    s.source = std::string(trim_text(rest));
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
  g.channel = canonical_channel(trim_text(std::string_view(text).substr(0, eq)));
  g.text = std::string(trim_text(std::string_view(text).substr(eq + 1)));
  if (g.channel.empty() || g.text.empty()) throw InputError(usage);
  if (g.channel == "time") throw InputError(option + " '" + text + "': time cannot be scaled (give its unit instead)");
  const size_t comma = g.text.find(',');
  const std::string gain_text(trim_text(std::string_view(g.text).substr(0, comma)));
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
  if (!std::isfinite(x) || x == 0) throw InputError(what + ": gain '" + gain_text + "' must be finite and non-zero");
  const std::string unit(trim_text(std::string_view(ptr, static_cast<size_t>(gs.data() + gs.size() - ptr))));
  g.gain = x;
  if (!unit.empty()) {
    std::string num = unit;
    if (!find_unit(unit)) {
      const size_t slash = unit.rfind('/');
      if (slash == std::string::npos)
        throw InputError(what + ": unknown unit '" + unit + "' in gain '" + gain_text + "' (expected e.g. N/V)");
      num = std::string(trim_text(std::string_view(unit).substr(0, slash)));
      g.raw_unit = std::string(trim_text(std::string_view(unit).substr(slash + 1)));
      if (g.raw_unit.empty()) throw InputError(what + ": gain '" + gain_text + "' names no recorded unit after '/'");
    }
    if (!num.empty()) {
      const auto u = find_unit(num);
      if (!u) throw InputError(what + ": unknown unit '" + num + "' in gain '" + gain_text + "'");
      if (u->offset != 0 || u->absolute_pressure)
        throw InputError(what + ": gain unit '" + num + "' has an offset; give the gain in " + u->si +
                         " (and any "
                         "offset after a comma)");
      g.gain *= u->factor;
      g.unit = num;
      g.has_dimension = true;
      g.dimension = u->dimension;
    }
  }
  if (comma != std::string::npos) {
    const std::string off(trim_text(std::string_view(g.text).substr(comma + 1)));
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
// A header cell that names nothing: empty, or pandas' "Unnamed: 3" for a
// column a spreadsheet left without a name.
bool unnamed_column(const std::string& name) {
  constexpr std::string_view kPandas = "Unnamed: ";
  return name.empty() || (name.rfind(kPandas, 0) == 0 && name.size() > kPandas.size() &&
                          std::isdigit(static_cast<unsigned char>(name[kPandas.size()])));
}

// Plans the scaling of channel g.channel (read as recorded) to SI:
// gain * raw + offset, and the channel attributes that keep it.
void plan_gain(ColumnPlan& plan, const ChannelGain& g, const std::string& source, const std::string& raw_label,
               bool rotational) {
  ColumnPlan::Channel* it = nullptr;
  std::vector<std::string> have;
  for (auto& c : plan.channels) {
    if (c.channel == g.channel) it = &c;
    have.push_back(c.channel);
  }
  if (!it) {
    std::sort(have.begin(), have.end());
    std::string list;
    for (const auto& c : have) list += (list.empty() ? "" : ", ") + c;
    throw InputError(source + ": --gain " + g.channel + "=" + g.text + ": no channel '" + g.channel +
                     "' (channels: " + list + ")");
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
                     dimension_name(g.offset_dimension) + ", channel '" + g.channel + "' needs " +
                     dimension_name(*dim));
  it->affine = true;
  it->factor = g.gain;
  it->offset = g.offset;
  it->minus_ambient = false;
  const std::string si = dim ? si_unit(*dim) : (g.offset_has_dimension ? si_unit(g.offset_dimension) : "1");
  it->unit = si;
  const std::string raw = !g.raw_unit.empty() ? g.raw_unit : raw_label;
  auto& a = plan.channel_attributes[g.channel];
  a["gain"] = format_number(g.gain);
  a["gain_unit"] = si + "/" + (raw.empty() ? "1" : raw);
  a["offset"] = format_number(g.offset);
  a["raw_unit"] = raw.empty() ? "1" : raw;
  a["scaling"] = g.text;
}
}  // namespace

ColumnPlan plan_columns(const std::vector<std::string>& names, const std::vector<std::string>& units,
                        const ReadOptions& o, const std::string& source) {
  std::map<std::string, const ChannelGain*> gained;
  for (const auto& g : o.gains) {
    if (gained.count(g.channel)) throw InputError("--gain given twice for channel '" + g.channel + "'");
    gained[g.channel] = &g;
  }
  std::map<std::string, std::string> raw_labels;  // gained channel -> its column's unit as recorded
  struct Pick {
    size_t col;
    std::string channel, unit;
    bool chosen = false;  // by --columns
  };
  std::vector<Pick> picks;
  const size_t k = names.size();
  auto label = [&](size_t c) {
    return "column " + std::to_string(c) + (names[c].empty() ? "" : " '" + names[c] + "'");
  };
  std::vector<bool> used(k, false);
  // Columns by name and by canonical name, the first two of each, built
  // once: --columns over a header of 1e5 columns stays linear. A name two
  // columns share (an instrument's two "Timestamp"s) is refused where
  // --columns uses it, naming both indices to choose from.
  std::map<std::string, std::pair<size_t, size_t>> by_name, by_channel;
  auto index = [k](std::map<std::string, std::pair<size_t, size_t>>& m, const std::string& key, size_t c) {
    auto [it, fresh] = m.emplace(key, std::make_pair(c, k));
    if (!fresh && it->second.second == k) it->second.second = c;
  };
  if (!o.columns.empty())
    for (size_t c = 0; c < k; ++c) {
      if (names[c].empty()) continue;
      index(by_name, names[c], c);
      index(by_channel, canonical_channel(names[c]), c);
    }
  for (const auto& s : o.columns) {
    size_t col = k;
    const bool numeric = !s.source.empty() && s.source.find_first_not_of("0123456789") == std::string::npos;
    if (numeric) {
      col = s.source.size() > 9 ? k : std::stoul(s.source);
      if (col >= k)
        throw InputError(source + ": --columns " + s.channel + "=" + s.source + ": the file has " + std::to_string(k) +
                         " columns (0 to " + std::to_string(k - 1) + ")");
    } else {
      std::pair<size_t, size_t> hit{k, k};
      if (auto it = by_name.find(s.source); it != by_name.end()) hit = it->second;
      else if (auto ic = by_channel.find(canonical_channel(s.source)); ic != by_channel.end()) hit = ic->second;
      if (hit.first == k) throw InputError(source + ": --columns " + s.channel + "=" + s.source + ": no such column");
      if (hit.second != k)
        throw InputError(source + ": --columns " + s.channel + "=" + s.source + ": " + label(hit.first) + " and " +
                         label(hit.second) + " both match; choose one by its index (--columns " + s.channel + "=" +
                         std::to_string(hit.first) + " or " + s.channel + "=" + std::to_string(hit.second) + ")");
      col = hit.first;
    }
    used[col] = true;
    picks.push_back({col, canonical_channel(s.channel), s.unit.empty() ? units[col] : s.unit, true});
  }
  if (o.columns.empty() || !o.only_mapped) {
    const bool headerless = std::all_of(names.begin(), names.end(), [](const std::string& n) { return n.empty(); });
    if (headerless && std::find(used.begin(), used.end(), false) != used.end())
      throw InputError(source +
                       ": no header row; map the columns with --columns, e.g. "
                       "--columns time=0:s,position=1:mm,force=2:N");
    std::set<std::string> chosen;  // a channel --columns gave a column leaves the others out
    for (const auto& p : picks) chosen.insert(p.channel);
    for (size_t c = 0; c < k; ++c) {
      // Columns without a name (a spreadsheet's ",,," or pandas'
      // "Unnamed: 3") are left out unless mapped by index.
      if (used[c] || unnamed_column(names[c])) continue;
      std::string channel = canonical_channel(names[c]);
      if (chosen.count(channel)) continue;
      picks.push_back({c, std::move(channel), units[c]});
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
  ColumnPlan plan;
  bool any_pressure = false, any_absolute = false;
  std::map<std::string, std::pair<size_t, bool>> seen;  // channel -> column, chosen by --columns
  for (const auto& p : picks) {
    if (auto it = seen.find(p.channel); it != seen.end())
      throw InputError(source + ": " + label(it->second.first) + " and " + label(p.col) + " both map to channel '" +
                       p.channel + "'" +
                       (it->second.second || p.chosen
                            ? std::string()
                            : "; choose one with --columns (e.g. --columns " + p.channel + "=" +
                                  std::to_string(it->second.first) + " --keep-unmapped)"));
    seen[p.channel] = {p.col, p.chosen};
    ColumnPlan::Channel out;
    out.column = p.col;
    out.channel = p.channel;
    const auto dim = channel_dimension(p.channel, rotational);
    out.unit = p.unit;
    if (auto g = gained.find(p.channel); g != gained.end()) {
      // Kept as recorded: the gain scales it to SI (plan_gain below).
      if (!p.unit.empty() && !g->second->raw_unit.empty() && p.unit != g->second->raw_unit)
        throw InputError(source + ": " + label(p.col) + " is in '" + p.unit + "', but --gain " + p.channel + "=" +
                         g->second->text + " scales '" + g->second->raw_unit + "'");
      raw_labels[p.channel] = p.unit;
      out.unit = "1";
      plan.channels.push_back(std::move(out));
      continue;
    }
    if (!p.unit.empty()) {
      const auto u = find_unit(p.unit);
      if (!u) throw InputError(source + ": " + label(p.col) + ": unknown unit '" + p.unit + "'");
      if (dim && *dim != u->dimension)
        throw InputError(source + ": " + label(p.col) + ": unit '" + p.unit + "' is " + dimension_name(u->dimension) +
                         ", channel '" + p.channel + "' needs " + dimension_name(*dim) +
                         (rotational ? " (log is rotational: other columns use angular units)" : ""));
      const bool absolute = u->dimension == Dimension::kPressure && (u->absolute_pressure || o.absolute_pressure);
      out.affine = true;
      out.factor = u->factor;
      out.offset = u->offset - (absolute ? o.ambient_pressure : 0.0);
      out.unit = u->si;
      any_absolute |= absolute;
    } else if (dim) {
      out.unit = si_unit(*dim);  // no unit given: the schema's SI unit
      if (*dim == Dimension::kPressure && o.absolute_pressure) {
        out.minus_ambient = true;
        out.ambient = o.ambient_pressure;
        any_absolute = true;
      }
    }
    any_pressure |= dim && *dim == Dimension::kPressure;
    plan.channels.push_back(std::move(out));
  }
  if (rotational) plan.attributes["motion"] = "rotational";
  if (any_pressure) {
    plan.attributes["pressure_reference"] = "gauge";
    if (any_absolute) plan.attributes["ambient_pressure"] = format_number(o.ambient_pressure);
  }
  for (const auto& g : o.gains) plan_gain(plan, g, source, raw_labels[g.channel], rotational);
  const size_t slash = source.find_last_of('/');
  plan.attributes["source_file"] = slash == std::string::npos ? source : source.substr(slash + 1);
  return plan;
}

Experiment columns_to_experiment(const RawColumns& raw, const ReadOptions& o, const std::string& source,
                                 const std::string& name) {
  const ColumnPlan plan = plan_columns(raw.names, raw.units, o, source);
  Experiment e;
  e.name = name;
  e.source = source;
  for (const auto& c : plan.channels) {
    std::vector<double> v = raw.values[c.column];
    c.apply(v.data(), v.size());
    e.units[c.channel] = c.unit;
    e.channels[c.channel] = std::move(v);
  }
  e.attributes = plan.attributes;
  e.channel_attributes = plan.channel_attributes;
  validate_experiment(e);
  return e;
}

namespace {
TextLayout text_layout(const ReadOptions& o) { return {o.skip_rows, o.header_row}; }

// Columns the plan does not read are not parsed (a spreadsheet's empty
// unnamed ones, a text column nobody mapped); a header found below a
// preamble is kept as the experiment's `header_line` attribute (a table
// without a header: the lines skipped above it, `skipped_lines`).
void fit_table_to_plan(TextTable& table, ColumnPlan& plan) {
  std::vector<bool> ignored(table.width(), true);
  for (const auto& c : plan.channels) ignored[c.column] = false;
  table.ignore_columns(std::move(ignored));
  if (table.preamble_lines() > 0) {
    if (table.header_line() > 0) plan.attributes["header_line"] = std::to_string(table.header_line());
    else plan.attributes["skipped_lines"] = std::to_string(table.preamble_lines());
  }
}
}  // namespace

TextBlocks::TextBlocks(const std::string& path, const ReadOptions& o)
    : table_(std::make_unique<TextTable>(path, text_layout(o))),
      plan_(plan_columns(table_->names(), table_->units(), o, path)) {
  fit_table_to_plan(*table_, plan_);
}

TextBlocks::~TextBlocks() = default;

std::size_t TextBlocks::next(std::vector<std::vector<double>>& columns, std::size_t max_rows) {
  const std::size_t k = plan_.channels.size();
  columns.resize(k);
  for (auto& c : columns) c.resize(max_rows);
  std::size_t n = 0;
  while (n < max_rows && table_->next(row_)) {
    for (std::size_t c = 0; c < k; ++c) columns[c][n] = row_[plan_.channels[c].column];
    ++n;
  }
  for (std::size_t c = 0; c < k; ++c) plan_.channels[c].apply(columns[c].data(), n);
  return n;
}

Experiment read_text_log(const std::string& path, const ReadOptions& o) {
  TextTable table(path, text_layout(o));
  ColumnPlan plan = plan_columns(table.names(), table.units(), o, path);
  fit_table_to_plan(table, plan);
  const RawColumns raw = read_columns(table, nullptr);
  Experiment e = columns_to_experiment(raw, o, path, o.name.empty() ? file_stem(path) : o.name);
  for (const char* key : {"header_line", "skipped_lines"})
    if (auto h = plan.attributes.find(key); h != plan.attributes.end()) e.attributes.insert(*h);
  return e;
}

}  // namespace stribeck::data
