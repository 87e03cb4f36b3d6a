// calibration.hpp — fits named hardware parameters to declared calibration rows.
// Only parameters listed in results/published.json "calibration" may be fitted, each on
// at most one row per hardware family; every other row is a prediction.
#pragma once
#include <string>

namespace trnsim {

struct CalibrationFit {
  std::string parameter, workload;
  double published_seq_per_s = 0, fitted_value = 0, predicted_seq_per_s = 0;
  int iterations = 0;
};

// Fits `parameter` (currently "tensor.efficiency") of the workload's hardware so that the
// predicted throughput equals the published one (Gauss-Newton on log throughput, Eigen).
CalibrationFit calibrate(const std::string& workload_file, const std::string& parameter, double published_seq_per_s);

}  // namespace trnsim
