#include "stribeck/data/log.hpp"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <set>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/config_file.hpp"
#include "stribeck/data/output_lock.hpp"
#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "group_attributes.hpp"
#include "log_detail.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/kernels/text_number.hpp"

namespace stribeck::data {
namespace {

using detail::is_results_group;
using detail::kSchemaVersion;
using detail::read_attributes;
using detail::write_attributes;
using detail::write_provenance;

std::string exp_where(const std::string& path, const std::string& name) { return path + ": experiment '" + name + "'"; }

bool is_rotational(const Experiment& e) {
  auto it = e.attributes.find("motion");
  return it != e.attributes.end() && it->second == "rotational";
}

// Reads the channel datasets of one group into an experiment.
Experiment read_experiment(hid_t group, const std::vector<h5::Child>& kids, const std::string& path,
                           const std::string& name) {
  Experiment e;
  e.name = name;
  e.source = path;
  const std::string where = exp_where(path, name);
  read_attributes(group, e.attributes, where);
  const bool rotational = is_rotational(e);
  // Logs from other tools may store absolute pressures (pressure_reference =
  // "absolute"); the toolkit works in gauge pressure.
  const detail::PressureReference ref = detail::pressure_reference(e.attributes, where);
  for (const auto& kid : kids) {
    if (kid.kind != h5::Kind::kDataset) continue;
    const std::string at = where + ": channel '" + kid.name + "'";
    h5::Dataset ds = h5::open_dataset(group, kid.name, at);
    hsize_t length = 0;
    const std::string unit = detail::check_channel_dataset(ds, at, length);
    const detail::ChannelConversion conv = detail::channel_conversion(kid.name, unit, rotational, ref, at);
    std::vector<double> v = h5::read_doubles(ds, at);
    conv.apply(v.data(), v.size());
    e.units[kid.name] = conv.si;
    if (auto a = detail::read_channel_attributes(ds.id(), at); !a.empty())
      e.channel_attributes[kid.name] = std::move(a);
    e.channels[kid.name] = std::move(v);
  }
  detail::mark_gauge(e.attributes, ref);
  return e;
}

// Hard links may make a group its own descendant (a corrupt or odd file);
// each group is visited once, and nesting is limited.
constexpr int kMaxDepth = 32;

void walk(hid_t group, const std::string& path, const std::string& prefix, const detail::ExperimentVisitor& visit,
          std::set<haddr_t>& visited, int depth = 0) {
  H5O_info_t info;
  herr_t inspected = 0;
  {
    const h5::Watched watch(group, [&] { return "inspecting group '" + h5::object_name(group) + "'"; });
    inspected = H5Oget_info2(group, &info, H5O_INFO_BASIC);
  }
  if (inspected < 0) h5::fail(path + ": group '" + prefix + "'", "cannot inspect");
  if (!visited.insert(info.addr).second) return;
  if (depth > kMaxDepth)
    throw InputError(path + ": groups nested deeper than " + std::to_string(kMaxDepth) + " at '" + prefix + "'");
  const std::string gwhere = prefix.empty() ? path : path + ": group '" + prefix + "'";
  const auto kids = h5::children(group, gwhere);
  // A member that cannot be opened stops the read: skipping it would import
  // part of the log as if it were all of it.
  for (const auto& k : kids)
    h5::check_child(k,
                    prefix.empty() ? exp_where(path, k.name) : exp_where(path, prefix) + ": member '" + k.name + "'");
  bool has_data = false;
  for (const auto& k : kids) has_data |= k.kind == h5::Kind::kDataset;
  if (has_data) visit(group, kids, prefix);
  for (const auto& k : kids) {
    if (k.kind != h5::Kind::kGroup) continue;
    const std::string child = prefix.empty() ? k.name : prefix + "/" + k.name;
    h5::Group g = h5::open_group(group, k.name, path + ": group '" + child + "'");
    if (is_results_group(g.id())) continue;
    walk(g.id(), path, child, visit, visited, depth + 1);
  }
}

void check_group_name(const std::string& name, const std::string& where) {
  if (name.empty() || name.front() == '/' || name.back() == '/' || name == "." || name.find("//") != std::string::npos)
    throw InputError(where + ": invalid group name '" + name + "'");
}

void write_experiment(hid_t file, const Experiment& e, const std::string& where_file) {
  const std::string where = exp_where(where_file, e.name);
  h5::Group g = h5::create_group(file, e.name, where);
  h5::Dataset time;
  if (e.has("time")) {
    const auto& t = e.channels.at("time");
    time = h5::write_doubles(g.id(), "time", {t.size()}, t.data(), where);
    h5::write_string_attribute(time.id(), "units", e.units.at("time"), where);
    h5::write_string_attribute(time.id(), "long_name", "time", where);
  }
  const bool rotational = e.attributes.count("motion") && e.attributes.at("motion") == "rotational";
  for (const auto& [ch, v] : e.channels) {
    if (ch == "time") continue;
    h5::Dataset ds = h5::write_doubles(g.id(), ch, {v.size()}, v.data(), where);
    h5::write_string_attribute(ds.id(), "units", e.units.at(ch), where);
    auto extra = e.channel_attributes.find(ch);
    if (const std::string ln = channel_long_name(ch, rotational);
        !ln.empty() && (extra == e.channel_attributes.end() || !extra->second.count("long_name")))
      h5::write_string_attribute(ds.id(), "long_name", ln, where);
    if (extra != e.channel_attributes.end())
      for (const auto& [k, v] : extra->second) h5::write_string_attribute(ds.id(), k, v, where);
    if (time.valid()) h5::attach_scale(ds, time, "time", where + ": channel '" + ch + "'");
  }
  write_attributes(g.id(), e.attributes, where);
}

}  // namespace

namespace detail {

void for_each_experiment_group(hid_t root, const std::string& path, const ExperimentVisitor& visit) {
  std::set<haddr_t> visited;
  walk(root, path, "", visit, visited);
}

PressureReference pressure_reference(const std::map<std::string, std::string>& attributes, const std::string& where) {
  PressureReference r;
  if (auto it = attributes.find("ambient_pressure"); it != attributes.end()) {
    if (!parse_double(it->second, r.ambient))
      throw InputError(where + ": attribute 'ambient_pressure' is not a number: '" + it->second + "'");
  }
  auto it = attributes.find("pressure_reference");
  r.absolute = it != attributes.end() && it->second == "absolute";
  return r;
}

void mark_gauge(std::map<std::string, std::string>& attributes, const PressureReference& ref) {
  if (!ref.absolute) return;
  attributes["pressure_reference"] = "gauge";
  attributes["ambient_pressure"] = format_number(ref.ambient);
}

std::map<std::string, std::string> read_channel_attributes(hid_t dataset, const std::string& at) {
  std::map<std::string, std::string> a;
  for (const char* k : kChannelAttributeKeys)
    if (h5::has_attribute(dataset, k)) a[k] = h5::read_string_attribute(dataset, k, at);
  return a;
}

ChannelConversion channel_conversion(const std::string& channel, const std::string& unit, bool rotational,
                                     const PressureReference& ref, const std::string& at) {
  ChannelConversion c;
  c.si = unit;
  const auto u = find_unit(unit);
  const auto dim = channel_dimension(channel, rotational);
  if (u) {
    if (dim && *dim != u->dimension)
      throw InputError(at + ": unit '" + unit + "' is " + dimension_name(u->dimension) + ", channel needs " +
                       dimension_name(*dim) + (rotational ? " (rotational log)" : ""));
    const double off = u->offset - (u->absolute_pressure ? ref.ambient : 0.0);
    c.factor = u->factor;
    c.offset = off;
    c.affine = u->factor != 1.0 || off != 0.0;
    c.si = u->si;
  } else if (dim) {
    throw InputError(at + ": unknown unit '" + unit + "' (expected " + si_unit(*dim) + ")");
  }
  if (ref.absolute && dim && *dim == Dimension::kPressure && !(u && u->absolute_pressure)) {
    c.minus_ambient = true;
    c.ambient = ref.ambient;
  }
  return c;
}

std::string check_channel_dataset(const h5::Dataset& ds, const std::string& at, hsize_t& length) {
  const h5::DatasetInfo info = h5::dataset_info(ds, at);
  if (info.dims.size() != 1)
    throw InputError(at + ": dataset is " + std::to_string(info.dims.size()) + "-D, expected 1-D");
  if (info.type_class != H5T_FLOAT) throw InputError(at + ": dataset is " + info.type_name() + ", expected float64");
  if (!h5::has_attribute(ds.id(), "units")) throw InputError(at + ": has no 'units' attribute");
  length = info.dims[0];
  return h5::read_string_attribute(ds.id(), "units", at);
}

}  // namespace detail

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string join_command_line(int argc, const char* const* argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (i) s += ' ';
    if (a.empty() || a.find_first_of(" \t\"'\\$") != std::string::npos) {
      s += '\'';
      for (char c : a) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
      s += '\'';
    } else {
      s += a;
    }
  }
  return s;
}

