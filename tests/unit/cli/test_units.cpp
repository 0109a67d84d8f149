// Units by composition: every SI prefix on every base unit, powers, products
// and quotients, the domain rules the grammar keeps (affine temperatures,
// units outside SI without prefixes, torque vs energy), and the import of a
// microtribometer log in micronewtons.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "temp_dir.hpp"
#include "stribeck/data/error.hpp"
#include "stribeck/data/import.hpp"
#include "stribeck/data/log.hpp"
#include "stribeck/data/units.hpp"

namespace stribeck {
namespace {

// 10^e, computed in long double from the exponent (not from the code's table).
double pow10(int e) { return static_cast<double>(std::pow(10.0L, static_cast<long double>(e))); }

void expect_unit(const std::string& text, double factor, data::Dimension dim, const std::string& si) {
  SCOPED_TRACE(text);
  const auto u = data::find_unit(text);
  ASSERT_TRUE(u.has_value());
  EXPECT_NEAR(u->factor, factor, 1e-15 * std::abs(factor));
  EXPECT_EQ(u->dimension, dim) << data::dimension_name(u->dimension);
  EXPECT_EQ(u->si, si);
  EXPECT_EQ(u->offset, 0.0);
  EXPECT_FALSE(u->absolute_pressure);
}

// The SI Brochure's prefixes (9th edition and the 2022 resolution).
struct PrefixRow {
  const char* symbol;
  int exponent;
};
const PrefixRow kSIPrefixes[] = {
    {"q", -30}, {"r", -27}, {"y", -24}, {"z", -21}, {"a", -18}, {"f", -15}, {"p", -12}, {"n", -9}, {"u", -6},
    {"µ", -6},  {"μ", -6},  {"m", -3},  {"c", -2},  {"d", -1},  {"da", 1},  {"h", 2},   {"k", 3},  {"M", 6},
    {"G", 9},   {"T", 12},  {"P", 15},  {"E", 18},  {"Z", 21},  {"Y", 24},  {"R", 27},  {"Q", 30},
};

struct BaseRow {
  const char* symbol;
  double factor;  // SI value of one unit
  data::Dimension dim;
  const char* si;
};
const BaseRow kPrefixable[] = {
    {"m", 1, data::Dimension::kLength, "m"},     {"s", 1, data::Dimension::kTime, "s"},
    {"g", 1e-3, data::Dimension::kOther, "kg"},  {"K", 1, data::Dimension::kTemperature, "K"},
    {"rad", 1, data::Dimension::kAngle, "rad"},  {"N", 1, data::Dimension::kForce, "N"},
    {"Pa", 1, data::Dimension::kPressure, "Pa"}, {"bar", 1e5, data::Dimension::kPressure, "Pa"},
    {"Hz", 1, data::Dimension::kOther, "Hz"},    {"Nm", 1, data::Dimension::kTorque, "N*m"},
};

TEST(Units, EveryPrefixOnEveryBaseUnit) {
  for (const auto& b : kPrefixable) {
    expect_unit(b.symbol, b.factor, b.dim, b.si);
    for (const auto& p : kSIPrefixes) {
      const std::string unit = std::string(p.symbol) + b.symbol;
      expect_unit(unit, pow10(p.exponent) * b.factor, b.dim, b.si);
      // Powers apply to the prefixed unit: (k m)^2 = 1e6 m^2, not k (m^2).
      if (b.dim == data::Dimension::kLength) {
        expect_unit(unit + "^2", pow10(2 * p.exponent), data::Dimension::kOther, "m^2");
        expect_unit("N/" + unit + "^2", pow10(-2 * p.exponent), data::Dimension::kPressure, "Pa");
      }
      // Inside products and quotients too.
      if (b.dim == data::Dimension::kForce) expect_unit(unit + "/s", pow10(p.exponent), data::Dimension::kOther, "N/s");
    }
  }
}

TEST(Units, CompositionsFromTheIssueAndRigLogs) {
  const double lbf = 0.45359237 * 9.80665, inch = 0.0254, pi = 3.14159265358979323846;
  expect_unit("uN", 1e-6, data::Dimension::kForce, "N");
  expect_unit("µN", 1e-6, data::Dimension::kForce, "N");
  expect_unit("μN", 1e-6, data::Dimension::kForce, "N");
  expect_unit("nm/s", 1e-9, data::Dimension::kVelocity, "m/s");
  expect_unit("µm/s", 1e-6, data::Dimension::kVelocity, "m/s");
  expect_unit("MPa", 1e6, data::Dimension::kPressure, "Pa");
  expect_unit("N*m/rad", 1, data::Dimension::kOther, "N*m/rad");
  expect_unit("N·m/deg", 180 / pi, data::Dimension::kOther, "N*m/rad");
  expect_unit("kN/(m/s)", 1e3, data::Dimension::kOther, "N/(m/s)");
  expect_unit("N/(mm/s)", 1e3, data::Dimension::kOther, "N/(m/s)");
  expect_unit("N*s/m", 1, data::Dimension::kOther, "N*s/m");
  expect_unit("m/s^2", 1, data::Dimension::kAcceleration, "m/s^2");
  expect_unit("m/s²", 1, data::Dimension::kAcceleration, "m/s^2");
  expect_unit("m/s2", 1, data::Dimension::kAcceleration, "m/s^2");
  expect_unit("m*s^-2", 1, data::Dimension::kAcceleration, "m/s^2");
  expect_unit("mm/ms^2", 1e3, data::Dimension::kAcceleration, "m/s^2");
  expect_unit("s^-1", 1, data::Dimension::kOther, "s^-1");
  expect_unit("s⁻¹", 1, data::Dimension::kOther, "s^-1");
  expect_unit("1/s", 1, data::Dimension::kOther, "1/s");
  expect_unit("mm³", 1e-9, data::Dimension::kOther, "m^3");
  expect_unit("N/mm²", 1e6, data::Dimension::kPressure, "Pa");
  expect_unit("kg*m/s^2", 1, data::Dimension::kForce, "N");
  expect_unit("g*cm/s^2", 1e-5, data::Dimension::kForce, "N");  // the dyne
  expect_unit("lbf/in^2", lbf / (inch * inch), data::Dimension::kPressure, "Pa");
  expect_unit("km/h", 1e3 / 3600, data::Dimension::kVelocity, "m/s");
  expect_unit("in/min", inch / 60, data::Dimension::kVelocity, "m/s");
  expect_unit("rev/min", 2 * pi / 60, data::Dimension::kAngularVelocity, "rad/s");
  expect_unit("rev/s", 2 * pi, data::Dimension::kAngularVelocity, "rad/s");
  expect_unit("deg/s^2", pi / 180, data::Dimension::kAngularAcceleration, "rad/s^2");
  expect_unit("mrad/s", 1e-3, data::Dimension::kAngularVelocity, "rad/s");
  expect_unit("um/m", 1e-6, data::Dimension::kDimensionless, "1");
  expect_unit("K/s", 1, data::Dimension::kOther, "K/s");
  expect_unit("mK", 1e-3, data::Dimension::kTemperature, "K");
  expect_unit("(N/m)^2", 1, data::Dimension::kOther, "(N/m)^2");
  // Torque in every spelling; energy (J) is not a torque and not a unit here.
  for (const char* t : {"N*m", "N·m", "N⋅m", "N.m", "Nm", "N m"}) expect_unit(t, 1, data::Dimension::kTorque, "N*m");
  for (const char* t : {"kN*m", "kNm", "kN.m"}) expect_unit(t, 1e3, data::Dimension::kTorque, "N*m");
  for (const char* t : {"mN*m", "mNm", "N*mm", "Nmm", "uN*km"}) expect_unit(t, 1e-3, data::Dimension::kTorque, "N*m");
  EXPECT_FALSE(data::find_unit("J").has_value());
  EXPECT_FALSE(data::find_unit("kJ").has_value());
}

TEST(Units, UnitsOutsideSITakeNoPrefix) {
  for (const char* u : {"kmin", "mh", "kin", "min2x", "mdeg", "krev", "klbf", "kpsi", "katm", "krpm", "m%", "ksec",
                        "mdegC", "mC", "kF", "MdegF", "kNmm"})
    EXPECT_FALSE(data::find_unit(u).has_value()) << u;
  // ... though they combine with other units.
  expect_unit("min", 60, data::Dimension::kTime, "s");
  expect_unit("h", 3600, data::Dimension::kTime, "s");
  expect_unit("psi/s", 0.45359237 * 9.80665 / (0.0254 * 0.0254), data::Dimension::kOther, "Pa/s");
}

TEST(Units, AffineTemperaturesStandAlone) {
  for (const char* u : {"degC", "°C", "C"}) {
    const auto t = data::find_unit(u);
    ASSERT_TRUE(t.has_value()) << u;
    EXPECT_EQ(t->dimension, data::Dimension::kTemperature);
    EXPECT_EQ(t->factor, 1.0);
    EXPECT_EQ(t->offset, 273.15);
  }
  for (const char* u : {"degF", "°F", "F"}) {
    const auto t = data::find_unit(u);
    ASSERT_TRUE(t.has_value()) << u;
    // 32 degF = 273.15 K, 212 degF = 373.15 K.
    EXPECT_NEAR(t->factor * 32 + t->offset, 273.15, 1e-12);
    EXPECT_NEAR(t->factor * 212 + t->offset, 373.15, 1e-12);
  }
  // An affine unit is no factor: not in products, quotients or powers.
  for (const char* u : {"degC/s", "C/s", "degC^2", "C*m", "1/degC", "(degC)", "°C/min"})
    EXPECT_FALSE(data::find_unit(u).has_value()) << u;
}

TEST(Units, PressureReferenceOnPrefixedUnits) {
  struct Case {
    const char* unit;
    double factor;
    bool absolute;
  };
  const Case cases[] = {{"bara", 1e5, true},
                        {"bar(a)", 1e5, true},
                        {"bar (abs)", 1e5, true},
                        {"mbara", 1e2, true},
                        {"kPa(abs)", 1e3, true},
                        {"MPaa", 1e6, true},
                        {"psia", 6894.757293168361, true},
                        {"barg", 1e5, false},
                        {"kPa(g)", 1e3, false},
                        {"Pa", 1, false},
                        {"daPa", 10, false},
                        {"aPa", 1e-18, false}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.unit);
    const auto u = data::find_unit(c.unit);
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->dimension, data::Dimension::kPressure);
    EXPECT_NEAR(u->factor, c.factor, 1e-15 * c.factor);
    EXPECT_EQ(u->absolute_pressure, c.absolute);
  }
  // A suffix only marks a pressure.
  EXPECT_FALSE(data::find_unit("Na").has_value());
  EXPECT_FALSE(data::find_unit("m(abs)").has_value());
}

