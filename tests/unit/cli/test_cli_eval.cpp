// The built `stribeck` CLI, run as a user would: help and version, `models
// --json`, `eval` round trips for every model, and every kind of bad input
// (non-zero exit, one line naming what and where, no output file, no
// temporary left behind, an existing output left untouched).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "stribeck/kernels/registry.hpp"
#include "stribeck/kernels/stepping.hpp"

namespace stribeck {
namespace {

namespace fs = std::filesystem;

struct RunResult {
  int code;
  std::string out;
  std::string err;
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  f << text;
}

std::vector<std::string> split(const std::string& s, char d) {
  std::vector<std::string> v;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, d)) v.push_back(cur);
  return v;
}

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "stribeck_cli_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the CLI with `args` (shell syntax) inside the temp dir.
  RunResult run(const std::string& args) {
    const std::string cmd = "cd '" + dir_.string() + "' && '" STRIBECK_CLI "' " + args + " > stdout.txt 2> stderr.txt";
    const int status = std::system(cmd.c_str());
    RunResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir_ / "stdout.txt"), slurp(dir_ / "stderr.txt")};
    fs::remove(dir_ / "stdout.txt");
    fs::remove(dir_ / "stderr.txt");
    return r;
  }

  // Files in the temp dir whose name contains ".tmp." (AtomicFile leftovers).
  std::vector<std::string> temporaries() const {
    std::vector<std::string> v;
    for (const auto& e : fs::directory_iterator(dir_))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) v.push_back(e.path().filename().string());
    return v;
  }

  // Runs an eval that must fail: non-zero exit, exactly one line on stderr
  // containing every `expect` fragment, nothing on stdout, no out.csv, no
  // temporary file.
  void expect_failure(const std::string& args, const std::vector<std::string>& expect) {
    SCOPED_TRACE(args);
    const RunResult r = run(args);
    EXPECT_NE(r.code, 0);
    EXPECT_EQ(r.out, "");
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "not one line: " << r.err;
    EXPECT_EQ(r.err.rfind("stribeck: error: ", 0), 0u) << r.err;
    for (const auto& e : expect) EXPECT_NE(r.err.find(e), std::string::npos) << "missing '" << e << "' in: " << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out.csv"));
    EXPECT_TRUE(temporaries().empty());
  }

  fs::path dir_;
};

// ------------------------------------------------------------ help/version
// Subcommand names as the top-level --help lists them (so subcommands added
// later are covered too).
std::vector<std::string> subcommands(const std::string& help) {
  std::vector<std::string> names;
  bool in_list = false;
  for (const auto& line : split(help, '\n')) {
    if (line.rfind("Subcommands:", 0) == 0) {
      in_list = true;
    } else if (in_list && line.rfind("   ", 0) == 0) {
      // a description wrapped onto the next line
    } else if (in_list && line.size() > 2 && line[0] == ' ') {
      std::istringstream in(line);
      std::string name;
      in >> name;
      names.push_back(name);
    } else if (in_list && !line.empty()) {
      in_list = false;
    }
  }
  return names;
}

