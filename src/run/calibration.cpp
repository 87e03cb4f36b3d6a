// calibration.cpp — see calibration.hpp. The solver is written for k parameters and k
// rows (Jacobian by finite differences, Eigen least squares); with the one parameter per
// family the project allows, it reduces to a secant iteration.
#include "calibration.hpp"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <cmath>

#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
namespace {

double* parameter_slot(HwSpec& hw, const std::string& name) {
  if (name == "tensor.efficiency") return &hw.tensor.efficiency;
  throw ConfigError(fmt::format("calibrate: unknown parameter \"{}\"; allowed: tensor.efficiency", name));
}

}  // namespace

CalibrationFit calibrate(const std::string& workload_file, const std::string& parameter, double published) {
  Scenario s = load_scenario(workload_file);
  CalibrationFit fit;
  fit.parameter = parameter;
  fit.workload = s.workload.name;
  fit.published_seq_per_s = published;
  double* slot = parameter_slot(s.hw, parameter);
  auto residual = [&](const Eigen::VectorXd& x) {
    *slot = x(0);
    const double seq = static_cast<double>(s.workload.global_batch) / execute_step(s).step_time_s;
    Eigen::VectorXd r(1);
    r(0) = std::log(seq / published);
    return r;
  };
  Eigen::VectorXd x(1);
  x(0) = *slot;
  for (fit.iterations = 1; fit.iterations <= 30; ++fit.iterations) {
    Eigen::VectorXd r = residual(x);
    if (r.norm() < 1e-7) break;
    const double h = 1e-4;
    Eigen::MatrixXd J(1, 1);
    Eigen::VectorXd xp = x;
    xp(0) += h;
    J.col(0) = (residual(xp) - r) / h;
    Eigen::VectorXd step = J.colPivHouseholderQr().solve(-r);
    x = (x + step).cwiseMax(0.05).cwiseMin(1.0);
  }
  fit.fitted_value = x(0);
  *slot = x(0);
  fit.predicted_seq_per_s = static_cast<double>(s.workload.global_batch) / execute_step(s).step_time_s;
  return fit;
}

}  // namespace trnsim