Provenance make_provenance(int argc, const char* const* argv) {
  Provenance p;
  p.toolkit_version = STRIBECK_VERSION;
  p.command_line = join_command_line(argc, argv);
  p.date = utc_now();
  p.device = "cpu";
  return p;
}

void validate_experiment(const Experiment& e) {
  const std::string where = exp_where(e.source, e.name);
  if (e.channels.empty()) throw InputError(where + ": has no channels");
  const bool rotational = is_rotational(e);
  const std::string& ref = e.has("time") ? std::string("time") : e.channels.begin()->first;
  const size_t n = e.channels.at(ref).size();
  for (const auto& [ch, v] : e.channels) {
    const std::string at = where + ": channel '" + ch + "'";
    if (v.empty()) throw InputError(at + ": is empty");
    if (v.size() != n)
      throw InputError(at + ": has " + std::to_string(v.size()) + " samples, channel '" + ref + "' has " +
                       std::to_string(n));
    for (size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i]))
        throw InputError(at + ": value " + (std::isnan(v[i]) ? "NaN" : "Inf") + " at index " + std::to_string(i));
    auto u = e.units.find(ch);
    if (u == e.units.end()) throw InputError(at + ": has no unit");
    if (auto dim = channel_dimension(ch, rotational); dim && u->second != si_unit(*dim))
      throw InputError(at + ": unit '" + u->second + "', expected SI unit '" + si_unit(*dim) + "'");
  }
  if (e.has("time")) {
    const auto& t = e.channels.at("time");
    for (size_t i = 1; i < t.size(); ++i)
      if (!(t[i] > t[i - 1]))
        throw InputError(where + ": channel 'time': " + (t[i] == t[i - 1] ? "repeats" : "decreases") + " at index " +
                         std::to_string(i) + " (" + format_number(t[i - 1]) + " s, then " + format_number(t[i]) +
                         " s); time must increase strictly");
  }
}

