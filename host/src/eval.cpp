#include "stribeck/host/eval.hpp"

#include <array>
#include <cmath>
#include <functional>

#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/params.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck {
namespace {

constexpr size_t kBlock = 4096;  // rows evaluated per model dispatch

// Evaluates blocks of samples with the model's coefficients prepared once and
// its state carried from block to block (static laws: empty state).
class BlockEvaluator {
 public:
  BlockEvaluator(const ModelInfo& model, const std::vector<double>& p, double z0) {
    visit_model(model.id.c_str(), [&](auto tag) {
      using M = typename decltype(tag)::type;
      const auto c = M::prepare(p.data());
      typename M::template State<double> state{};
      if constexpr (M::kDynamic) state.z = z0;
      bool first = true;
      run_ = [c, state, first](const std::vector<Sample<double>>& in, const std::vector<double>& dt,
                               std::vector<double>& force, std::vector<double>& z) mutable {
        for (size_t i = 0; i < in.size(); ++i) {
          if constexpr (M::kDynamic) {
            if (first) state.v_prev = in[i].v;  // no interval before the first sample
            first = false;
            force[i] = model_step<M>(c, in[i], state, dt[i]);
            z[i] = state.z;
          } else {
            force[i] = model_step<M>(c, in[i], state, 0.0);
          }
        }
      };
    });
  }
  void operator()(const std::vector<Sample<double>>& in, const std::vector<double>& dt,
                  std::vector<double>& force, std::vector<double>& z) {
    force.resize(in.size());
    z.resize(in.size());
    run_(in, dt, force, z);
  }

 private:
  std::function<void(const std::vector<Sample<double>>&, const std::vector<double>&,
                     std::vector<double>&, std::vector<double>&)>
      run_;
};

}  // namespace

EvalSummary evaluate_file(const EvalOptions& o) {
  if (eval_needs_log_path(o)) return evaluate_log(o);
  const ModelInfo& model = require_model(o.model);
  const std::vector<double> p = resolve_params(model, o.params);
  if (o.initial_state && !model.dynamic)
    throw InputError("--initial-state: model " + model.id + " is static and has no state");
  if (o.initial_state && !std::isfinite(*o.initial_state))
    throw InputError("--initial-state: not a finite number");

  CsvReader reader(o.input);
  for (const char* name : {"model_force", "model_state"})
    if (reader.column(name) >= 0)
      throw InputError(o.input + ": input already has a column named '" + name + "'");
  int time_col = -1;
  if (model.dynamic) {
    time_col = reader.column("time");
    if (time_col < 0)
      throw InputError(o.input + ": model " + model.id + " is dynamic and needs a 'time' column [s], "
                       "the header has none");
  }
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
  EvalSummary summary;
  summary.columns = reader.columns();
  summary.columns.push_back("model_force");
  if (model.dynamic) summary.columns.push_back("model_state");
  summary.warnings = param_warnings(model, p.data());
  BlockEvaluator eval(model, p, o.initial_state.value_or(0.0));
  std::string text;
  for (size_t i = 0; i < summary.columns.size(); ++i) text += (i ? "," : "") + summary.columns[i];
  text += '\n';

  std::vector<double> values;
  std::vector<std::string_view> cells;
  std::vector<Sample<double>> block;
  std::vector<std::string> rows;  // input cells of the block, already joined
  std::vector<double> forces, states, dts;
  double t_prev = 0.0;
  auto flush = [&] {
    eval(block, dts, forces, states);
    for (size_t i = 0; i < block.size(); ++i) {
      // Valid parameters and finite inputs can still overflow (pressures of
      // 1e308, a v_th of 1e-320): a force that is not a number is an error,
      // not a row of the output.
      if (!std::isfinite(forces[i]) || (model.dynamic && !std::isfinite(states[i])))
        throw InputError(o.input + ": data row " + std::to_string(summary.samples + static_cast<long>(i) + 1) + ": the " +
                         model.id + " force is " + format_number(forces[i]) +
                         " (the inputs and parameters overflow double precision there); nothing written");
      text += rows[i];
      text += ',';
      append_double(text, forces[i]);
      if (model.dynamic) {
        text += ',';
        append_double(text, states[i]);
      }
      text += '\n';
    }
    out.write(text);
    summary.samples += static_cast<long>(block.size());
    text.clear();
    block.clear();
    dts.clear();
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
    double dt = 0.0;
    if (time_col >= 0) {
      const double t = values[time_col];
      if (summary.samples + static_cast<long>(block.size()) > 1) {
        dt = t - t_prev;
        if (!(dt > 0.0))
          throw InputError(o.input + ":" + std::to_string(reader.line()) + ": time " + format_number(t) +
                           " does not increase (previous " + format_number(t_prev) + ")");
      }
      t_prev = t;
    }
    dts.push_back(dt);
    if (block.size() == kBlock) flush();
  }
  if (!block.empty() || !text.empty()) flush();
  if (summary.samples == 0) throw InputError(o.input + ": no data rows after the header");
  out.commit();
  return summary;
}

}  // namespace stribeck
