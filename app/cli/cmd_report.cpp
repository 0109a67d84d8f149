// `stribeck report RESULT.h5 -o report.html` and `stribeck plot RESULT.h5
// --what WHAT -o fig.svg|png|pdf`: the two renderers of one figure model
// (report/, docs/reports.md), so the page and the figure never disagree.
#include <memory>

#include "commands.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/report/figure.hpp"

namespace stribeck::cli {

void check_report_output(const std::string& report, const std::vector<std::string>& inputs) {
  if (report.empty()) return;
  check_output(report, inputs);
  const std::size_t dot = report.find_last_of('.');
  const std::string ext = dot == std::string::npos ? "" : report.substr(dot);
  if (ext != ".html" && ext != ".htm") throw data::InputError(report + ": --report writes an HTML page; name it .html");
}

void write_report(const std::string& result, const std::string& html, const std::string& group,
                  const std::string& log) {
  report::ReadOptions o;
  o.group = group;
  o.log = log;
  const report::Document doc = report::read_document(result, o);
  report::write_html(doc, html);
  summary("stribeck report: %s (%s) -> %s", doc.title.c_str(), result.c_str(), html.c_str());
}

namespace {

struct ReportArgs {
  std::string input, output, log, x, y, what, experiment;
};

std::string default_html(const std::string& input) {
  const std::size_t slash = input.find_last_of('/');
  const std::size_t dot = input.find_last_of('.');
  const std::string stem =
      dot == std::string::npos || (slash != std::string::npos && dot < slash) ? input : input.substr(0, dot);
  return stem + ".html";
}

void run_report(const ReportArgs& a) {
  const std::string out = a.output.empty() ? default_html(a.input) : a.output;
  std::vector<std::string> inputs{a.input};
  if (!a.log.empty()) inputs.push_back(a.log);
  check_report_output(out, inputs);
  report::ReadOptions o;
  o.log = a.log;
  o.x = a.x;
  o.y = a.y;
  const report::Document doc = report::read_document(a.input, o);
  report::write_html(doc, out);
  std::size_t figures = 0;
  for (const auto& s : doc.sections) figures += s.figures.size();
  summary("stribeck report: %s, %zu figures and tables -> %s", doc.title.c_str(), figures, out.c_str());
}

void run_plot(const ReportArgs& a) {
  if (a.output.empty()) throw data::InputError("plot: --output is needed (.svg, .png or .pdf)");
  std::vector<std::string> inputs{a.input};
  if (!a.log.empty()) inputs.push_back(a.log);
  check_output(a.output, inputs);
  report::ReadOptions o;
  o.log = a.log;
  o.x = a.x;
  o.y = a.y;
  const report::Document doc = report::read_document(a.input, o);
  report::render_figure(doc, a.what, a.experiment, a.output);
  summary("stribeck plot: %s of %s -> %s", a.what.c_str(), a.input.c_str(), a.output.c_str());
}

void add_common(CLI::App* cmd, ReportArgs& a) {
  cmd->add_option("result", a.input,
                  "Result file: identify -o, identify --batch -o, sweep, simulate (one run or an ensemble), HDF5")
      ->type_name("FILE")
      ->required();
  cmd->add_option("--log", a.log, "The measured log of an identify result written to another file (velocity, time)")
      ->type_name("FILE");
  cmd->add_option("--x", a.x,
                  "Sweeps, ensembles, batch fits: quantity along the map's x (default: the first that varies)")
      ->type_name("NAME");
  cmd->add_option("--y", a.y, "Sweeps, ensembles, batch fits: quantity along the map's y (default: the next one)")
      ->type_name("NAME");
  add_verbosity_flags(cmd);
}

}  // namespace

void add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Write one self-contained HTML page of a result file: charts, tables, warnings, provenance");
  auto a = std::make_shared<ReportArgs>();
  add_common(cmd, *a);
  cmd->add_option("--output,-o", a->output, "HTML page to write (default: the result's name with .html)")
      ->type_name("FILE");
  cmd->callback([a] { run_report(*a); });
}

void add_plot_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("plot", "Draw one figure of a result file for a paper (SVG, PNG or PDF, via gnuplot)");
  auto a = std::make_shared<ReportArgs>();
  add_common(cmd, *a);
  cmd->add_option("--what,-w", a->what, "Which figure")->required()->check(CLI::IsMember(report::plot_whats()));
  cmd->add_option("--experiment,-e", a->experiment, "Identification: the experiment (default: the first)")
      ->type_name("NAME");
  cmd->add_option("--output,-o", a->output, "Figure to write: .svg, .png or .pdf")->type_name("FILE")->required();
  cmd->callback([a] { run_plot(*a); });
}

}  // namespace stribeck::cli
