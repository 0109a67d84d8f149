// Which inputs of `stribeck eval` the plain CSV stream cannot take (eval.cpp
// holds the engine and every source and sink).
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "stribeck/data/csv_reader.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/hdf5.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/units.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/text_export.hpp"
#include "stribeck/workloads/eval.hpp"
#include "stribeck/workloads/params.hpp"
#include "stribeck/workloads/version.hpp"

namespace stribeck::workloads {
namespace {

bool ends_with(const std::string& s, const char* suffix) {
  const size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

}  // namespace

bool eval_needs_log_path(const EvalOptions& o) {
  if (ends_with(o.output, ".h5") || ends_with(o.output, ".hdf5") || data::h5::is_hdf5(o.input)) return true;
  // A CSV that lacks a channel the model needs under its bare SI name but
  // whose header carries units ("velocity [mm/s]", as `stribeck export`
  // writes) or aliases ("v", "p_A") goes through the converting reader;
  // everything else streams through the fast path unchanged.
  try {
    const ModelInfo* model = find_model(o.model);
    if (!model) return false;
    data::CsvReader reader(o.input);
    // Units in the header cells or in a units row: convert to SI.
    for (const auto& u : reader.units())
      if (!u.empty()) return true;
    bool complete = true;
    for (Channel c : kAllChannels) complete &= !model->needs(c) || reader.column(channel_name(c)) >= 0;
    if (complete) return false;
    for (const auto& c : reader.columns())
      if (data::canonical_channel(c) != c) return true;
  } catch (const data::InputError&) {
    // The fast path reports the problem with its line and column.
  }
  return false;
}

}  // namespace stribeck::workloads