std::vector<Experiment> read_log(const std::string& path) {
  h5::File f = h5::open_file(path);
  h5::Group root = h5::open_group(f.id(), "/", path);
  std::vector<Experiment> out;
  detail::for_each_experiment_group(
      root.id(), path, [&](hid_t g, const std::vector<h5::Child>& kids, const std::string& prefix) {
        Experiment e = read_experiment(g, kids, path, prefix.empty() ? file_stem(path) : prefix);
        validate_experiment(e);
        out.push_back(std::move(e));
      });
  if (out.empty()) throw InputError(path + ": no experiments (no group holds channel datasets)");
  return out;
}

void write_log(const std::string& path, const std::vector<Experiment>& experiments, const Provenance& provenance) {
  if (experiments.empty()) throw InputError(path + ": nothing to write (no experiments)");
  std::set<std::string> names;
  for (const auto& e : experiments) {
    check_group_name(e.name, path);
    if (!names.insert(e.name).second) throw InputError(path + ": experiment name '" + e.name + "' appears twice");
    validate_experiment(e);
  }
  AtomicFile out(path);
  h5::guard_write(path, [&] {
    h5::File f = h5::create_file(out.temp_path());
    h5::write_string_attribute(f.id(), "schema", kSchemaVersion, path);
    write_provenance(f.id(), provenance, path);
    for (const auto& e : experiments) write_experiment(f.id(), e, path);
    h5::close_file(f, path);
  });
  out.commit();
}

