// Delimited text → RawColumns → Experiment.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/text_table.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck {
namespace {

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

ColumnPlan plan_columns(const std::vector<std::string>& names, const std::vector<std::string>& units,
                        const ReadOptions& o, const std::string& source) {
  struct Pick {
    size_t col;
    std::string channel, unit;
  };
  std::vector<Pick> picks;
  const size_t k = names.size();
  auto label = [&](size_t c) {
    return "column " + std::to_string(c) + (names[c].empty() ? "" : " '" + names[c] + "'");
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
        if (names[c] == s.source) col = c;
      if (col == k)
        for (size_t c = 0; c < k; ++c)
          if (canonical_channel(names[c]) == canonical_channel(s.source)) col = c;
      if (col == k) throw InputError(source + ": --columns " + s.channel + "=" + s.source + ": no such column");
    }
    used[col] = true;
    picks.push_back({col, canonical_channel(s.channel), s.unit.empty() ? units[col] : s.unit});
  }
  if (o.columns.empty() || !o.only_mapped) {
    for (size_t c = 0; c < k; ++c) {
      if (used[c]) continue;
      if (names[c].empty())
        throw InputError(source + ": no header row; map the columns with --columns, e.g. "
                                  "--columns time=0:s,position=1:mm,force=2:N");
      picks.push_back({c, canonical_channel(names[c]), units[c]});
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
  std::map<std::string, size_t> seen;
  for (const auto& p : picks) {
    if (auto it = seen.find(p.channel); it != seen.end())
      throw InputError(source + ": " + label(it->second) + " and " + label(p.col) + " both map to channel '" +
                       p.channel + "'");
    seen[p.channel] = p.col;
    ColumnPlan::Channel out;
    out.column = p.col;
    out.channel = p.channel;
    const auto dim = channel_dimension(p.channel, rotational);
    out.unit = p.unit;
    if (!p.unit.empty()) {
      const auto u = find_unit(p.unit);
      if (!u) throw InputError(source + ": " + label(p.col) + ": unknown unit '" + p.unit + "'");
      if (dim && *dim != u->dimension)
        throw InputError(source + ": " + label(p.col) + ": unit '" + p.unit + "' is " +
                         dimension_name(u->dimension) + ", channel '" + p.channel + "' needs " +
                         dimension_name(*dim) + (rotational ? " (log is rotational: other columns use angular units)" : ""));
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
  validate_experiment(e);
  return e;
}

TextBlocks::TextBlocks(const std::string& path, const ReadOptions& o)
    : table_(std::make_unique<TextTable>(path)),
      plan_(plan_columns(table_->names(), table_->units(), o, path)) {}

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
  TextTable table(path);
  const RawColumns raw = read_columns(table, nullptr);
  return columns_to_experiment(raw, o, path, o.name.empty() ? file_stem(path) : o.name);
}

}  // namespace stribeck