TEST_F(Cli, HelpOnEverySubcommandAndVersion) {
  const RunResult top = run("--help");
  ASSERT_EQ(top.code, 0);
  const auto names = subcommands(top.out);
  EXPECT_NE(std::find(names.begin(), names.end(), "models"), names.end()) << top.out;
  EXPECT_NE(std::find(names.begin(), names.end(), "eval"), names.end()) << top.out;
  for (const auto& name : names) {
    const RunResult r = run(name + " --help");
    EXPECT_EQ(r.code, 0) << name;
    EXPECT_NE(r.out.find("Usage:"), std::string::npos) << name << ": " << r.out;
    EXPECT_NE(r.out.find(name), std::string::npos) << name << ": " << r.out;
  }
  EXPECT_NE(run("eval --help").out.find("--param"), std::string::npos);
  EXPECT_NE(run("models --help").out.find("--json"), std::string::npos);
  const RunResult v = run("--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("stribeck ", 0), 0u) << v.out;
}

TEST_F(Cli, UsageErrorsAreOneLineWithNonZeroExit) {
  for (const char* args : {"", "eval --input x.csv --output out.csv", "frobnicate", "models --bogus"}) {
    SCOPED_TRACE(args);
    const RunResult r = run(args);
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_EQ(r.err.rfind("stribeck: error: ", 0), 0u) << r.err;
  }
}

// --compression takes none, deflate or deflate=L (L in 1-9): anything else is
// a usage error in one line naming the option, before any work.
TEST_F(Cli, EvalCompressionIsNoneOrADeflateLevel) {
  write_file(dir_ / "in.csv", "time,velocity\n0,0.1\n0.001,0.2\n");
  for (const char* c : {"zip", "deflate=0", "deflate=10", "deflate=", "Deflate", ""}) {
    SCOPED_TRACE(c);
    const RunResult r =
        run(std::string("eval -m simscape-translational -i in.csv -o out.h5 --compression '") + c + "'");
    EXPECT_EQ(r.code, 1);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    EXPECT_EQ(r.err.rfind("stribeck: error: --compression: ", 0), 0u) << r.err;
    EXPECT_FALSE(fs::exists(dir_ / "out.h5"));
  }
  for (const char* c : {"none", "deflate", "deflate=1", "deflate=9"}) {
    SCOPED_TRACE(c);
    const RunResult r = run(std::string("eval -q -m simscape-translational -i in.csv -o out.h5 --compression ") + c);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "out.h5"));
  }
  EXPECT_NE(run("eval --help").out.find("--compression"), std::string::npos);
}

// ------------------------------------------------------------------ models
// Model ids, parameter names and the issue's defaults are public interface.
TEST_F(Cli, ModelsJsonListsEveryModelWithParameters) {
  const RunResult r = run("models --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  const std::map<std::string, std::vector<std::string>> expected{
      {"simscape-translational", {"F_brk", "v_brk", "F_C", "f_v"}},
      {"simscape-rotational", {"T_brk", "w_brk", "T_C", "f_v"}},
      {"simscape-cylinder", {"F_pr", "f_cfr", "K_brk", "f_vfr", "c_v", "v_th"}},
      {"simscape-cylinder-il", {"F_pr", "f_cfr", "R_brk", "v_brk", "f_v"}},
      {"20sim-c", {"mu_c", "slope"}},
      {"20sim-v", {"mu_v"}},
      {"20sim-cv", {"mu_c", "mu_v", "slope"}},
      {"20sim-scvs", {"mu_s", "mu_c", "mu_v", "slope", "v_st"}},
      {"coulomb-viscous", {"F_C", "f_v", "v_eps"}},
  };
  const std::map<std::string, std::vector<double>> issue_defaults{
      {"simscape-translational", {25, 0.1, 20, 100}},
      {"simscape-rotational", {25, 0.1, 20, 100}},
      {"simscape-cylinder", {10, 1e-6, 1, 100, 10, 1e-4}},
  };
  // Exactly the registry's models, each once; the nine static laws of the
  // foundation issue among them with exactly these parameters (models added
  // later, e.g. dynamic ones, are checked for shape only).
  ASSERT_EQ(j.size(), all_models().size());
  std::set<std::string> seen;
  for (const auto& m : j) {
    const std::string id = m.at("id");
    EXPECT_TRUE(seen.insert(id).second) << id << " listed twice";
    EXPECT_NE(find_model(id), nullptr) << id;
    EXPECT_FALSE(m.at("parameters").empty()) << id;
    if (!expected.count(id)) continue;
    EXPECT_FALSE(m.at("equation").get<std::string>().empty()) << id;
    EXPECT_FALSE(m.at("output_unit").get<std::string>().empty()) << id;
    const auto inputs = m.at("inputs").get<std::vector<std::string>>();
    EXPECT_NE(std::find(inputs.begin(), inputs.end(), "velocity"), inputs.end()) << id;
    if (id.rfind("simscape-cylinder", 0) == 0) {
      EXPECT_EQ(inputs, (std::vector<std::string>{"velocity", "pressure_a", "pressure_b"})) << id;
    }
    if (id.rfind("20sim", 0) == 0) {
      EXPECT_EQ(inputs, (std::vector<std::string>{"velocity", "normal_force"})) << id;
    }
    const auto& params = m.at("parameters");
    ASSERT_EQ(params.size(), expected.at(id).size()) << id;
    for (size_t i = 0; i < params.size(); ++i) {
      EXPECT_EQ(params[i].at("name"), expected.at(id)[i]) << id;
      EXPECT_FALSE(params[i].at("unit").get<std::string>().empty()) << id;
      EXPECT_TRUE(params[i].at("default").is_number()) << id;
      EXPECT_TRUE(params[i].at("min").is_number()) << id;
      if (issue_defaults.count(id)) {
        EXPECT_EQ(params[i].at("default").get<double>(), issue_defaults.at(id)[i]) << id << " " << i;
      }
    }
  }
  for (const auto& e : expected) EXPECT_EQ(seen.count(e.first), 1u) << e.first << " missing";
}

