#pragma once
// Offline signal processing for rig logs: zero-phase differentiation,
// resampling and segmentation. Runs once per log on the host, so it lives in
// data/ rather than kernels/.
//
// Differentiation is a Savitzky-Golay filter generalised to the actual time
// stamps: at every sample a polynomial of `order` is fitted by least squares
// to the 2M+1 samples around it (shifted inwards at the ends) and its
// derivative is taken at the sample. On uniform time this is exactly the
// classic SG differentiator: symmetric, hence zero phase. The half-width M is
// chosen so that the SG smoother of that order and width has its -3 dB point
// at the requested cut-off (computed from its frequency response at the mean
// sample rate).
#include <cstddef>
#include <string>
#include <vector>

#include "stribeck/data/experiment.hpp"

namespace stribeck::data {

struct DeriveOptions {
  // -3 dB cut-off [Hz] of the smoothing; 0 = sample rate / 20.
  double cutoff_hz = 0.0;
  // Polynomial order of the local fit (>= 2 for acceleration; 2 = quadratic).
  int order = 2;
};

// Half-width M (in samples) for a cut-off at `cutoff_hz` with sample rate
// `rate_hz` and polynomial `order`; at least order/2 + 1.
int sg_half_width(double cutoff_hz, double rate_hz, int order);
// The -3 dB frequency, as a fraction of the sample rate, of the uniform SG
// smoother of half-width M and `order` (measured from its response).
double sg_cutoff_fraction(int half_width, int order);

// d^k x / dt^k (k = 0: smoothed x, 1, 2) by local polynomial fits; t must be
// strictly increasing, sizes equal, at least order+1 samples.
std::vector<double> sg_derivative(const std::vector<double>& t, const std::vector<double>& x, int deriv, int half_width,
                                  int order);

struct DeriveSummary {
  double rate_hz = 0;                // mean sample rate
  double cutoff_hz = 0;              // cut-off used
  int half_width = 0;                // samples each side
  std::vector<std::string> derived;  // channels added
};
// Adds the requested channels ("velocity", "acceleration") to `e`:
// velocity from position; acceleration from velocity if measured, else the
// second derivative of position. Refuses to overwrite a measured channel.
// Records the method and cut-off as experiment attributes
// (derived_<channel> = "savitzky-golay order 2, half-width 11, cutoff 4.75 Hz").
DeriveSummary derive_channels(Experiment& e, const std::vector<std::string>& channels,
                              const DeriveOptions& options = {});

// Parallel filtering (Gautier's practice in inverse-dynamic identification,
// IDIM-LS): every channel of a log is low-pass filtered by the SAME
// zero-phase filter L, the missing kinematics are differentiated from the
// filtered position (or velocity), and the result is decimated. Because L is
// linear and time-invariant it commutes with differentiation, so the derived
// velocity is L v and the derived acceleration L a, the force channel is
// L force, and the force balance  force = F(v) + m a + ...  holds between the
// filtered channels wherever L F(v) = F(L v): everywhere for the linear terms,
// and for the friction law wherever the velocity keeps its sign over the
// filter's support. Samples within the support of a velocity reversal (or of
// either end of the log) are therefore left out.
//
// L: a Blackman kernel w(u) = 0.42 + 0.5 cos(pi u) + 0.08 cos(2 pi u), |u| < 1,
// u = (t_k - t_i) / T, weights normalised to unit sum at every sample (on
// uniform time a symmetric FIR filter: zero phase, unit DC gain, side lobes
// below -58 dB). T is chosen so that its -3 dB point is the requested cut-off
// (T ~ 0.41 / cutoff). Derivatives of the filtered signal: the 5-point
// central differences (4th order; on non-uniform time the quartic through 5
// samples). Decimation: every D-th sample, D = round(1.25 T rate) by default,
// where the filtered white noise's lag-D correlation is ~2 %. Time stamps that
// are not uniform (to 1e-6 of the step) are first resampled linearly onto the
// uniform grid of the same mean step (resample_uniform), for every channel.
struct ParallelFilterOptions {
  // -3 dB cut-off [Hz] of L; 0 = sample rate / 20 (the derive default).
  double cutoff_hz = 0.0;
  // Keep every D-th sample; 0 = automatic (round(1.25 T rate)), 1 = all.
  int decimation = 0;
};
struct ParallelFilterSummary {
  double rate_hz = 0;       // mean sample rate of the input
  double cutoff_hz = 0;     // -3 dB cut-off used
  double half_width_s = 0;  // T: the kernel's half support [s]
  int decimation = 1;       // D
  std::size_t samples_in = 0, samples_out = 0;
  std::size_t near_reversal = 0;     // samples of the decimation grid left out near a velocity reversal
  std::size_t near_end = 0;          // ... and near an end of the log (those near both count here)
  std::vector<std::size_t> rows;     // the input's row of each kept sample (nearest in time when resampled)
  bool resampled = false;            // time stamps were not uniform: resampled linearly first
  std::vector<std::string> derived;  // channels added
  std::string method;                // one line, also stored as the "parallel_filter" attribute
};
// The -3 dB frequency [Hz] of the Blackman kernel of half support T [s] on
// uniform samples at rate_hz.
double blackman_cutoff_hz(double half_width_s, double rate_hz);
// The half support T [s] whose -3 dB point is cutoff_hz at rate_hz.
double blackman_half_width(double cutoff_hz, double rate_hz);
// L x at the samples `at` (every sample when `at` is null); t strictly increasing.
std::vector<double> blackman_smooth(const std::vector<double>& t, const std::vector<double>& x, double half_width_s,
                                    const std::vector<std::size_t>* at = nullptr);
// Returns `e` filtered as described above: `derive` lists the channels to
// derive ("velocity", "acceleration"; as derive_channels), every other
// channel is filtered, and only the kept samples remain (time included).
// Throws InputError when no sample is left or the log cannot be filtered.
Experiment parallel_filter(const Experiment& e, const std::vector<std::string>& derive,
                           const ParallelFilterOptions& options = {}, ParallelFilterSummary* summary = nullptr);

// Resamples every channel onto t0, t0+dt, ... (linear interpolation); dt = 0
// uses the median time step. Needs a time channel.
void resample_uniform(Experiment& e, double dt = 0.0);

// Indices i where the velocity changes sign (|v| <= deadband counts as no
// motion and keeps the previous direction).
std::vector<std::size_t> find_reversals(const std::vector<double>& velocity, double deadband);

struct PlateauOptions {
  double rel_tolerance = 0.05;   // |v - plateau mean| <= max(rel * |mean|, abs)
  double abs_tolerance = 1e-5;   // [m/s] (rad/s for rotational logs)
  double min_duration = 0.2;     // [s]
  double settle_fraction = 0.2;  // leading part of each plateau left out of the means (transients)
};
struct Plateau {
  std::size_t begin = 0, end = 0;  // samples [begin, end)
  int direction = 0;               // +1 or -1
  double velocity = 0;             // mean velocity over the settled part
  double force = 0;                // mean force over the settled part
  double force_std = 0;            // its standard deviation
  double duration = 0;             // [s], whole plateau
};
// Constant-velocity stretches with their mean force: the points of a
// measured Stribeck curve, in time order, both directions.
std::vector<Plateau> find_plateaus(const std::vector<double>& time, const std::vector<double>& velocity,
                                   const std::vector<double>& force, const PlateauOptions& options = {});

}  // namespace stribeck::data