void append_results(const std::string& path, const Results& r, bool in_place) {
  append_results(path, std::vector<Results>{r}, in_place);
}

void append_results(const std::string& path, const std::vector<Results>& results, bool in_place) {
  for (const Results& r : results) {
    check_group_name(r.group, path);
    const std::string where = path + ": results group '" + r.group + "'";
    for (const auto& d : r.datasets) {
      size_t n = 1;
      for (auto s : d.shape) n *= static_cast<size_t>(s);
      if (d.name.empty() || d.name.find('/') != std::string::npos)
        throw InputError(where + ": invalid dataset name '" + d.name + "'");
      if (n != d.values.size())
        throw InputError(where + ": dataset '" + d.name + "' has " + std::to_string(d.values.size()) +
                         " values for a shape of " + std::to_string(n));
    }
  }
  auto fill_one = [&](hid_t file, const Results& r) {
    const std::string where = path + ": results group '" + r.group + "'";
    // Refuse to touch anything that exists: walk the path one level at a time.
    std::string prefix;
    size_t pos = 0;
    for (;;) {
      const size_t slash = r.group.find('/', pos);
      prefix = r.group.substr(0, slash);
      if (!h5::has_child(file, prefix)) break;
      if (slash == std::string::npos) throw InputError(where + ": already exists; choose another name");
      pos = slash + 1;
    }
    h5::Group g = h5::create_group(file, r.group, where);
    try {
      h5::write_string_attribute(g.id(), "kind", "results", where);
      write_provenance(g.id(), r.provenance, where);
      write_attributes(g.id(), r.attributes, r.numbers, r.flags, where);
      for (const auto& d : r.datasets) {
        std::vector<hsize_t> dims(d.shape.begin(), d.shape.end());
        h5::Dataset ds = h5::write_doubles(g.id(), d.name, dims, d.values.data(), where);
        if (!d.units.empty()) h5::write_string_attribute(ds.id(), "units", d.units, where);
        if (!d.description.empty()) h5::write_string_attribute(ds.id(), "description", d.description, where);
      }
      std::vector<std::string> names;
      for (const auto& d : r.datasets) names.push_back(d.name);
      detail::name_result_dimensions(g.id(), names, where);
    } catch (...) {
      g.reset();
      H5Ldelete(file, r.group.c_str(), H5P_DEFAULT);
      throw;
    }
  };
  auto fill = [&](hid_t file) {
    for (const Results& r : results) fill_one(file, r);
  };
  // Another writer appending to the same file between our copy and our
  // rename would lose its groups (or we ours): one at a time.
  const OutputLock lock = in_place ? OutputLock() : OutputLock(path, OutputLock::Mode::kExclusive);
  std::FILE* probe = std::fopen(path.c_str(), "rb");
  if (!probe) {
    AtomicFile out(path);
    h5::guard_write(path, [&] {
      h5::File f = h5::create_file(out.temp_path());
      h5::write_string_attribute(f.id(), "schema", kSchemaVersion, path);
      fill(f.id());
      h5::close_file(f, path);
    });
    out.commit();
    return;
  }
  std::fclose(probe);
  if (in_place) {
    h5::guard_write(path, [&] {
      h5::File f = h5::open_file(path, /*write=*/true);
      fill(f.id());
      h5::close_file(f, path);
    });
    return;
  }
  // An existing file (a log: identify -o LOG) is never changed in place: the
  // results go into a copy that replaces it only when complete, so a failure
  // (a full disk) leaves it byte for byte as it was.
  { const h5::File check = h5::open_file(path); }  // an HDF5 file, readable: named errors before copying
  // Replacing is allowed by the directory, but a log made read-only is not
  // for us to change.
  if (::access(path.c_str(), W_OK) != 0) throw InputError(path + ": cannot add results to it: " + std::strerror(errno));
  AtomicFile out(path);
  copy_file_contents(path, out);
  h5::guard_write(path, [&] {
    h5::File f(H5Fopen(out.temp_path().c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    if (!f.valid()) h5::fail(path, "cannot open a copy for writing");
    fill(f.id());
    h5::close_file(f, path);
  });
  out.commit();
}

namespace {
void collect_results(hid_t group, const std::string& path, const std::string& prefix, std::vector<std::string>& out,
                     std::set<haddr_t>& seen, int depth) {
  H5O_info_t info;
  const auto inspect = [&] {
    const h5::Watched watch(group, [&] { return "inspecting group '" + h5::object_name(group) + "'"; });
    return H5Oget_info2(group, &info, H5O_INFO_BASIC);
  };
  if (depth > kMaxDepth || inspect() < 0 || !seen.insert(info.addr).second) {
    H5Eclear2(H5E_DEFAULT);
    return;
  }
  for (const auto& k : h5::children(group, path + ": group '" + (prefix.empty() ? "/" : prefix) + "'")) {
    const std::string child = prefix.empty() ? k.name : prefix + "/" + k.name;
    h5::check_child(k, path + ": '" + child + "'");
    if (k.kind != h5::Kind::kGroup) continue;
    h5::Group g = h5::open_group(group, k.name, child);
    if (is_results_group(g.id())) out.push_back(child);
    else collect_results(g.id(), path, child, out, seen, depth + 1);
  }
}
}  // namespace

std::vector<std::string> list_results(const std::string& path) {
  h5::File f = h5::open_file(path);
  h5::Group root = h5::open_group(f.id(), "/", path);
  std::vector<std::string> out;
  std::set<haddr_t> seen;
  collect_results(root.id(), path, "", out, seen, 0);
  return out;
}

Results read_results(const std::string& path, const std::string& group, bool with_datasets) {
  const std::string where = path + ": results group '" + group + "'";
  h5::File f = h5::open_file(path);
  if (!h5::has_child(f.id(), group)) throw InputError(where + ": does not exist");
  h5::Group g = h5::open_group(f.id(), group, where);
  if (!is_results_group(g.id())) throw InputError(where + ": is not a results group (no kind = \"results\")");
  Results r;
  r.group = group;
  std::map<std::string, std::string> attrs;
  read_attributes(g.id(), attrs, where);
  for (const char* p : {"toolkit_version", "command_line", "config", "date", "device"})
    if (h5::has_attribute(g.id(), p)) attrs[p] = h5::read_string_attribute(g.id(), p, where);
  r.provenance.toolkit_version = attrs["toolkit_version"];
  r.provenance.command_line = attrs["command_line"];
  r.provenance.config = attrs["config"];
  r.provenance.date = attrs["date"];
  r.provenance.device = attrs["device"];
  for (const char* p : {"toolkit_version", "command_line", "config", "date", "device", "kind"}) attrs.erase(p);
  r.attributes = std::move(attrs);
  if (!with_datasets) return r;
  for (const auto& k : h5::children(g.id(), where)) {
    const std::string at = where + ": dataset '" + k.name + "'";
    h5::check_child(k, at);
    if (k.kind != h5::Kind::kDataset || h5::is_dimension_scale(g.id(), k.name, where))
      continue;  // coordinates, not results
    h5::Dataset ds = h5::open_dataset(g.id(), k.name, at);
    ResultDataset d;
    d.name = k.name;
    const auto info = h5::dataset_info(ds, at);
    if (info.type_class == H5T_STRING) continue;  // labels (a batch fit's experiment names), not values
    d.shape.assign(info.dims.begin(), info.dims.end());
    if (info.type_class == H5T_INTEGER && info.type_size <= 8) {  // results hold integer columns too
      d.values = h5::allocate_for<double>(ds, h5::element_count(ds, at), at);
      if (!d.values.empty()) h5::read_all(ds, H5T_NATIVE_DOUBLE, d.values.data(), at);
    } else {
      d.values = h5::read_doubles(ds, at);
    }
    if (h5::has_attribute(ds.id(), "units")) d.units = h5::read_string_attribute(ds.id(), "units", at);
    if (h5::has_attribute(ds.id(), "description"))
      d.description = h5::read_string_attribute(ds.id(), "description", at);
    r.datasets.push_back(std::move(d));
  }
  return r;
}

const Experiment& select_experiment(const std::vector<Experiment>& exps, const std::string& name,
                                    const std::string& path) {
  std::string names;
  for (const auto& e : exps) {
    if (!name.empty() && e.name == name) return e;
    names += (names.empty() ? "" : ", ") + e.name;
  }
  if (name.empty() && exps.size() == 1) return exps.front();
  if (name.empty())
    throw InputError(path + ": holds " + std::to_string(exps.size()) + " experiments (" + names +
                     "); choose one with --experiment NAME");
  throw InputError(path + ": no experiment '" + name + "' (has: " + names + ")");
}

std::string file_stem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base.empty() ? "experiment" : base;
}

std::vector<Experiment> read_any_log(const std::string& path, const ReadOptions& options) {
  if (path.empty()) throw InputError("a log path is empty");
  check_input_path(path);
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open: " + std::strerror(errno));
  char head[128] = {0};
  const size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  const std::string_view h(head, got);
  if (got == 0) throw InputError(path + ": file is empty");
  if (h.rfind("MATLAB 5.0 MAT-file", 0) == 0) {
    if (have_mat5_support()) return read_mat5_log(path, options);
    throw InputError(path +
                     ": MATLAB v5/v7 .mat files need libmatio, which this build lacks; in MATLAB run "
                     "save(FILE, VARIABLES..., '-v7.3') or export CSV");
  }
  if (h5::is_hdf5(path)) {
    if (h.rfind("MATLAB 7.3 MAT-file", 0) == 0) return read_mat_log(path, options);
    if (!options.columns.empty())
      throw InputError(path + ": --columns applies to text and MATLAB files, not to HDF5 logs");
    if (!options.gains.empty())
      throw InputError(path +
                       ": --gain applies to text and MATLAB files, not to HDF5 logs (their channels are "
                       "already in SI units)");
    auto exps = read_log(path);
    if (!options.name.empty()) {
      if (exps.size() != 1)
        throw InputError(path + ": --name needs a log with one experiment, this one has " +
                         std::to_string(exps.size()));
      exps.front().name = options.name;
    }
    return exps;
  }
  if (const std::string why = text_encoding_problem(h); !why.empty() && why.rfind("holds a NUL", 0) != 0)
    throw InputError(path + ": " + why);  // UTF-16/32 text: said so, not "binary"
  if (h.find('\0') != std::string_view::npos)
    throw InputError(path + ": not a log: binary content (a NUL byte at byte " + std::to_string(h.find('\0')) +
                     ") that is neither HDF5 nor MATLAB v7.3");
  std::vector<Experiment> v;
  v.push_back(read_text_log(path, options));
  return v;
}

}  // namespace stribeck::data