TEST_F(Cli, ModelsTextListsEveryModel) {
  const RunResult r = run("models");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const auto& m : all_models()) {
    EXPECT_NE(r.out.find(m.id + "  ("), std::string::npos) << m.id;
    for (const auto& p : m.params) EXPECT_NE(r.out.find(p.name), std::string::npos) << p.name;
  }
}

// -------------------------------------------------------------- round trip
// Every static model: random non-default parameters and random inputs (17
// significant digits, an extra column to carry through). The output keeps
// every input cell verbatim and adds model_force, which must read back to
// exactly the double the model computes in this process.
double model_force(const std::string& id, const std::vector<double>& p, const Sample<double>& s) {
  double f = 0;
  EXPECT_TRUE(visit_model(id.c_str(), [&](auto tag) {
    using M = typename decltype(tag)::type;
    if constexpr (M::kDynamic) {
      ADD_FAILURE() << id << " is dynamic: its eval depends on the time channel";
    } else {
      f = static_force<M>(p.data(), s);
    }
  }));
  return f;
}

TEST_F(Cli, EvalRoundTripsEveryModel) {
  std::mt19937_64 rng(301);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (const auto& m : all_models()) {
    if (m.dynamic) continue;  // stateful laws: covered by their own eval tests
    SCOPED_TRACE(m.id);
    // Parameters: every nonzero default times one random factor in [1, 2)
    // (a common factor keeps the a >= b rules), except the K_brk/R_brk
    // ratios; passed in shortest round-trip form.
    const double factor = 1 + u(rng);
    std::vector<double> p = m.defaults();
    std::string args = "eval --model " + m.id + " --input in.csv --output out.csv";
    for (size_t i = 0; i < p.size(); ++i) {
      if (p[i] == 0 || m.params[i].lo == 1.0) continue;  // keep 0 and the K_brk/R_brk = 1 ratios
      p[i] *= factor;
      args += std::string(" --param ") + m.params[i].name + "=" + format_number(p[i]);
    }
    ASSERT_TRUE(validate_params(m, p.data()).empty());
    std::string in = "time,velocity,pressure_a,pressure_b,normal_force,temperature\n";
    std::vector<Sample<double>> samples;
    std::vector<std::string> lines;
    char buf[256];
    for (int i = 0; i < 300; ++i) {
      Sample<double> s{(u(rng) - 0.5) * 0.4, u(rng) * 2e7, u(rng) * 2e7, u(rng) * 1e3};
      if (i == 0) s.v = 0;
      std::snprintf(buf, sizeof buf, "%.17g,%.17g,%.17g,%.17g,%.17g,%.3f", i * 1e-3, s.v, s.p_a, s.p_b, s.f_n,
                    20 + u(rng));
      samples.push_back(s);
      lines.push_back(buf);
      in += std::string(buf) + "\n";
    }
    write_file(dir_ / "in.csv", in);
    const RunResult r = run(args);
    ASSERT_EQ(r.code, 0) << r.err;
    const auto out_lines = split(slurp(dir_ / "out.csv"), '\n');
    ASSERT_EQ(out_lines.size(), samples.size() + 1);
    EXPECT_EQ(out_lines[0], "time,velocity,pressure_a,pressure_b,normal_force,temperature,model_force");
    for (size_t i = 0; i < samples.size(); ++i) {
      const std::string& line = out_lines[i + 1];
      const size_t comma = line.rfind(',');
      ASSERT_EQ(line.substr(0, comma), lines[i]) << "input cells not carried through verbatim";
      // Parse the input back from the text (what the CLI saw) and compare
      // the printed force with the model evaluated here: exact equality.
      const auto cells = split(lines[i], ',');
      const Sample<double> s{std::strtod(cells[1].c_str(), nullptr), std::strtod(cells[2].c_str(), nullptr),
                             std::strtod(cells[3].c_str(), nullptr), std::strtod(cells[4].c_str(), nullptr)};
      const double printed = std::strtod(line.c_str() + comma + 1, nullptr);
      ASSERT_EQ(printed, model_force(m.id, p, s)) << line;
    }
    EXPECT_TRUE(temporaries().empty());
  }
}

