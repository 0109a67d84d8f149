// Model metadata and parameter validation.
#include <gtest/gtest.h>

#include <set>

#include "stribeck/data/error.hpp"
#include "stribeck/workloads/params.hpp"

namespace stribeck {
namespace {

TEST(Registry, EveryModelHasUniqueIdAndValidDefaults) {
  std::set<std::string> ids;
  for (const auto& m : all_models()) {
    EXPECT_TRUE(ids.insert(m.id).second) << m.id;
    const auto d = m.defaults();
    EXPECT_TRUE(validate_params(m, d.data()).empty()) << m.id;
    EXPECT_TRUE(m.needs(kChannelVelocity)) << m.id;
  }
  EXPECT_EQ(ids.size(), 19u);
}

TEST(Registry, RelationViolationNamesBothParameters) {
  const ModelInfo& m = workloads::require_model("simscape-translational");
  try {
    workloads::resolve_params(m, {"F_brk=10", "F_C=20"});
    FAIL() << "F_brk < F_C accepted";
  } catch (const data::InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("F_brk = 10"), std::string::npos) << msg;
    EXPECT_NE(msg.find("F_C = 20"), std::string::npos) << msg;
  }
}

TEST(Registry, RangeViolationsAreReported) {
  struct Case {
    const char* model;
    const char* assignment;
    const char* expect;
  };
  const Case cases[] = {
      {"simscape-translational", "v_brk=0", "v_brk = 0 must be > 0"},
      {"simscape-cylinder", "v_th=-1e-4", "v_th = -1e-04 must be > 0"},
      {"simscape-cylinder", "K_brk=0.5", "K_brk = 0.5 must be >= 1"},
      {"simscape-cylinder-il", "R_brk=0.9", "R_brk = 0.9 must be >= 1"},
      {"20sim-c", "slope=0", "slope = 0 must be > 0"},
      {"20sim-scvs", "mu_s=0.01", "mu_s = 0.01 must be >= mu_c"},
      {"coulomb-viscous", "f_v=-1", "f_v = -1 must be >= 0"},
      {"simscape-rotational", "T_brk=1", "T_brk = 1 must be >= T_C"},
  };
  for (const auto& c : cases) {
    try {
      workloads::resolve_params(workloads::require_model(c.model), {c.assignment});
      ADD_FAILURE() << c.model << " accepted " << c.assignment;
    } catch (const data::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.expect), std::string::npos) << e.what();
    }
  }
}

TEST(Registry, MalformedAssignmentsAreRejected) {
  const ModelInfo& m = workloads::require_model("coulomb-viscous");
  EXPECT_THROW(workloads::resolve_params(m, {"F_C"}), data::InputError);
  EXPECT_THROW(workloads::resolve_params(m, {"nope=1"}), data::InputError);
  EXPECT_THROW(workloads::resolve_params(m, {"F_C=abc"}), data::InputError);
  EXPECT_THROW(workloads::resolve_params(m, {"F_C=nan"}), data::InputError);
  EXPECT_THROW(workloads::resolve_params(m, {"F_C=1", "F_C=2"}), data::InputError);
  EXPECT_THROW(workloads::require_model("no-such-model"), data::InputError);
  EXPECT_EQ(workloads::resolve_params(m, {"F_C=3.5"})[0], 3.5);
}

}  // namespace
}  // namespace stribeck
