// The one merge of shard files (engine/merge.hpp).
#include "stribeck/engine/merge.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "stribeck/data/paths.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/engine/checkpoint.hpp"

namespace stribeck::engine {
namespace {

std::uint64_t parse_u64(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end) throw data::InputError(where + ": '" + text + "' is not a count");
  return v;
}

}  // namespace

std::vector<std::size_t> order_shards(const std::vector<ShardSpan>& shards, const ShardWords& words,
                                      const std::function<bool(std::size_t i, std::size_t i0)>& same_run) {
  std::vector<std::size_t> order(shards.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const ShardSpan &x = shards[a], &y = shards[b];
    return x.first != y.first ? x.first < y.first : x.count < y.count;
  });
  if (order.empty()) throw data::InputError("merge: no input files");
  const ShardSpan& s0 = shards[order[0]];
  std::uint64_t next = 0;
  for (std::size_t i : order) {
    const ShardSpan& sh = shards[i];
    if (!same_run(i, order[0]))
      throw data::InputError(sh.path + ": belongs to a different " + words.run + " than " + s0.path + " (" + words.why +
                             ")");
    if (sh.first != next)
      throw data::InputError(sh.path + ": shard starts at " + words.unit + " " + std::to_string(sh.first) +
                             ", expected " + std::to_string(next) +
                             (sh.first < next ? " (overlapping shards)" : " (a shard is missing)"));
    next = sh.first + sh.count;
  }
  if (next != s0.points)
    throw data::InputError(shards[order.back()].path + ": the last shard ends at " + words.unit + " " +
                           std::to_string(next) + " of " + std::to_string(s0.points) + " (a shard is missing)");
  return order;
}

bool is_shard_file(const std::string& path, const ShardFormat& format) {
  try {
    if (!std::ifstream(path)) return false;
    const data::h5::File f = data::h5::open_file(path);  // attributes only: shard files can be large
    if (!data::h5::has_child(f.id(), format.group)) return false;
    const data::h5::Group g = data::h5::open_group(f.id(), format.group, path);
    return data::h5::has_attribute(g.id(), format.identity);
  } catch (const std::exception&) {
    return false;
  }
}