// Only the channels a model needs are required; the others are optional.
TEST_F(Cli, EvalNeedsOnlyTheModelsChannels) {
  write_file(dir_ / "in.csv", "velocity\n0.5\n-0.25\n");
  const RunResult r = run("eval -m coulomb-viscous -i in.csv -o out.csv -p F_C=2 -p f_v=4");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(slurp(dir_ / "out.csv"), "velocity,model_force\n0.5,4\n-0.25,-3\n");
}

// --------------------------------------------------------------- bad input
const char* const kGood = "time,velocity,pressure_a,pressure_b\n0,0.1,1e5,2e5\n0.001,0.2,1e5,2e5\n";

TEST_F(Cli, UnknownModel) {
  write_file(dir_ / "in.csv", kGood);
  expect_failure("eval -m no-such-model -i in.csv -o out.csv", {"no-such-model", "simscape-cylinder"});
}

TEST_F(Cli, UnknownParameter) {
  write_file(dir_ / "in.csv", kGood);
  expect_failure("eval -m simscape-translational -p F_X=3 -i in.csv -o out.csv", {"F_X", "F_brk"});
}

TEST_F(Cli, InvalidParameterValues) {
  write_file(dir_ / "in.csv", kGood);
  expect_failure("eval -m simscape-translational -p F_brk=10 -i in.csv -o out.csv", {"F_brk = 10", "F_C = 20"});
  expect_failure("eval -m simscape-cylinder -p v_th=0 -i in.csv -o out.csv", {"v_th = 0", "> 0"});
  expect_failure("eval -m simscape-cylinder -p K_brk=0.5 -i in.csv -o out.csv", {"K_brk = 0.5", ">= 1"});
  expect_failure("eval -m coulomb-viscous -p F_C=nan -i in.csv -o out.csv", {"F_C", "nan"});
  expect_failure("eval -m coulomb-viscous -p F_C=abc -i in.csv -o out.csv", {"F_C", "abc"});
  expect_failure("eval -m coulomb-viscous -p F_C -i in.csv -o out.csv", {"F_C", "NAME=VALUE"});
}

TEST_F(Cli, MissingChannel) {
  write_file(dir_ / "in.csv", "time,velocity,pressure_b\n0,0.1,2e5\n");
  expect_failure("eval -m simscape-cylinder -i in.csv -o out.csv", {"in.csv", "pressure_a"});
  write_file(dir_ / "in.csv", "time,velocity\n0,0.1\n");
  expect_failure("eval -m 20sim-cv -i in.csv -o out.csv", {"in.csv", "normal_force"});
}

