// intervals.hpp — prediction intervals from the validation corpus (issues 25 and 26).
// Why: a step time without its uncertainty invites over-trust. The interval of a prediction on
// hardware H is the spread of trnsim's leave-one-dataset-out errors (each row predicted by a fit
// that never saw its dataset), taken from results/validation.json:
//   * H is a measured chip (its datasheet BF16 peak and HBM bandwidth per chip equal those of a
//     hw file some performance row ran on): the 5th-95th percentiles of that family's rows;
//   * otherwise H is extrapolated (trn2, trn3, H200, ...): the percentiles of every family's rows
//     pooled, i.e. the error of carrying a fit to hardware it was not fitted on. Wider, as it must be.
// Errors are e = predicted / measured throughput - 1, so the measured throughput of a prediction
// P lies in [P / (1 + e95), P / (1 + e5)].
#pragma once
#include <map>
#include <string>
#include <vector>

#include "hw_spec.hpp"

namespace trnsim {

struct Interval {
  double e_lo = 0, e_hi = 0;  // 5th and 95th percentile of the errors (fractions)
  size_t rows = 0;            // residuals behind it
  std::string basis;          // "family h100 (measured chip)" or "extrapolated: all families pooled"
  bool extrapolated = false;
  // The interval of a throughput-like prediction (bigger = faster), and of a time-like one.
  double throughput_lo(double p) const { return p / (1 + e_hi); }
  double throughput_hi(double p) const { return p / (1 + e_lo); }
  double time_lo(double t) const { return t * (1 + e_lo); }
  double time_hi(double t) const { return t * (1 + e_hi); }
};

class IntervalModel {
 public:
  // Reads validation.json (rows with "hw", "family", "quantity", "error_lodo_pct"); a missing or
  // malformed file is a ConfigError naming it.
  explicit IntervalModel(const std::string& validation_json);
  Interval for_hw(const HwSpec& hw) const;

 private:
  struct Chip {
    double bf16_tflops_per_chip, hbm_GBps_per_chip;
    std::string family;
  };
  std::map<std::string, std::vector<double>> by_family_;
  std::vector<double> pooled_;
  std::vector<Chip> measured_;
};

// The q-quantile (0..1) of xs by linear interpolation between order statistics.
double quantile(std::vector<double> xs, double q);

}  // namespace trnsim