TEST(Units, MalformedExpressionsAreRefused) {
  for (const char* u : {"m/",  "/s",  "m^",   "m^-", "(m/s",    "m/s)",   "m^0", "m^123", "**",    "m**s", "kkN",
                        "1^2", "%^2", "m//s", "()",  "furlong", "parsec", "Mx",  "^2",    "m^2^2", "ab",   "N m kg"})
    EXPECT_FALSE(data::find_unit(u).has_value()) << u;
}

TEST(Units, QuantitiesInComposedUnits) {
  std::optional<data::Dimension> d;
  EXPECT_NEAR(data::parse_quantity("250 uN", "q", &d), 2.5e-4, 1e-19);
  EXPECT_EQ(d, data::Dimension::kForce);
  EXPECT_NEAR(data::parse_quantity("3 µm/s", "q", &d), 3e-6, 1e-21);
  EXPECT_EQ(d, data::Dimension::kVelocity);
  EXPECT_NEAR(data::parse_quantity("2kN/(m/s)", "q", &d), 2e3, 1e-12);
  EXPECT_EQ(d, data::Dimension::kOther);
  try {
    data::parse_quantity("3 kmin", "--duration", &d);
    ADD_FAILURE() << "no error";
  } catch (const data::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown unit 'kmin'"), std::string::npos) << e.what();
  }
}

