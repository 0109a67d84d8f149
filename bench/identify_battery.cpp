// The identification battery, large run (issue 23, item 2): thousands of
// noiseless and >= 1000 noisy generated logs over every static model, every
// generator profile, rates 1-20 kHz, 1-6 pressure / normal-force levels and
// degenerate truths, fitted with ident::fit's default options. Prints the
// counts per model as Markdown tables (docs/identification.md, "Battery") and
// every failing case with the arguments that replay it.
//
//   identify_battery [--seed S] [--noiseless N] [--noisy N] [--samples MIN:MAX] [--list K]
//   identify_battery [--seed S] [--noisy] --case I      # replay one case: truth, oracle, fit report
//
// The cases, the oracle and the verdicts are tests/unit/identification/identification_battery.cpp,
// the same code the CTest Identification.Battery* runs on a smaller subset.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "identification_battery.hpp"

using namespace stribeck;
using namespace stribeck::battery;

namespace {

std::string code_version() {
  std::string v = "unknown";
  const std::string cmd = std::string("git -C '") + STRIBECK_SOURCE_DIR +
                          "' log -1 --format='%h %s' 2>/dev/null; git -C '" + STRIBECK_SOURCE_DIR +
                          "' status --porcelain --untracked-files=no 2>/dev/null | head -1";
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[512];
    std::string out;
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    pclose(p);
    const size_t nl = out.find('\n');
    if (nl != std::string::npos && nl > 0) {
      v = out.substr(0, nl);
      if (out.size() > nl + 1) v += " (plus uncommitted changes)";
    }
  }
  return v;
}

void usage() {
  std::fprintf(stderr,
               "usage: identify_battery [--seed S] [--noiseless N] [--noisy N] [--samples MIN:MAX] [--list K]\n"
               "       identify_battery [--seed S] [--noisy] [--samples MIN:MAX] --case I\n");
  std::exit(2);
}

void replay(std::uint64_t seed, long index, bool noisy, const Scale& scale) {
  const CaseRun r = run_case(seed, index, noisy, scale);
  std::printf("case %s\n%s\n", r.c.replay().c_str(), r.c.describe().c_str());
  if (noisy) std::printf("force noise std %.6g N\n", r.noise_sd);
  std::printf("oracle (RMS friction force %.6g):\n", r.oracle.force_rms);
  for (size_t j = 0; j < r.oracle.names.size(); ++j)
    std::printf("  %-8s truth %-14.9g %-13s s %-10.3g scale %-10.4g predicted SE %.4g\n", r.oracle.names[j].c_str(),
                r.oracle.truth[j], identifiability_name(r.oracle.kind[j]), r.oracle.sensitivity[j], r.oracle.scale[j],
                r.oracle.predicted_se[j]);
  if (!r.error.empty()) std::printf("fit threw: %s\n", r.error.c_str());
  else std::printf("fit (%.3f s):\n%s\n", r.seconds, r.report.c_str());
  if (noisy) {
    for (const auto& p : r.noisy.params)
      std::printf("  %-8s %s%s%s interval %s\n", p.name.c_str(), p.included ? "included" : "excluded",
                  p.covered ? ", covered" : ", NOT covered", p.flagged_undetermined ? ", flagged undetermined" : "",
                  p.interval.c_str());
    if (!r.noisy.detail.empty()) std::printf("%s\n", r.noisy.detail.c_str());
  } else {
    std::printf("verdict: %s", r.noiseless.pass ? "pass" : "FAIL");
    for (const auto& c : r.noiseless.classes) std::printf(" %s", c.c_str());
    std::printf(" (fit RMSE / RMS force %.3g, worst relative error %.3g)\n%s\n", r.noiseless.rmse_rel,
                r.noiseless.worst_rel, r.noiseless.detail.c_str());
  }
}

