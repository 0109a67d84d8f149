// The streamed source's check pass (sample_sources.hpp).
#include "sample_sources.hpp"

#include <cmath>
#include <utility>

namespace stribeck::ident::detail {

void StreamedSource::check(const ModelInfo&, const FitOptions& o, FitSummary& S) {
  const PreparedStream& st = st_;
  std::vector<int>& all = all_;
  StreamScan& sc = sc_;
  FitData& D = D_;
  FitData& Dsub = Dsub_;
  all.resize(st.experiments());
  for (int e = 0; e < st.experiments(); ++e) all[e] = e;
  sc = scan_stream(st, all, sopt_.search_samples);
  // D: the statistics of every sample (no data held); Dsub: the subsample
  // the layout, the start points and the search work on.
  Dsub.data = std::move(sc.sample);
  Dsub.train = all;
  if (sc.whole) {
    check_samples(Dsub, o, S);  // every sample: fit()'s own checks
    D.n = Dsub.n;
    D.vslow = Dsub.vslow;
    D.vfast = Dsub.vfast;
    D.lacks_slow = Dsub.lacks_slow;
    D.scale = Dsub.scale;
  } else {
    motion_checks(o, sc.npos, sc.nneg, sc.vmin, sc.vmax, S);
    D.n = sc.n;
    D.vslow = sc.vslow;
    D.vfast = std::max(std::abs(sc.vmin), std::abs(sc.vmax));
    D.lacks_slow = D.vslow > 0.1 * sc.v_median;
    D.scale.samples = D.n;
    D.scale.force_rms = std::sqrt(sc.ysq / static_cast<double>(D.n));
    D.scale.noise = sc.noise;
    S.noise_estimate = D.scale.noise;
    for (int e : all) Dsub.n += static_cast<long>(Dsub.data[e].size());
    Dsub.vslow = D.vslow;
    Dsub.vfast = D.vfast;
    Dsub.lacks_slow = D.lacks_slow;
    Dsub.scale = D.scale;
    Dsub.scale.samples = Dsub.n;
  }
  D.train = all;
}

}  // namespace stribeck::ident::detail
