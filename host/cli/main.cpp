// The `stribeck` command line: subcommands are defined in cmd_*.cpp.
#include <glog/logging.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/host/version.hpp"

namespace {
int g_argc = 0;
const char* const* g_argv = nullptr;

// Levenshtein distance, for "did you mean".
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

stribeck::Provenance stribeck::cli::cli_provenance() { return make_provenance(g_argc, g_argv); }

std::string stribeck::cli::one_line(const std::string& text) {
  constexpr size_t kQuoted = 80, kKeep = 77, kMax = 2000;
  // Cut long quoted stretches first (on the raw text, so a cut never splits
  // an escape), at a UTF-8 character boundary.
  std::string cut;
  cut.reserve(std::min(text.size(), kMax * 2));
  for (size_t i = 0; i < text.size();) {
    const size_t close = text[i] == '\'' ? text.find('\'', i + 1) : std::string::npos;
    if (close != std::string::npos && close - i - 1 > kQuoted) {
      size_t n = kKeep;
      while (n > 0 && (static_cast<unsigned char>(text[i + 1 + n]) & 0xC0) == 0x80) --n;
      cut += '\'';
      cut.append(text, i + 1, n);
      cut += "...' (" + std::to_string(close - i - 1) + " characters)";
      i = close + 1;
      continue;
    }
    // A short quoted stretch is copied whole: taking only its opening quote
    // would make its closing one open the next stretch, which then ran from
    // between two quoted names to the next quote and was cut there.
    if (close != std::string::npos) {
      cut.append(text, i, close + 1 - i);
      i = close + 1;
      continue;
    }
    cut += text[i++];
  }
  std::string out;
  out.reserve(cut.size());
  for (unsigned char ch : cut) {
    if (ch == '\n') out += "\\n";
    else if (ch == '\r') out += "\\r";
    else if (ch == '\t') out += "\\t";
    else if (ch < 0x20 || ch == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  if (out.size() > kMax) {
    size_t head = 1000, tail = out.size() - 500;
    while (head > 0 && (static_cast<unsigned char>(out[head]) & 0xC0) == 0x80) --head;
    while (tail < out.size() && (static_cast<unsigned char>(out[tail]) & 0xC0) == 0x80) ++tail;
    out = out.substr(0, head) + " ... (" + std::to_string(out.size() - head - (out.size() - tail)) +
          " characters left out) ... " + out.substr(tail);
  }
  return out;
}

namespace {

int run_command(int argc, char** argv) {
  g_argc = argc;
  g_argv = argv;
  // SIGINT, SIGTERM, SIGHUP: temporaries removed, one line, exit 128 + signal.
  stribeck::install_cli_signal_handlers();
  // Ceres logs through glog: a start that fails ("Terminating: Residual and
  // Jacobian evaluation failed"), a residual block that evaluates to NaN,
  // covariance warnings. The fits report all of that themselves (status,
  // warnings in the summary), so glog is silenced below FATAL and stderr
  // keeps its one-line rule. glog is not initialised (InitGoogleLogging
  // would write log files under /tmp).
  // STRIBECK_GLOG=1 keeps glog's own settings (to see what Ceres says).
  const char* keep_glog = std::getenv("STRIBECK_GLOG");
  if (!keep_glog || std::strcmp(keep_glog, "1") != 0) {
    FLAGS_minloglevel = google::GLOG_FATAL;
    FLAGS_stderrthreshold = google::GLOG_FATAL;
    FLAGS_logtostderr = false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  using stribeck::cli::one_line;
  CLI::App app{"Stribeck: friction models, sweeps and identification for hydraulic and mechanical drives"};
  app.name("stribeck");
  app.set_version_flag("--version", std::string("stribeck ") + stribeck::version());
  app.require_subcommand(1);
  stribeck::cli::add_models_command(app);
  stribeck::cli::add_eval_command(app);
  stribeck::cli::add_identify_command(app);
  stribeck::cli::add_simulate_command(app);
  stribeck::cli::add_sweep_command(app);
  stribeck::cli::add_merge_command(app);
  stribeck::cli::add_map_command(app);
  stribeck::cli::add_import_command(app);
  stribeck::cli::add_export_command(app);
  stribeck::cli::add_generate_command(app);
  stribeck::cli::add_export_params_command(app);
  stribeck::cli::add_report_command(app);
  stribeck::cli::add_plot_command(app);
  std::string commands;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
  if (argc == 2 && std::strcmp(argv[1], "help") == 0) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  }
  if (argc == 1) {  // the help on stdout, and still a usage error (scripts see exit 1)
    std::fputs(app.help().c_str(), stdout);
    std::fprintf(stderr, "stribeck: error: a command is required: %s (run with --help for usage)\n", commands.c_str());
    return 1;
  }
  if (argv[1][0] != '-') {
    // An unknown command is named, with the nearest one and the list
    // (CLI11 would say only "The following arguments were not expected").
    const std::string given = argv[1];
    std::string nearest;
    size_t best = std::string::npos;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      const std::string& n = sub->get_name();
      if (n == given) {
        best = 0;
        break;
      }
      const size_t d = edit_distance(given, n);
      if (d < best) best = d, nearest = n;
    }
    if (best != 0) {
      std::fprintf(stderr, "stribeck: error: unknown command '%s'%s; the commands are %s (run with --help for usage)\n",
                   one_line(given).c_str(), nearest.empty() ? "" : ("; did you mean '" + nearest + "'?").c_str(),
                   commands.c_str());
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
    stribeck::cli::flush_stdout();
    stribeck::cli::note_verbose("%s: %.3f s wall time, %d OpenMP threads available",
                                app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name().c_str(),
                                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                                omp_get_max_threads());
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here as "errors" with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    // Usage errors: one line like every other error, exit code 1 (CLI11's own
    // codes, 105..., would be one more thing to document).
    std::fprintf(stderr, "stribeck: error: %s (run with --help for usage)\n", one_line(e.what()).c_str());
    return 1;
  } catch (const stribeck::InputError& e) {
    // A write to a pipe whose reader has gone: quiet, as finish_stdout ends
    // (any other error is still said).
    if (std::strncmp(e.what(), "writing standard output", 23) == 0 && stribeck::cli::stdout_reader_gone())
      return 128 + SIGPIPE;
    std::fprintf(stderr, "stribeck: error: %s\n", one_line(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "stribeck: internal error: %s\n", one_line(e.what()).c_str());
    return 3;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that closes the pipe makes writes to stdout fail (EPIPE),
  // checked at the end, instead of killing the run halfway through
  // writing a file.
  std::signal(SIGPIPE, SIG_IGN);
  return stribeck::cli::finish_stdout(run_command(argc, argv));
}
