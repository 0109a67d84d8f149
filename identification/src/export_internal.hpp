#pragma once
// What export_params' sources share (export_params.hpp is the public face):
// the export's view of a model (export_traits.cpp), the conversion at one
// operating point (export_convert.cpp, export_stick_slip.cpp) and the
// writers per target tool (export_writers.cpp, export_text.cpp).
#include <cstdio>
#include <string>
#include <vector>

#include "stribeck/data/log.hpp"
#include "stribeck/identification/export_params.hpp"
#include "stribeck/kernels/registry.hpp"

namespace stribeck::ident::exporter {

// %.17g: reads back to the same double in MATLAB, Modelica tools and 20-sim.
inline std::string num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}
inline std::string short_num(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

// The laws the export treats by name; every model id is compared here only
// (law_of), so a new model is kOther until the export learns its block.
enum class Law {
  kSimscapeTranslational,
  kSimscapeRotational,
  kSimscapeCylinder,
  kSimscapeCylinderIl,
  kTwentySimC,
  kTwentySimV,
  kTwentySimCv,
  kTwentySimScvs,
  kTwentySimLugre,
  kCoulombViscous,
  kLugre,
  kDahl,
  kOther,
};
Law law_of(const std::string& model_id);
// A 20-sim submodel (forces are F_n times its coefficients).
bool is_twentysim(Law law);
// A Simscape cylinder law (its Coulomb level grows with p_A + p_B).
bool is_pressure_law(Law law);
// The 20-sim submodel's name (C, V, CV, SCVS, LuGre).
const char* twentysim_submodel(Law law);

// The force a law's contact holds at rest before it slides, as the stiction
// simulation takes it.
double breakaway_of(const std::string& id, const std::vector<double>& p, double pressure, double f_n);
// The law's own velocity scale: 100 x the largest parameter in a velocity unit.
double law_velocity_scale(const ModelInfo& m, const std::vector<double>& p);

// A static law's force on velocities `v` at one pressure and normal force.
std::vector<double> eval_law(const std::string& model, const std::vector<double>& params, const std::vector<double>& v,
                             double pressure, double f_n);

// The operating points a conversion is taken at. `pressure` / `normal_force`:
// whether it depends on p_A + p_B / F_n; `why` names the conversion.
std::vector<OperatingPoint> operating_points(const ExportOptions& o, const std::vector<data::Experiment>& data,
                                             bool pressure, bool normal_force, const std::string& why);

// The conversion of `src` for `target` at one operating point.
ExportConversion convert(const ParamFile& src, ExportTarget target, const ExportOptions& o,
                         const std::vector<data::Experiment>& data, const OperatingPoint& at);

// Velocity where the fitted law falls fastest on the grid (the stick-slip
// check's drive), and the check itself (sets c.stick).
double check_drive_velocity(const std::vector<double>& v, const std::vector<double>& f);
void stick_slip_check(ExportConversion& c, double v_d, const std::string& src_model,
                      const std::vector<double>& src_params, double src_fn, bool rotational);

// Text shared by the writers and the summary.
std::string stick_slip_text(const StickSlipCheck& s, const std::string& vunit, const std::string& funit);
bool breakaway_differs(const ExportConversion& c);
std::string breakaway_warning(const ExportConversion& c, const std::string& funit);
std::string file_header(const char* cm, const ParamFile& src, const std::string& fit_path);
std::string conversion_lines(const char* cm, const ExportConversion& c, const std::string& vunit,
                             const std::string& funit);
std::string identifier(const std::string& label);

// The file for each target tool.
std::string write_simscape(const ParamFile& src, const std::string& fit_path, const std::vector<ExportConversion>& cs);
std::string write_modelica(const ParamFile& src, const std::string& fit_path, const std::vector<ExportConversion>& cs);
std::string write_twentysim(const ParamFile& src, const std::string& fit_path, const std::vector<ExportConversion>& cs);
std::string write_json(const ParamFile& src, const std::string& fit_path, const ExportConversion& c);

}  // namespace stribeck::ident::exporter