// A microtribometer log: forces in micronewtons, as the instrument writes them.
TEST(Units, MicronewtonLogImports) {
  const std::string dir = test::temp_dir();
  const std::string csv = dir + "micro.csv";
  std::ofstream(csv) << "Time [s],Position [um],Normal [uN],Friction [uN]\n"
                        "0,0,500,-120.5\n0.01,2.5,501.25,118\n0.02,5,499.75,121.25\n";
  const data::Experiment e = data::read_text_log(csv, data::ReadOptions{});
  ASSERT_TRUE(e.has("normal_force"));
  ASSERT_TRUE(e.has("force"));
  EXPECT_EQ(e.units.at("normal_force"), "N");
  EXPECT_EQ(e.units.at("force"), "N");
  EXPECT_EQ(e.units.at("position"), "m");
  const std::vector<double> fn{500e-6, 501.25e-6, 499.75e-6}, f{-120.5e-6, 118e-6, 121.25e-6}, x{0, 2.5e-6, 5e-6};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(e.channels.at("normal_force")[i], fn[i], 1e-18);
    EXPECT_NEAR(e.channels.at("force")[i], f[i], 1e-18);
    EXPECT_NEAR(e.channels.at("position")[i], x[i], 1e-21);
  }

  // The same log through the CLI, µ spelled as U+00B5, into an HDF5 log in SI.
  const std::string mu = dir + "micro_mu.csv", h5 = dir + "micro.h5";
  std::ofstream(mu) << "Time [s];Normal [µN];Friction [µN]\n0;500;-120,5\n0,01;501,25;118\n";
  std::string out;
  ASSERT_EQ(test::run_cli("import " + mu + " -o " + h5, &out), 0) << out;
  const auto log = data::read_log(h5);
  ASSERT_EQ(log.size(), 1u);
  EXPECT_EQ(log[0].units.at("force"), "N");
  EXPECT_NEAR(log[0].channels.at("force")[0], -120.5e-6, 1e-18);
  EXPECT_NEAR(log[0].channels.at("normal_force")[1], 501.25e-6, 1e-18);

  // A unit of the wrong quantity for a schema channel still names both.
  const std::string bad = dir + "micro_bad.csv";
  std::ofstream(bad) << "Time [s],Normal [um/s]\n0,1\n1,2\n";
  try {
    data::read_text_log(bad, data::ReadOptions{});
    ADD_FAILURE() << "no error";
  } catch (const data::InputError& err) {
    EXPECT_NE(std::string(err.what()).find("unit 'um/s' is velocity, channel 'normal_force' needs force"),
              std::string::npos)
        << err.what();
  }
}

TEST(Units, RotationalUnitMapsByDimension) {
  // Force -> torque, displacement -> angle, mass -> moment of inertia; what a
  // power or a divisor applies to stays one product.
  const std::pair<const char*, const char*> cases[] = {
      {"N", "N*m"},         {"m", "rad"},       {"m/s", "rad/s"},
      {"m/s^2", "rad/s^2"}, {"N/m", "N*m/rad"}, {"N/(m/s)", "N*m/(rad/s)"},
      {"s/m", "s/rad"},     {"N^2", "(N*m)^2"}, {"1/N", "1/(N*m)"},
      {"kg", "kg*m^2"},     {"1", "1"},         {"s", "s"}};
  for (const auto& [t, r] : cases) EXPECT_EQ(data::rotational_unit(t), r) << t;
  // Each mapped unit is the SI spelling of what it names.
  EXPECT_EQ(data::find_unit(data::rotational_unit("N/m"))->si, data::find_unit("N*m/rad")->si);
}

}  // namespace
}  // namespace stribeck
