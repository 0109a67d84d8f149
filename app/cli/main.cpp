// The `stribeck` command line: subcommands are defined in cmd_*.cpp.
#include <glog/logging.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "stribeck/data/interrupt.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/workloads/version.hpp"

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

// The candidate nearest to `given`, or "" when none is near enough to be a
// likely typo (as git: "--versoin" -> "--version", "help" -> nothing).
std::string nearest_name(const std::string& given, const std::vector<std::string>& candidates) {
  std::string nearest;
  size_t best = std::string::npos;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(given, c);
    if (d < best) best = d, nearest = c;
  }
  return best <= std::max<size_t>(2, given.size() / 3) ? nearest : std::string();
}

// Every name an option of `cmd` answers to ("--model", "-m").
std::vector<std::string> option_names(const CLI::App& cmd) {
  std::vector<std::string> names;
  for (const CLI::Option* o : cmd.get_options()) {
    for (const std::string& n : o->get_lnames()) names.push_back("--" + n);
    for (const std::string& n : o->get_snames()) names.push_back("-" + n);
  }
  return names;
}

// The help wrapped to 80 columns (the option descriptions start at column
// 30), so a terminal and the man page made from it (scripts/gen-cli-docs.sh)
// show no line longer than that.
constexpr size_t kHelpColumns = 80;
std::string wrap(const std::string& text, size_t width) {
  std::string out, line;
  const auto flush = [&] {
    out += line;
    line.clear();
  };
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '\n') {
      flush();
      out += '\n';
      ++i;
      continue;
    }
    size_t end = text.find_first_of(" \n", i);
    if (end == std::string::npos) end = text.size();
    // A word longer than a line (sine[,samples=N,...]) is cut after a comma.
    if (end - i > width) {
      const size_t comma = text.rfind(',', i + width - 1);
      if (comma != std::string::npos && comma > i) end = comma + 1;
    }
    const std::string word = text.substr(i, end - i);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      flush();
      out += '\n';
    } else if (!line.empty()) {
      line += ' ';
    }
    line += word;
    i = end;
    if (i < text.size() && text[i] != ' ' && text[i] != '\n') {  // the rest of a cut word
      flush();
      out += '\n';
      continue;
    }
    while (i < text.size() && text[i] == ' ') ++i;
  }
  flush();
  return out;
}

class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* opt) const override {
    return wrap(CLI::Formatter::make_option_desc(opt), kHelpColumns - get_column_width());
  }
  std::string make_subcommand(const CLI::App* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             wrap(sub->get_description(), kHelpColumns - get_column_width()), get_column_width());
    return out.str();
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap(CLI::Formatter::make_description(app), kHelpColumns);
  }
};

// The value label of every option as `--help` shows it: the readable type
// name its registration gives (FILE, KG, NAME=VALUE), then the choices or
// the range its validators check ("{auto,gpu,cpu}", "N in [1 - 6]"). CLI11
// would show "TEXT:{auto,gpu,cpu}", "INT:INT in [1 - 6]", "UINT:POSITIVE"
// (a validator's own label, which its error message says anyway).
void readable_value_labels(CLI::App& app) {
  for (CLI::App* cmd : app.get_subcommands([](CLI::App*) { return true; }))
    for (CLI::Option* opt : cmd->get_options([](CLI::Option*) { return true; })) {
      std::vector<std::string> shown;
      for (int i = 0;; ++i) {
        CLI::Validator* v = nullptr;
        try {
          v = opt->get_validator(i);
        } catch (const CLI::OptionNotFound&) {
          break;
        }
        const std::string d = v->get_description();
        if (!d.empty() && d.front() == '{') shown.push_back(d);
        else if (const size_t in = d.find(" in ["); in != std::string::npos) shown.push_back(d.substr(in + 1));
        v->description("");
      }
      std::string label = opt->get_type_name();
      for (const std::string& s : shown) label = s.front() == '{' ? s : label + " " + s;
      // Choices too many for the line go into the description.
      const size_t head = 2 + opt->get_name(false, true).size() + 1 + label.size() + (opt->get_required() ? 9 : 0);
      if (!label.empty() && label.front() == '{' && head > kHelpColumns) {
        opt->description("One of " + label + ". " + opt->get_description());
        label = opt->get_lnames().empty() ? "VALUE" : opt->get_lnames().front();
        std::transform(label.begin(), label.end(), label.begin(), [](unsigned char c) { return std::toupper(c); });
      }
      opt->type_name(label);
    }
}

}  // namespace