struct NoiselessRow {
  long cases = 0, pass = 0, determinable = 0, undetermined = 0, weak = 0, with_undetermined = 0;
  std::map<std::string, long> classes;
};
struct NoisyRow {
  long cases = 0, params = 0, included = 0, covered = 0, flagged = 0, excluded = 0, wrong_flags = 0;
  long interior = 0, interior_covered = 0, exceptions = 0;
  std::map<std::string, long> methods;  // interval method of the included parameters
};

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = 1;
  long n_clean = 2700, n_noisy = 1200, single = -1, list = 200;
  bool noisy_single = false;
  Scale scale{2000, 20000};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--seed") seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--noiseless") n_clean = std::atol(next());
    else if (a == "--noisy" && i + 1 < argc && argv[i + 1][0] != '-') n_noisy = std::atol(next());
    else if (a == "--noisy") noisy_single = true;
    else if (a == "--case") single = std::atol(next());
    else if (a == "--list") list = std::atol(next());
    else if (a == "--samples") {
      const char* s = next();
      if (std::sscanf(s, "%lf:%lf", &scale.min_samples, &scale.max_samples) != 2 || !(scale.min_samples > 0) ||
          scale.max_samples < scale.min_samples)
        usage();
    } else usage();
  }
  if (single >= 0) {
    replay(seed, single, noisy_single, scale);
    return 0;
  }

  const std::vector<std::string> models = static_model_ids();
  std::map<std::string, NoiselessRow> clean;
  std::map<std::string, NoisyRow> noisy;
  std::vector<std::string> failures;
  double fit_seconds = 0;
  std::map<int, long> decades;  // oracle sensitivities of the noiseless cases, by decade
  const std::time_t start = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&start));
  for (long i = 0; i < n_clean; ++i) {
    const CaseRun r = run_case(seed, i, false, scale);
    fit_seconds += r.seconds;
    NoiselessRow& row = clean[r.c.model];
    ++row.cases;
    row.pass += r.noiseless.pass;
    row.determinable += r.noiseless.determinable;
    row.undetermined += r.noiseless.undetermined;
    row.weak += r.noiseless.weak;
    row.with_undetermined += r.noiseless.undetermined > 0;
    for (const auto& c : r.noiseless.classes) ++row.classes[c];
    if (!r.noiseless.pass) {
      std::string cls;
      for (const auto& c : r.noiseless.classes) cls += (cls.empty() ? "" : ",") + c;
      failures.push_back(r.c.replay() + "  [" + cls + "]  " + r.c.describe() + "  -- " + r.noiseless.detail +
                         (r.error.empty() ? "" : " threw: " + r.error));
    }
    for (double x : r.oracle.sensitivity) {
      const int dec = x > 0 ? static_cast<int>(std::floor(std::log10(x))) : -99;
      ++decades[std::max(-20, std::min(0, dec))];
    }
    if ((i + 1) % 100 == 0) std::fprintf(stderr, "noiseless %ld/%ld\n", i + 1, n_clean);
  }
  for (long i = 0; i < n_noisy; ++i) {
    const CaseRun r = run_case(seed, i, true, scale);
    fit_seconds += r.seconds;
    NoisyRow& row = noisy[r.c.model];
    ++row.cases;
    row.exceptions += r.noisy.exception;
    row.wrong_flags += r.noisy.wrong_flags;
    bool missed = false;
    for (const auto& p : r.noisy.params) {
      ++row.params;
      if (!p.included) {
        ++row.excluded;
        continue;
      }
      ++row.included;
      row.covered += p.covered;
      row.flagged += p.flagged_undetermined;
      ++row.methods[p.interval.empty() ? "?" : p.interval];
      if (!p.truth_on_bound) {
        ++row.interior;
        row.interior_covered += p.covered;
      }
      missed |= !p.covered;
    }
    if (missed)
      failures.push_back(r.c.replay() + "  [not covered]  " + r.c.describe() + "  -- " + r.noisy.detail +
                         (r.error.empty() ? "" : " threw: " + r.error));
    if ((i + 1) % 100 == 0) std::fprintf(stderr, "noisy %ld/%ld\n", i + 1, n_noisy);
  }

  std::printf("## identify_battery --seed %llu --noiseless %ld --noisy %ld --samples %g:%g\n\n",
              static_cast<unsigned long long>(seed), n_clean, n_noisy, scale.min_samples, scale.max_samples);
  std::printf("started %s; code: %s; fits took %.1f s in total\n\n", when, code_version().c_str(), fit_seconds);

  const char* kClasses[] = {
      "failed",        "wrong-basin", "imprecise", "bound", "undetermined-reported", "determinable-flagged",
      "not-converged", "exception"};
  std::printf(
      "Noiseless: a case passes when every determinable parameter is within 1e-6 (relative) and every\n"
      "undetermined one is reported determined == false. Failure classes overlap (a case can have several).\n\n");
  std::printf("| model | cases | pass | rate | cases with an undetermined parameter | weak (not scored) |");
  for (const char* c : kClasses) std::printf(" %s |", c);
  std::printf("\n|---|---|---|---|---|---|");
  for (size_t c = 0; c < sizeof kClasses / sizeof *kClasses; ++c) std::printf("---|");
  std::printf("\n");
  NoiselessRow total;
  for (const auto& m : models) {
    const NoiselessRow& r = clean[m];
    std::printf("| %s | %ld | %ld | %.1f %% | %ld | %ld |", m.c_str(), r.cases, r.pass,
                r.cases ? 100.0 * r.pass / r.cases : 0.0, r.with_undetermined, r.weak);
    for (const char* c : kClasses) std::printf(" %ld |", r.classes.count(c) ? r.classes.at(c) : 0L);
    std::printf("\n");
    total.cases += r.cases;
    total.pass += r.pass;
    total.with_undetermined += r.with_undetermined;
    total.weak += r.weak;
    for (const auto& [c, k] : r.classes) total.classes[c] += k;
  }
  std::printf("| **all** | %ld | %ld | %.1f %% | %ld | %ld |", total.cases, total.pass,
              total.cases ? 100.0 * total.pass / total.cases : 0.0, total.with_undetermined, total.weak);
  for (const char* c : kClasses) std::printf(" %ld |", total.classes.count(c) ? total.classes.at(c) : 0L);
  std::printf("\n\n");

  std::printf(
      "Noisy: parameter-cases whose truth lies inside the reported 95 %% interval. Included: determinable\n"
      "parameters whose predicted standard error is <= %.2g of their scale; an undetermined flag or an\n"
      "exception counts as not covered.\n\n",
      kMaxRelativeSe);
  std::printf(
      "| model | cases | parameters included | covered | coverage | interior truths covered | "
      "flagged undetermined | excluded | undetermined reported determined | interval methods |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  NoisyRow nt;
  for (const auto& m : models) {
    const NoisyRow& r = noisy[m];
    std::string methods;
    for (const auto& [k, v] : r.methods) methods += (methods.empty() ? "" : ", ") + k + " " + std::to_string(v);
    std::printf("| %s | %ld | %ld | %ld | %.1f %% | %ld / %ld | %ld | %ld | %ld | %s |\n", m.c_str(), r.cases,
                r.included, r.covered, r.included ? 100.0 * r.covered / r.included : 0.0, r.interior_covered,
                r.interior, r.flagged, r.excluded, r.wrong_flags, methods.c_str());
    nt.cases += r.cases;
    nt.included += r.included;
    nt.covered += r.covered;
    nt.interior += r.interior;
    nt.interior_covered += r.interior_covered;
    nt.flagged += r.flagged;
    nt.excluded += r.excluded;
    nt.wrong_flags += r.wrong_flags;
    for (const auto& [k, v] : r.methods) nt.methods[k] += v;
  }
  std::string methods;
  for (const auto& [k, v] : nt.methods) methods += (methods.empty() ? "" : ", ") + k + " " + std::to_string(v);
  std::printf("| **all** | %ld | %ld | %ld | %.1f %% | %ld / %ld | %ld | %ld | %ld | %s |\n\n", nt.cases, nt.included,
              nt.covered, nt.included ? 100.0 * nt.covered / nt.included : 0.0, nt.interior_covered, nt.interior,
              nt.flagged, nt.excluded, nt.wrong_flags, methods.c_str());

  std::printf(
      "Oracle sensitivities s of the noiseless cases' free parameters by decade (determinable >= %g, "
      "undetermined <= %g; -20 includes everything below, exact zeros included):\n",
      kDeterminedAbove, kUndeterminedBelow);
  for (const auto& [d, k] : decades) std::printf("  1e%d: %ld\n", d, k);
  std::printf("\n");

  long lo = 0, hi = 0;
  binomial_band(nt.included, 0.95, 3.29, &lo, &hi);
  const bool clean_ok = total.cases == 0 || total.pass >= std::ceil(0.995 * total.cases);
  const bool noisy_ok = nt.included == 0 || (nt.covered >= lo && nt.covered <= hi);
  std::printf(
      "Goals: noiseless %ld / %ld pass (need >= 99.5 %%): %s; noisy coverage %ld / %ld (95 %% band at "
      "z = 3.29: [%ld, %ld]): %s\n\n",
      total.pass, total.cases, clean_ok ? "met" : "NOT met", nt.covered, nt.included, lo, hi,
      noisy_ok ? "met" : "NOT met");

  std::printf("Failing cases (%zu; replay: build/bin/identify_battery ARGS):\n", failures.size());
  for (size_t i = 0; i < failures.size() && static_cast<long>(i) < list; ++i)
    std::printf("  %s\n", failures[i].c_str());
  if (static_cast<long>(failures.size()) > list) std::printf("  ... %zu more (--list N)\n", failures.size() - list);
  return 0;
}