TEST_F(Cli, BadCells) {
  // Non-numeric, NaN, infinite and empty cells name file, line and column.
  write_file(dir_ / "in.csv", "time,velocity\n0,0.1\n0.001,abc\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:3", "column 2", "velocity", "abc"});
  write_file(dir_ / "in.csv", "time,velocity\n0,0.1\n0.001,0.2\nnan,0.3\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:4", "column 1", "time", "nan"});
  write_file(dir_ / "in.csv", "time,velocity\n0,NaN\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:2", "column 2", "NaN"});
  write_file(dir_ / "in.csv", "time,velocity\n0,inf\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:2", "column 2", "inf"});
  write_file(dir_ / "in.csv", "time,velocity\n0,\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:2", "column 2"});
  write_file(dir_ / "in.csv", "time,velocity\n0,1e999\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:2", "column 2", "1e999"});
}

TEST_F(Cli, ShortAndLongRows) {
  write_file(dir_ / "in.csv", "time,velocity,pressure_a\n0,0.1,1\n0.001,0.2\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:3", "expected 3 cells, found 2"});
  write_file(dir_ / "in.csv", "time,velocity\n0,0.1,7\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv:2", "expected 2 cells, found 3"});
}

TEST_F(Cli, UnreadableMissingAndEmptyFiles) {
  expect_failure("eval -m coulomb-viscous -i missing.csv -o out.csv", {"missing.csv", "cannot open"});
  fs::create_directory(dir_ / "adir.csv");  // opens, but cannot be read (root reads chmod 000 files)
  expect_failure("eval -m coulomb-viscous -i adir.csv -o out.csv", {"adir.csv"});
  write_file(dir_ / "in.csv", "");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv", "empty"});
  write_file(dir_ / "in.csv", "time,velocity\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv", "no data rows"});
  // A column without a name is carried through as written, as any column
  // the model does not read (import leaves it out): a spreadsheet's export.
  write_file(dir_ / "in.csv", "time,,velocity\n0,1,2\n");
  EXPECT_EQ(run("eval -m coulomb-viscous -i in.csv -o out.csv").code, 0);
  EXPECT_NE(slurp(dir_ / "out.csv").find("0,1,2,"), std::string::npos) << slurp(dir_ / "out.csv");
  fs::remove(dir_ / "out.csv");
  write_file(dir_ / "in.csv", "time,velocity,model_force\n0,1,2\n");
  expect_failure("eval -m coulomb-viscous -i in.csv -o out.csv", {"in.csv", "model_force"});
}

TEST_F(Cli, UnwritableOutput) {
  write_file(dir_ / "in.csv", kGood);
  expect_failure("eval -m coulomb-viscous -i in.csv -o no/such/dir/out.csv", {"no/such/dir/out.csv"});
}

// A failure after many rows were already written to the temporary (the bad
// cell is in the last of 10000 rows, past two 4096-row blocks) must leave an
// existing output exactly as it was, and no temporary behind.
TEST_F(Cli, ExistingOutputUntouchedOnFailure) {
  std::string in = "time,velocity\n";
  for (int i = 0; i < 9999; ++i) in += std::to_string(i) + ",0.5\n";
  in += "9999,oops\n";
  write_file(dir_ / "in.csv", in);
  write_file(dir_ / "out.csv", "previous content\n");
  const RunResult r = run("eval -m coulomb-viscous -i in.csv -o out.csv");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("in.csv:10001: column 2"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir_ / "out.csv"), "previous content\n");
  EXPECT_TRUE(temporaries().empty());
  // The same run with the cell fixed replaces it.
  in.replace(in.find("oops"), 4, "0.5");
  write_file(dir_ / "in.csv", in);
  ASSERT_EQ(run("eval -m coulomb-viscous -i in.csv -o out.csv").code, 0);
  EXPECT_EQ(split(slurp(dir_ / "out.csv"), '\n').size(), 10001u);
}

}  // namespace
}  // namespace stribeck
