#include "stribeck/host/eval.hpp"

#include <array>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck {
namespace {

constexpr size_t kBlock = 4096;  // rows evaluated per model dispatch

// Evaluates one block of samples with the model's per-parameter-set
// coefficients prepared once.
void eval_block(const ModelInfo& model, const std::vector<double>& p,
                const std::vector<Sample<double>>& in, std::vector<double>& out) {
  out.resize(in.size());
  visit_model(model.id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    const auto c = M::prepare(p.data());
    typename M::template State<double> state{};
    for (size_t i = 0; i < in.size(); ++i) out[i] = model_step<M>(c, in[i], state, 0.0);
  });
}

}  // namespace

EvalSummary evaluate_file(const EvalOptions& o) {
  if (eval_needs_log_path(o)) return evaluate_log(o);
  const ModelInfo& model = require_model(o.model);
  if (model.dynamic)
    throw InputError("model " + model.id + " is dynamic; eval of dynamic models needs a time channel "
                     "and is not supported yet");
  const std::vector<double> p = resolve_params(model, o.params);

  CsvReader reader(o.input);
  if (reader.column("model_force") >= 0)
    throw InputError(o.input + ": input already has a column named 'model_force'");
  // Column index of every channel the model reads (-1: not needed).
  std::array<int, 4> col{-1, -1, -1, -1};
  for (size_t k = 0; k < 4; ++k) {
    const Channel ch = kAllChannels[k];
    if (!model.needs(ch)) continue;
    col[k] = reader.column(channel_name(ch));
    if (col[k] < 0)
      throw InputError(o.input + ": model " + model.id + " needs a '" + channel_name(ch) +
                       "' column, the header has none");
  }

  AtomicFile out(o.output);
  std::FILE* f = out.stream();
  EvalSummary summary;
  summary.columns = reader.columns();
  summary.columns.push_back("model_force");
  std::string text;
  for (size_t i = 0; i < summary.columns.size(); ++i) text += (i ? "," : "") + summary.columns[i];
  text += '\n';

  std::vector<double> values;
  std::vector<std::string_view> cells;
  std::vector<Sample<double>> block;
  std::vector<std::string> rows;  // input cells of the block, already joined
  std::vector<double> forces;
  auto flush = [&] {
    eval_block(model, p, block, forces);
    for (size_t i = 0; i < block.size(); ++i) {
      text += rows[i];
      text += ',';
      append_double(text, forces[i]);
      text += '\n';
    }
    if (std::fwrite(text.data(), 1, text.size(), f) != text.size())
      throw InputError(o.output + ": write failed");
    summary.samples += static_cast<long>(block.size());
    text.clear();
    block.clear();
  };
  rows.resize(kBlock);
  while (reader.next(values, cells)) {
    auto get = [&](size_t k) { return col[k] >= 0 ? values[col[k]] : 0.0; };
    std::string& row = rows[block.size()];
    row.clear();
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) row += ',';
      row.append(cells[i]);
    }
    block.push_back(Sample<double>{get(0), get(1), get(2), get(3)});
    if (block.size() == kBlock) flush();
  }
  if (!block.empty() || !text.empty()) flush();
  if (summary.samples == 0) throw InputError(o.input + ": no data rows after the header");
  out.commit();
  return summary;
}

}  // namespace stribeck