stribeck::data::Provenance stribeck::cli::cli_provenance() { return data::make_provenance(g_argc, g_argv); }

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
  stribeck::data::install_cli_signal_handlers();
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
  app.formatter(std::make_shared<WrappingFormatter>());
  app.set_version_flag("--version", std::string("stribeck ") + stribeck::workloads::version());
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
  stribeck::cli::add_design_command(app);
  stribeck::cli::add_export_params_command(app);
  stribeck::cli::add_report_command(app);
  stribeck::cli::add_plot_command(app);
  readable_value_labels(app);
  std::string commands;
  std::vector<std::string> command_names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    commands += (commands.empty() ? "" : ", ") + sub->get_name();
    command_names.push_back(sub->get_name());
  }
  // `stribeck help CMD` is `stribeck CMD --help` (as git and cargo have it).
  std::vector<char*> help_argv;
  if (argc >= 2 && std::strcmp(argv[1], "help") == 0) {
    if (argc == 2) {
      std::fputs(app.help().c_str(), stdout);
      return 0;
    }
    if (argc > 3) {
      std::fprintf(stderr, "stribeck: error: help takes one command, not %d words (run with --help for usage)\n",
                   argc - 2);
      return 1;
    }
    static char help_flag[] = "--help";
    help_argv = {argv[0], argv[2], help_flag};
    argc = 3;
    argv = help_argv.data();
  }
  if (argc == 1) {  // the help on stdout, and still a usage error (scripts see exit 1)
    std::fputs(app.help().c_str(), stdout);
    std::fprintf(stderr, "stribeck: error: a command is required: %s (run with --help for usage)\n", commands.c_str());
    return 1;
  }
  if (argv[1][0] != '-') {
    // An unknown command is named, with the nearest one when it is close
    // and the list (CLI11 would say only "The following arguments were not
    // expected").
    const std::string given = argv[1];
    if (std::find(command_names.begin(), command_names.end(), given) == command_names.end()) {
      const std::string nearest = nearest_name(given, command_names);
      std::fprintf(stderr, "stribeck: error: unknown command '%s'%s; the commands are %s (run with --help for usage)\n",
                   one_line(given).c_str(), nearest.empty() ? "" : ("; did you mean '" + nearest + "'?").c_str(),
                   commands.c_str());
      return 1;
    }
  } else if (std::strcmp(argv[1], "--help") != 0 && std::strcmp(argv[1], "-h") != 0 &&
             std::strcmp(argv[1], "--version") != 0) {
    // Before the command only --help and --version are known (CLI11 would
    // say "A subcommand is required" to --versoin).
    const std::string given = argv[1];
    const std::string nearest = nearest_name(given.substr(0, given.find('=')), option_names(app));
    std::fprintf(stderr, "stribeck: error: unknown option '%s'%s (run with --help for usage)\n",
                 one_line(given).c_str(), nearest.empty() ? "" : ("; did you mean '" + nearest + "'?").c_str());
    return 1;
  }
  try {
    app.parse(argc, argv);
    stribeck::cli::flush_stdout();
    stribeck::cli::note_verbose("%s: %.3f s wall time, %d OpenMP thread%s available",
                                app.get_subcommands().empty() ? "" : app.get_subcommands().front()->get_name().c_str(),
                                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                                omp_get_max_threads(), omp_get_max_threads() == 1 ? "" : "s");
  } catch (const CLI::ParseError& e) {
    // --help and --version arrive here as "errors" with exit code 0.
    if (e.get_exit_code() == 0) return app.exit(e);
    // An unknown option of the command is named with the nearest one (also
    // when it made a required option look missing: --ouptut=x).
    if (!app.get_subcommands().empty()) {
      const CLI::App& cmd = *app.get_subcommands().front();
      for (const std::string& arg : cmd.remaining()) {
        if (arg.size() < 2 || arg[0] != '-' || (arg[1] != '-' && std::isdigit(static_cast<unsigned char>(arg[1]))))
          continue;
        const std::string nearest = nearest_name(arg.substr(0, arg.find('=')), option_names(cmd));
        std::fprintf(stderr, "stribeck: error: %s: unknown option '%s'%s (run 'stribeck help %s' for usage)\n",
                     cmd.get_name().c_str(), one_line(arg).c_str(),
                     nearest.empty() ? "" : ("; did you mean '" + nearest + "'?").c_str(), cmd.get_name().c_str());
        return 1;
      }
    }
    // Usage errors: one line like every other error, exit code 1 (CLI11's own
    // codes, 105..., would be one more thing to document).
    std::fprintf(stderr, "stribeck: error: %s (run with --help for usage)\n", one_line(e.what()).c_str());
    return 1;
  } catch (const stribeck::data::InputError& e) {
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
