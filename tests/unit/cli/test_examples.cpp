// Every config under examples/ runs as documented: the sweep and single
// simulation examples as shipped (output redirected to scratch), the
// ensemble examples on a 3-level version of their grids (their full size
// takes tens of seconds). An example of an unknown kind fails the test, so a
// new one cannot go unchecked.
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "temp_dir.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace stribeck {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int run_cli(const std::string& args, std::string& out) { return test::run_cli(args, &out); }

// The ensemble with every grid count and point count cut to 3, and relative
// input logs made absolute (the copy lives in the scratch directory).
std::string reduced_ensemble(const std::string& text, const fs::path& dir) {
  const size_t at = text.find("[ensemble]");
  std::string head = text.substr(0, at), tail = text.substr(at);
  tail = std::regex_replace(tail, std::regex(R"(((linear|log):[^:"]+:[^:"]+):\d+")"), "$1:3\"");
  tail = std::regex_replace(tail, std::regex(R"(points\s*=\s*\d+)"), "points = 4");
  head = std::regex_replace(head, std::regex(R"re(inputs\s*=\s*"([^/"][^"]*)")re"),
                            "inputs = \"" + dir.string() + "/$1\"");
  return head + tail;
}

TEST(Examples, EveryExampleRuns) {
  const fs::path dir = fs::path(STRIBECK_SOURCE_DIR) / "examples";
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".toml") files.push_back(e.path());
  ASSERT_GE(files.size(), 8u);
  for (const auto& f : files) {
    const std::string name = f.stem().string(), text = read_text(f);
    const std::string out = stribeck::test::temp_dir() + name + ".h5";
    std::string log;
    SCOPED_TRACE(name);
    if (name.rfind("sweep_", 0) == 0) {
      ASSERT_EQ(run_cli("sweep " + f.string() + " -o " + out + " -q", log), 0) << log;
      EXPECT_NE(log.find("written to " + out), std::string::npos) << log;
    } else if (name.rfind("simulate_", 0) == 0 && text.find("[ensemble]") != std::string::npos) {
      const std::string cfg = stribeck::test::temp_dir() + name + ".toml";
      std::ofstream(cfg) << reduced_ensemble(text, dir);
      ASSERT_EQ(run_cli("simulate " + cfg + " -o " + out + " -q", log), 0) << log;
      std::smatch m;
      ASSERT_TRUE(std::regex_search(log, m, std::regex(R"(ensemble of (\d+) points)"))) << log;
      EXPECT_LE(std::stoi(m[1]), 27) << "the reduced grid";
      EXPECT_NE(log.find("status ok " + m[1].str() + ","), std::string::npos) << log;  // every point ran
    } else if (name.rfind("simulate_", 0) == 0) {
      ASSERT_EQ(run_cli("simulate " + f.string() + " -o " + out, log), 0) << log;
      EXPECT_NE(log.find("status ok;"), std::string::npos) << log;
      if (name.find("stick_slip") != std::string::npos) EXPECT_NE(log.find("stick-slip yes"), std::string::npos) << log;
    } else {
      ADD_FAILURE() << "example " << f << " is neither sweep_* nor simulate_*: teach this test to run it";
      continue;
    }
    EXPECT_TRUE(std::ifstream(out).good());
  }
}

}  // namespace
}  // namespace stribeck
