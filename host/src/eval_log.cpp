// `stribeck eval` on HDF5 logs and .mat files, and with HDF5 output.
//
// The CSV path in eval.cpp is the one implementation of evaluation (blocks,
// dynamic-model state, column checks); rather than duplicating it, an
// experiment read from a log is handed to it as a temporary SI CSV (written
// with shortest round-trip numbers, so no value changes), and for .h5 output
// the model columns are read back from its temporary CSV result.
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/host/eval.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/host/version.hpp"

namespace stribeck {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// A uniquely named file in $TMPDIR (or /tmp), removed on destruction.
class TempFile {
 public:
  explicit TempFile(const char* tag) {
    const char* dir = std::getenv("TMPDIR");
    std::string pattern = std::string(dir && *dir ? dir : "/tmp") + "/stribeck_" + tag + "_XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    const int fd = ::mkstemp(buf.data());
    if (fd < 0) throw InputError(pattern + ": cannot create a temporary file: " + std::strerror(errno));
    ::close(fd);
    path_ = buf.data();
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

bool eval_needs_log_path(const EvalOptions& o) {
  if (ends_with(o.output, ".h5") || ends_with(o.output, ".hdf5") || h5::is_hdf5(o.input)) return true;
  // A CSV that lacks a channel the model needs under its bare SI name but
  // whose header carries units ("velocity [mm/s]", as `stribeck export`
  // writes) or aliases ("v", "p_A") goes through the converting reader;
  // everything else streams through the fast path unchanged.
  try {
    const ModelInfo* model = find_model(o.model);
    if (!model) return false;
    CsvReader reader(o.input);
    bool complete = true;
    for (Channel c : kAllChannels) complete &= !model->needs(c) || reader.column(channel_name(c)) >= 0;
    if (complete) return false;
    for (const auto& c : reader.columns()) {
      std::string name, unit;
      split_header_cell(c, name, unit);
      if (!unit.empty() || canonical_channel(name) != name) return true;
    }
  } catch (const InputError&) {
    // The fast path reports the problem with its line and column.
  }
  return false;
}

EvalSummary evaluate_log(const EvalOptions& o) {
  const ModelInfo& model = require_model(o.model);
  const std::vector<double> params = resolve_params(model, o.params);  // fail before reading a large log
  const auto exps = read_any_log(o.input);
  const Experiment& e = select_experiment(exps, o.experiment, o.input);
  for (const char* name : {"model_force", "model_state"})
    if (e.has(name)) throw InputError(o.input + ": experiment '" + e.name + "' already has a channel '" + name + "'");

  for (Channel c : kAllChannels)
    if (model.needs(c) && !e.has(channel_name(c)))
      throw InputError(o.input + ": experiment '" + e.name + "' has no channel '" + channel_name(c) + "', which model " +
                       model.id + " reads" +
                       (c == kChannelPressureB ? " (single-chamber rig: import with --constant pressure_b=0)" : ""));

  TempFile in_csv("eval_in");
  write_csv(in_csv.path(), e, ',', /*units_in_header=*/false);
  EvalOptions inner = o;
  inner.input = in_csv.path();
  inner.experiment.clear();
  const bool h5_out = ends_with(o.output, ".h5") || ends_with(o.output, ".hdf5");
  TempFile out_csv("eval_out");
  inner.output = h5_out ? out_csv.path() : o.output;
  EvalSummary summary;
  try {
    summary = evaluate_file(inner);
  } catch (const InputError& err) {
    // Name the user's file, not the temporary CSV, in the message.
    std::string msg = err.what();
    const std::string where = o.input + ": experiment '" + e.name + "'";
    for (size_t at; (at = msg.find(in_csv.path())) != std::string::npos;) msg.replace(at, in_csv.path().size(), where);
    throw InputError(msg);
  }
  if (!h5_out) return summary;

  // Pick the model columns out of the CSV result.
  CsvReader reader(out_csv.path());
  const int force_col = reader.column("model_force"), state_col = reader.column("model_state");
  std::vector<double> force, state, values;
  std::vector<std::string_view> cells;
  while (reader.next(values, cells)) {
    force.push_back(values[static_cast<size_t>(force_col)]);
    if (state_col >= 0) state.push_back(values[static_cast<size_t>(state_col)]);
  }
  Results r;
  r.group = "eval/" + model.id;
  r.datasets.push_back({"model_force", {force.size()}, std::move(force), model.output_unit,
                        "model force at every sample of experiment '" + e.name + "'"});
  if (state_col >= 0)
    r.datasets.push_back({"model_state", {state.size()}, std::move(state), "", "internal state of the dynamic model"});
  std::string ptext;
  for (size_t k = 0; k < model.params.size(); ++k)
    ptext += (k ? "," : "") + std::string(model.params[k].name) + "=" + format_number(params[k]);
  r.attributes = {{"model", model.id}, {"parameters", ptext}, {"experiment", e.name}, {"input", o.input}};
  r.provenance.toolkit_version = version();
  r.provenance.command_line = "stribeck eval --model " + model.id + " --input " + o.input + " --output " + o.output;
  r.provenance.device = "cpu";

  Experiment measured = e;
  measured.name = e.name;
  AtomicFile out(o.output);
  out.fill([&] {
    write_log(out.temp_path(), {measured}, r.provenance);
    append_results(out.temp_path(), r, /*in_place=*/true);
  });
  out.commit();
  return summary;
}

}  // namespace stribeck
