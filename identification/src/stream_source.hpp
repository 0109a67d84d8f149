#pragma once
// Private to identification/: HDF5 logs read as chunks of Prepared rows
// (LogBlockReader), and the two streamed passes of a static fit that holds no
// log whole: the data checks with the noise estimate, and the representative
// subsample of the search (stream_fit.hpp says what each keeps).
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "problem.hpp"
#include "stribeck/data/log_blocks.hpp"
#include "stribeck/identification/stream_fit.hpp"

namespace stribeck::ident::detail {

class PreparedStream {
 public:
  // Opens every log (no sample read); checks the channels the model and the
  // options need, with prepare_data's messages. `chunk_rows` > 0.
  PreparedStream(const std::vector<LogStream>& logs, const ModelInfo& model, const FitOptions& o,
                 std::size_t chunk_rows);
  int experiments() const { return static_cast<int>(exps_.size()); }
  const std::string& name(int e) const { return exps_[e].name; }
  std::size_t length(int e) const { return exps_[e].reader->length(); }
  long total() const;
  // Calls use(e, begin, chunk) for each chunk of rows [begin, begin +
  // chunk.size()) of each experiment in `exps`, in order. The chunk is
  // valid during the call only. With `prefetch`, the next chunk is read on
  // another thread meanwhile: `use` must then not call HDF5 itself.
  void for_each(const std::vector<int>& exps,
                const std::function<void(int e, std::size_t begin, const Prepared& chunk)>& use,
                bool prefetch = true) const;

 private:
  struct Exp {
    std::unique_ptr<data::LogBlockReader> reader;
    std::string name;
    std::vector<std::string>
        channels;  // velocity, force, then [pressure_a], [pressure_b], [normal_force], [acceleration]
    bool pa = false, pb = false, fn = false, acc = false;
  };
  void read_chunk(int e, std::size_t begin, Prepared& p) const;
  std::vector<Exp> exps_;
  std::size_t chunk_;
  double area_a_, area_b_, mass_;
  bool known_mass_;
  mutable Prepared buf_[2];
};

// What the check pass found over the experiments `exps`.
struct StreamScan {
  long n = 0, npos = 0, nneg = 0;
  double vmin = kInf, vmax = -kInf, ysq = 0.0, fsum = 0.0, vslow = kInf;
  double v_median = 0.0;         // of the nonzero |v| (histogram, 1 % resolution), when not whole
  double noise = 0.0;            // when not whole
  bool whole = false;            // every sample is in `sample` (n <= cap): use the in-memory checks on it
  std::vector<Prepared> sample;  // per experiment of the stream (empty for those not in exps)
};

// The check pass and, for n > cap, the subsample pass.
StreamScan scan_stream(const PreparedStream& s, const std::vector<int>& exps, long cap);

}  // namespace stribeck::ident::detail
