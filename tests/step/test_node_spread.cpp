// test_node_spread.cpp — the slowest node ends a synchronous step (app/step/node_spread.hpp): the
// expected maximum of N standard normals against its closed forms, and a step on N nodes against
// the same step with identical nodes.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "node_spread.hpp"
#include "report.hpp"
#include "scenario.hpp"
#include "step_bound.hpp"
#include "step_executor.hpp"

using namespace trnsim;

TEST_CASE("expected maximum of N standard normals: closed forms and growth", "[node_spread]") {
  CHECK(expected_max_of_normals(0) == 0.0);
  CHECK(expected_max_of_normals(1) == 0.0);
  CHECK(expected_max_of_normals(2) == Approx(1.0 / std::sqrt(M_PI)).epsilon(1e-6));  // E max(X, Y) = 1 / sqrt(pi)
  CHECK(expected_max_of_normals(3) == Approx(1.5 / std::sqrt(M_PI)).epsilon(1e-6));
  CHECK(expected_max_of_normals(5) == Approx(1.162964).epsilon(1e-5));  // tabulated (Harter 1961)
  double last = 0;
  for (int64_t n = 2; n <= (1 << 20); n *= 2) {
    const double e = expected_max_of_normals(n);
    CHECK(e > last);
    CHECK(e < std::sqrt(2.0 * std::log(static_cast<double>(n))));  // the extreme-value bound
    last = e;
  }
}

TEST_CASE("a step on N nodes waits for the slowest and one node waits for nobody", "[node_spread][run]") {
  const std::string dir = std::string(TRNSIM_SOURCE_DIR) + "/workloads/";
  for (const char* name : {"r2_bertlarge_dp_4node", "r2_bertlarge_dp_1node"}) {
    Scenario s = load_scenario(dir + name + ".json");
    REQUIRE(s.hw.cluster.node_spread == 0.0);  // no shipped file states a spread
    const StepResult same = execute_step(s);
    CHECK(same.slowest_node_s == 0.0);
    s.hw.cluster.node_spread = 0.03;
    const StepResult spread = execute_step(s);
    const double k = 0.03 * expected_max_of_normals(s.workload.nodes);
    INFO(name);
    CHECK(spread.step_time_s == Approx(same.step_time_s * (1 + k)).epsilon(1e-9));
    CHECK(spread.slowest_node_s == Approx(same.step_time_s * k).epsilon(1e-9));
    // The report names the wait as its own part where there is one; the search's bound stays below.
    const StepReport rep = build_report(s, spread);
    CHECK(rep.step.part("slowest_node") == Approx(spread.slowest_node_s));
    CHECK(step_lower_bound(s).step_time_s <= spread.step_time_s);
    if (s.workload.nodes == 1) CHECK(spread.step_time_s == same.step_time_s);
  }
}
