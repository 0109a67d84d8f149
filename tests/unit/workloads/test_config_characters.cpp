// Config text that toml++ 3.3.0 mishandles (an unreachable point on some
// non-ASCII characters where it expects whitespace, an assumption on what
// follows a table header's '['), found by the fuzz_toml campaign, is refused
// first with one line naming line and column; what TOML allows still parses.
#include <gtest/gtest.h>

#include <string>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/sweep.hpp"

namespace stribeck {
namespace {

const std::string kValid = R"(model = "coulomb-viscous"
[design]
type = "grid"
[params]
F_C = { linear = [1.0, 2.0], count = 2 }
[[trace]]
profile = "sine"
samples = 20
)";

std::string refusal(const std::string& text) {
  try {
    workloads::parse_sweep_config(text, "c.toml");
  } catch (const data::InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ConfigCharacters, RefusesWhatTomlForbidsBeforeTheParserSeesIt) {
  // Non-ASCII outside strings and comments (here where toml++ checks for whitespace).
  EXPECT_EQ(refusal("model = \"coulomb-viscous\"\n\xc3\xa4 = 1\n" + kValid.substr(kValid.find('\n') + 1)),
            "c.toml:2:1: non-ASCII character outside a string or comment (TOML allows them only there)");
  // A backslash before a non-ASCII character inside a string (the campaign's unreachable point).
  EXPECT_EQ(refusal("\"\"\"ion = \"rot\\\\\\\\\\\\\\\xc3\xa4t\"\"\""),
            "c.toml:1:20: invalid escape in a string (TOML knows \\b \\t \\n \\f \\r \\\" \\\\ \\u \\U)");
  // A table header whose '[' is followed by a newline (the campaign's assumption).
  EXPECT_EQ(refusal("# comment\n[\n\nx = 1\n"), "c.toml:2:1: a table header needs a key after '['");
  EXPECT_EQ(refusal("[[ `k]]\n"), "c.toml:1:1: a table header needs a key after '['");
  // Control characters anywhere, strings included.
  EXPECT_EQ(refusal("a = \"x\x01y\"\n"), "c.toml:1:7: control character 0x01 (TOML allows none but tab and newlines)");
}

TEST(ConfigCharacters, AcceptsWhatTomlAllows) {
  EXPECT_EQ(refusal(kValid), "");
  // Non-ASCII in comments, strings and quoted keys; escapes; line-ending
  // backslashes; arrays that span lines and start lines with '['.
  const std::string text = "# Reibung \xc2\xb5N \xe2\x80\x94 comment\n" + kValid +
                           "[run]\n"
                           "note = \"\xc3\xa4\\t\\u00e4 \\\"q\\\"\"\n"
                           "\"k\xc3\xa4y\" = 'lit\xc3\xa9ral \\x'\n"
                           "long = \"\"\"a \\\n   b \xc3\xa4\"\"\"\n"
                           "grid = [\n[1, 2],\n  [3, 4],\n]\n";
  const std::string why = refusal(text);
  EXPECT_EQ(why.find("non-ASCII"), std::string::npos) << why;
  EXPECT_EQ(why.find("invalid escape"), std::string::npos) << why;
  EXPECT_EQ(why.find("table header"), std::string::npos) << why;
  EXPECT_EQ(why.find("control character"), std::string::npos) << why;
}

}  // namespace
}  // namespace stribeck