void merge_shard_files(const ShardFormat& format, const std::vector<std::string>& inputs, const std::string& output,
                       const std::string& command_line) {
  if (inputs.empty()) throw data::InputError("merge: no input files");
  for (const auto& in : inputs)
    if (!is_shard_file(in, format)) throw data::InputError(in + ": not " + format.not_a_shard);
  struct Shard {
    std::map<std::string, std::string> attributes;
    std::string device, config;
    std::vector<data::StreamColumn> columns;
  };
  // Attributes and dataset shapes only; the rows are streamed below.
  std::vector<Shard> shards;
  std::vector<ShardSpan> spans;
  for (const auto& in : inputs) {
    const std::string at = in + ": group '" + format.group + "'";
    data::Results head = data::read_results(in, format.group, /*with_datasets=*/false);
    Shard sh{std::move(head.attributes), head.provenance.device, head.provenance.config, {}};
    auto& a = sh.attributes;
    {
      const data::h5::File f = data::h5::open_file(in);
      const data::h5::Group g = data::h5::open_group(f.id(), format.group, at);
      if (data::h5::has_attribute(g.id(), "checkpoint_rows"))
        throw data::InputError(in + ": the shard is not finished (resume it first)");
    }
    for (const auto& k : format.required)
      if (!a.count(k)) throw data::InputError(at + ": no attribute '" + k + "'");
    const ShardSpan span{in, parse_u64(a["points"], at + ": attribute 'points'"),
                         parse_u64(a["first"], at + ": attribute 'first'"),
                         parse_u64(a["count"], at + ": attribute 'count'")};
    sh.columns = format.columns(in, a, at);
    const data::h5::File f = data::h5::open_file(in);
    const data::h5::Group g = data::h5::open_group(f.id(), format.group, at);
    for (const data::StreamColumn& c : sh.columns) {
      const ColumnSource src = format.source ? format.source(a, c.name) : ColumnSource{};
      const std::string name = src.table.empty() ? c.name : src.table;
      bool ok = data::h5::has_child(g.id(), name);
      if (ok) {
        const auto info =
            data::h5::dataset_info(data::h5::open_dataset(g.id(), name, at), at + ": dataset '" + name + "'");
        // float64, or (integer fields, since the columns carry their dtype) an integer
        ok = (info.type_class == H5T_FLOAT || info.type_class == H5T_INTEGER) && !info.dims.empty() &&
             info.dims[0] == span.count &&
             (!src.table.empty() ? info.dims.size() == 2 && info.dims[1] > src.column
              : c.width          ? info.dims.size() == 2 && info.dims[1] == c.width
                                 : info.dims.size() == 1);
      }
      if (!ok)
        throw data::InputError(at + ": dataset '" + name + "' is missing or does not hold " +
                               std::to_string(span.count) + " " + format.words.unit + "s");
    }
    shards.push_back(std::move(sh));
    spans.push_back(span);
  }
  const std::vector<std::size_t> order = order_shards(spans, format.words, [&](std::size_t i, std::size_t i0) {
    for (const auto& k : format.agree)
      if (shards[i].attributes.at(k) != shards[i0].attributes.at(k)) return false;
    return true;
  });
  const Shard& s0 = shards[order[0]];
  const std::uint64_t points = spans[order[0]].points;

  std::map<std::string, std::string> attributes = s0.attributes;
  attributes["first"] = "0";
  attributes["count"] = std::to_string(points);
  attributes["shard_index"] = "0";
  attributes["shard_count"] = "1";
  attributes["merged_from"] = std::to_string(shards.size()) + " shards";
  for (const auto& [k, v] : format.written) attributes[k] = v;
  // The counts by status, summed where every shard has them.
  for (const std::string& k : count_attribute_names()) {
    std::uint64_t sum = 0;
    bool all = true;
    for (std::size_t i = 0; i < shards.size() && all; ++i) {
      const auto it = shards[i].attributes.find(k);
      all = it != shards[i].attributes.end();
      if (all) sum += parse_u64(it->second, spans[i].path + ": group '" + format.group + "': attribute '" + k + "'");
    }
    if (all) attributes[k] = std::to_string(sum);
    else attributes.erase(k);
  }
  std::string devices;
  for (std::size_t i : order)
    if (devices.find(shards[i].device) == std::string::npos)
      devices += (devices.empty() ? "" : "; ") + shards[i].device;
  data::Provenance p;
  p.command_line = command_line;
  p.config = s0.config;
  p.device = "merged from " + std::to_string(shards.size()) + " shards: " + devices;
  const std::vector<data::StreamColumn>& columns = s0.columns;
  auto stream = data::ResultsStream::create(output, format.group, columns, attributes, p, points, /*resumable=*/false);
  try {
    for (const data::StreamColumn& c : format.text ? format.text(s0.attributes) : std::vector<data::StreamColumn>{}) {
      std::vector<std::string> values;
      for (std::size_t i : order) {
        std::vector<std::string> v = data::read_text_column(spans[i].path, format.group, c.name);
        if (v.size() != spans[i].count)
          throw data::InputError(spans[i].path + ": group '" + format.group + "': dataset '" + c.name + "' holds " +
                                 std::to_string(v.size()) + " values for " + std::to_string(spans[i].count) + " " +
                                 format.words.unit + "s");
        values.insert(values.end(), v.begin(), v.end());
      }
      stream->write_text(c, values);
    }
    const std::uint64_t block = 1 << 16;
    std::vector<std::vector<double>> cols(columns.size());
    std::uint64_t rows = 0;
    for (std::size_t i : order) {
      const ShardSpan& sh = spans[i];
      const data::h5::File f = data::h5::open_file(sh.path);
      const data::h5::Group g = data::h5::open_group(f.id(), format.group, sh.path);
      std::vector<ColumnSource> sources(columns.size());
      if (format.source)
        for (std::size_t k = 0; k < columns.size(); ++k)
          sources[k] = format.source(shards[i].attributes, columns[k].name);
      for (std::uint64_t at = 0; at < sh.count; at += block) {
        const std::uint64_t n = std::min(block, sh.count - at);
        std::vector<const double*> data;
        std::map<std::string, std::vector<double>> tables;  // an older layout's tables, read once a block
        for (std::size_t k = 0; k < columns.size(); ++k) {
          const ColumnSource& src = sources[k];
          const std::string name = src.table.empty() ? columns[k].name : src.table;
          const std::string where = sh.path + ": group '" + format.group + "': dataset '" + name + "'";
          const data::h5::Dataset ds = data::h5::open_dataset(g.id(), name, sh.path);
          cols[k].resize(n * std::max<std::uint64_t>(columns[k].width, 1));
          if (src.table.empty()) {
            data::h5::read_rows(ds, H5T_NATIVE_DOUBLE, at, n, cols[k].data(), where);
          } else {
            const std::uint64_t w = data::h5::dataset_info(ds, where).dims.at(1);
            auto& t = tables[name];
            if (t.empty()) {
              t.resize(n * w);
              data::h5::read_rows(ds, H5T_NATIVE_DOUBLE, at, n, t.data(), where);
            }
            for (std::uint64_t r = 0; r < n; ++r) cols[k][r] = t[r * w + src.column];
          }
          data.push_back(cols[k].data());
        }
        stream->append(n, data);
        rows += n;
      }
    }
    data::StreamCheckpoint done;
    done.rows = done.completed = rows;
    if (format.tables) {
      std::vector<std::string> paths;
      for (std::size_t i : order) paths.push_back(spans[i].path);
      done.tables = format.tables(paths);
    }
    stream->checkpoint(done);
    stream->finish();
  } catch (...) {
    stream.reset();  // a merge is not resumable: no OUT.partial is left behind
    std::remove(data::partial_path(output).c_str());
    throw;
  }
}

}  // namespace stribeck::engine
