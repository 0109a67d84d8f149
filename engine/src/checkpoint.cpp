// The one checkpoint format and the shared status column (engine/checkpoint.hpp).
#include "stribeck/engine/checkpoint.hpp"

#include <cstdlib>

#include "stribeck/data/error.hpp"

namespace stribeck::engine {
namespace {

// A PointStatus name as one word (CF flag meanings and attribute names).
std::string status_word(int s) { return data::flag_word(point_status_name(static_cast<PointStatus>(s))); }

[[noreturn]] void corrupt(const std::string& where) {
  throw data::InputError(where + ": corrupt checkpoint; remove it and run without --resume");
}

std::uint64_t number(const std::string& text, const std::string& where) {
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end || text[0] == '-') corrupt(where);
  return static_cast<std::uint64_t>(v);
}

}  // namespace

std::string joined_counts(const std::uint64_t* counts, std::size_t n) {
  std::string s;
  for (std::size_t k = 0; k < n; ++k) s += (k ? "," : "") + std::to_string(counts[k]);
  return s;
}

data::StreamCheckpoint make_checkpoint(std::uint64_t rows, const Totals& t, std::map<std::string, std::string> extra,
                                       std::vector<data::StreamTable> tables) {
  data::StreamCheckpoint cp;
  cp.rows = rows;
  cp.completed = t.completed;
  cp.state = std::move(extra);
  cp.state["completed"] = std::to_string(t.completed);
  cp.state["status_counts"] = joined_counts(t.status_counts, kPointStatusCount);
  for (std::size_t i = 0; i < t.invalid_examples.size(); ++i)
    cp.state["invalid_example_" + std::to_string(i)] = t.invalid_examples[i];
  cp.tables = std::move(tables);
  return cp;
}

std::uint64_t state_count(const data::StreamCheckpoint& cp, const std::string& key, const std::string& where) {
  const auto it = cp.state.find(key);
  if (it == cp.state.end()) corrupt(where);
  return number(it->second, where);
}

std::vector<std::uint64_t> state_counts(const data::StreamCheckpoint& cp, const std::string& key, std::size_t n,
                                        const std::string& where) {
  const auto it = cp.state.find(key);
  if (it == cp.state.end()) corrupt(where);
  std::vector<std::uint64_t> v;
  for (const std::string& count : data::split_names(it->second)) v.push_back(number(count, where));
  if (v.size() != n) corrupt(where);
  return v;
}

void restore_totals(const data::StreamCheckpoint& cp, std::uint64_t count, Totals& t, const std::string& where) {
  t = Totals{};
  if (cp.rows == 0 && cp.state.empty()) return;  // killed before its first chunk: nothing to restore
  t.completed = cp.state.count("completed") ? state_count(cp, "completed", where) : cp.rows;
  const std::vector<std::uint64_t> counts = state_counts(cp, "status_counts", kPointStatusCount, where);
  std::uint64_t sum = 0;
  for (int k = 0; k < kPointStatusCount; ++k) sum += t.status_counts[k] = counts[k];
  if (t.completed > count || cp.rows > t.completed || sum != t.completed) corrupt(where);
  for (std::size_t i = 0; i < kInvalidExamples; ++i)
    if (const auto it = cp.state.find("invalid_example_" + std::to_string(i)); it != cp.state.end())
      t.invalid_examples.push_back(it->second);
}

data::StreamColumn status_column() {
  data::StreamColumn c{"status", 0, "1", ""};
  c.long_name = "point status";
  c.type = data::ColumnType::kUInt8;
  for (int s = 0; s < kPointStatusCount; ++s) c.flags.emplace_back(s, status_word(s));
  return c;
}

std::vector<std::string> count_attribute_names() {
  std::vector<std::string> n;
  for (int s = 0; s < kPointStatusCount; ++s) n.push_back("count_" + status_word(s));
  return n;
}

std::map<std::string, std::string> count_attributes(const Totals& t) {
  std::map<std::string, std::string> a;
  const auto names = count_attribute_names();
  for (int s = 0; s < kPointStatusCount; ++s) a[names[s]] = std::to_string(t.status_counts[s]);
  return a;
}

}  // namespace stribeck::engine
