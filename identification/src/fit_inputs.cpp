// Which experiments a fit reads, and whether it streams (fit_inputs.hpp).
#include "stribeck/identification/fit_inputs.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "stribeck/data/error.hpp"
#include "stribeck/data/log_blocks.hpp"

namespace stribeck::ident {
namespace {

std::string file_stem(const std::string& path) {
  const std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.find_last_of('.'));
}

bool wanted(const std::vector<std::string>& only, const std::string& name) {
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

void check_found(const std::vector<std::string>& only, const std::set<std::string>& found) {
  for (const auto& n : only)
    if (!found.count(n)) throw data::InputError("--experiment: no experiment named '" + n + "' in the given log(s)");
}

StreamPlan in_memory(std::string why) { return {{}, std::move(why)}; }

}  // namespace

StreamPlan plan_stream(const StreamRequest& q, const FitOptions& o) {
  if (q.mode == StreamMode::kNever) return in_memory("--stream never");
  if (q.batch) return in_memory("--batch fits each experiment in memory");
  if (q.converted) return in_memory("--columns/--gain apply to text and MATLAB logs");
  for (const auto& m : q.models)
    if (std::string why = streaming_unsupported(m, o); !why.empty()) return in_memory(why);
  StreamPlan plan;
  std::set<std::string> found;
  std::map<std::string, int> count;
  std::vector<std::string> stems;
  long total = 0;
  for (const auto& path : q.logs) {
    if (!data::is_hdf5_log(path)) return in_memory(path + " is not an HDF5 log");
    for (const auto& e : data::list_log_experiments(path)) {
      if (!wanted(q.experiments, e)) continue;
      found.insert(e);
      data::LogBlockReader r(path, e);
      if (!r.has("velocity")) return in_memory(r.where() + " has no velocity channel (it is derived in memory)");
      for (const char* ch : {"velocity", "acceleration"})
        if (r.attributes().count(std::string("derived_") + ch) && (ch[0] == 'v' || o.inertia))
          return in_memory(r.where() + ": its " + ch + " was derived (it is derived again in memory)");
      if (o.inertia && !r.has("acceleration"))
        return in_memory(r.where() + " has no acceleration channel (it is derived in memory)");
      total += static_cast<long>(r.length());
      plan.logs.push_back({path, e, e});
      stems.push_back(file_stem(path));
      ++count[e];
    }
  }
  check_found(q.experiments, found);
  for (size_t i = 0; i < plan.logs.size(); ++i)
    if (count[plan.logs[i].name] > 1) plan.logs[i].name = stems[i] + ":" + plan.logs[i].name;
  if (q.mode == StreamMode::kAuto && total <= kStreamSamples) return in_memory("the logs are short");
  return plan;
}

std::vector<data::Experiment> load_fit_experiments(const std::vector<std::string>& logs,
                                                   const std::vector<std::string>& experiments,
                                                   const data::ReadOptions& ro) {
  std::vector<std::vector<data::Experiment>> per_log;
  std::set<std::string> found;
  for (const auto& path : logs) {
    std::vector<data::Experiment> kept;
    for (auto& e : data::read_any_log(path, ro))
      if (wanted(experiments, e.name)) {
        found.insert(e.name);
        kept.push_back(std::move(e));
      }
    per_log.push_back(std::move(kept));
  }
  check_found(experiments, found);
  std::map<std::string, int> count;
  for (const auto& l : per_log)
    for (const auto& e : l) ++count[e.name];
  std::vector<data::Experiment> all;
  for (size_t i = 0; i < per_log.size(); ++i)
    for (auto& e : per_log[i]) {
      if (count[e.name] > 1) e.name = file_stem(logs[i]) + ":" + e.name;
      all.push_back(std::move(e));
    }
  return all;
}

}  // namespace stribeck::ident
