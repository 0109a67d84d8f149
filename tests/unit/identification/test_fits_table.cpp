// identify --table on the record mechanism (engine/records.hpp): its header
// and cells come from its field table (fits_table_record), a fit's status as
// its word, and the text of a table of known fits is the one written out
// here by hand from the format (docs/identification.md: %.6g for rmse and
// R², %.10g for a value, %.4g for its standard error), not from the code
// under test.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "record_fields.hpp"
#include "stribeck/engine/records.hpp"
#include "stribeck/identification/fit_outputs.hpp"

namespace stribeck {
namespace {

using test::names_of;

ident::ParameterEstimate estimate(const std::string& name, double value, double std_error) {
  ident::ParameterEstimate p;
  p.name = name;
  p.value = value;
  p.std_error = std_error;
  return p;
}

TEST(RecordsTable, IdentifyTableIsTheFitsTable) {
  const ident::FitsTableRecord t = ident::fits_table_record();
  EXPECT_EQ(names_of(t.lead),
            (std::vector<std::string>{"fit", "model", "status", "converged", "samples", "rmse", "r_squared"}));
  std::vector<std::string> units;
  for (const auto& c : engine::record_csv_columns(t.lead, false)) units.push_back(c.units);
  EXPECT_EQ(units, (std::vector<std::string>{"1", "1", "1", "1", "1", "N", "1"}));
  EXPECT_EQ(names_of(t.parameter), (std::vector<std::string>{"", "_std_error"}));  // after the parameter's name
  EXPECT_EQ(names_of(t.tail), (std::vector<std::string>{"warnings"}));
  // The status is a word field: FitStatus's names, then bad-data.
  EXPECT_EQ(t.lead[2].storage, engine::FieldStorage::kWord);
  const auto flags = engine::field_column(t.lead[2], false).flags;
  EXPECT_EQ(flags, (std::vector<std::pair<int, std::string>>{
                       {0, "converged"}, {1, "max_iterations"}, {2, "singular"}, {3, "failed"}, {4, "bad_data"}}));
}

TEST(RecordsTable, IdentifyTableTextOfKnownFits) {
  ident::FitSummary a;
  a.model = "coulomb-viscous";
  a.status = ident::FitStatus::kConverged;
  a.converged = true;
  a.samples = 401;
  a.rmse = 0.0998864123;
  a.r_squared = 0.99998412;
  a.parameters = {estimate("F_C", 19.98035755, 0.0104321), estimate("f_v", 100.4830533, 0.17871)};
  ident::FitSummary b;
  b.model = "coulomb-viscous";
  b.status = ident::FitStatus::kMaxIterations;
  b.samples = 12;
  b.rmse = 1.5;
  b.r_squared = 0.25;
  b.parameters = {estimate("F_C", 2, std::numeric_limits<double>::quiet_NaN())};
  b.warnings = {"one", "two"};
  ident::FitSummary c;  // not fitted: only its model is known
  c.model = "coulomb-viscous";
  c.samples = 0;
  const std::string text = ident::fits_table_csv({{"joint", a}, {"b", b}, {"x,y", c}}, {"", "", "no motion"});
  EXPECT_EQ(text,
            "fit,model,status,converged,samples,rmse,r_squared,F_C,F_C_std_error,f_v,f_v_std_error,warnings\n"
            "joint,coulomb-viscous,converged,true,401,0.0998864,0.999984,19.98035755,0.01043,100.4830533,0.1787,0\n"
            "b,coulomb-viscous,max_iterations,false,12,1.5,0.25,2,nan,,,2\n"
            "\"x,y\",coulomb-viscous,bad-data,false,0,nan,nan,,,,,0\n");
}

}  // namespace
}  // namespace stribeck
