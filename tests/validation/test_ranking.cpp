// test_ranking.cpp — issue 25 item 6: Spearman's rho and the regret of the predicted-best layout.
#include <catch2/catch.hpp>

#include "ranking.hpp"
#include "validation.hpp"

using namespace trnsim;

TEST_CASE("Spearman: +1 for the same order, -1 reversed, average ranks for ties", "[validation][ranking]") {
  CHECK(spearman({1, 2, 3}, {10, 20, 30}) == Approx(1.0));
  CHECK(spearman({1, 2, 3}, {30, 20, 10}) == Approx(-1.0));
  // ranks (1, 2.5, 2.5, 4) vs (1, 2, 3, 4): 4.5 / sqrt(4.5 x 5)
  CHECK(spearman({1, 2, 2, 3}, {1, 2, 3, 4}) == Approx(4.5 / std::sqrt(22.5)));
  CHECK(spearman({5, 5, 5}, {1, 2, 3}) == 0.0);  // a constant side has no order
}

TEST_CASE("a sweep's regret is the measured loss of running the predicted-best layout", "[validation][ranking]") {
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](int row, double measured, double predicted, const char* q = "tokens_per_s_per_gpu") {
    rows.push_back({{"dataset", "d"}, {"row", row}, {"model", "m"}, {"hw", "h"}, {"gpus", 8}, {"seq", 4096}, {"quantity", q},
                    {"status", "predicted"}, {"measured", measured}, {"predicted", predicted}});
  };
  add(1, 100, 1), add(2, 90, 3), add(3, 80, 2);  // the model picks row 2, measured 90 of the best 100
  add(4, 50, 60);                                 // another GPU count: a different sweep of one row (ignored)
  rows[3]["gpus"] = 16;
  const auto q = ranking_quality(rows);
  REQUIRE(q["sweeps"].size() == 1);
  CHECK(q["sweeps"][0]["regret_pct"].get<double>() == Approx(10.0));
  CHECK(q["sweeps"][0]["predicted_best_row"] == 2);
  CHECK(q["sweeps"][0]["spearman"].get<double>() == Approx(-0.5));
  CHECK(q["by_dataset"]["all"]["sweeps"] == 1);
  // Iteration times become throughputs with the row's tokens per step: a bigger batch in the same time is faster.
  nlohmann::json t = nlohmann::json::array();
  for (int i = 0; i < 3; ++i) {
    t.push_back({{"dataset", "v"}, {"row", i}, {"model", "m"}, {"hw", "h"}, {"gpus", 8}, {"seq", 2048},
                 {"quantity", "iteration_time"}, {"status", "predicted"}, {"measured", 1.0}, {"predicted", 1.0},
                 {"tokens_per_step", 1000.0 * (i + 1)}});
  }
  const auto qt = ranking_quality(t);
  CHECK(qt["sweeps"][0]["spearman"].get<double>() == Approx(1.0));
  CHECK(qt["sweeps"][0]["regret_pct"].get<double>() == Approx(0.0));
}

TEST_CASE("validation.md lists the sweeps whose ranking a user should not trust yet", "[validation][ranking]") {
  // Two sweeps: one ranked right (Spearman 1, no regret), one reversed (the model picks the worst).
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](const char* model, int row, double measured, double predicted) {
    rows.push_back({{"dataset", "d"}, {"row", row}, {"model", model}, {"hw", "h"}, {"gpus", 8}, {"seq", 4096},
                    {"quantity", "tokens_per_s_per_gpu"}, {"status", "predicted"}, {"measured", measured}, {"predicted", predicted}});
  };
  add("good", 1, 100, 10), add("good", 2, 90, 9), add("good", 3, 80, 8);
  add("bad", 4, 100, 8), add("bad", 5, 90, 9), add("bad", 6, 80, 10);
  const std::string md = weak_sweeps_markdown(ranking_quality(rows));
  CHECK(md.find("| d, bad, h, 8 GPUs, seq 4096,  | 3 | 3 | -1.000 | 20.0 % | 6 |") != std::string::npos);
  CHECK(md.find("d, good,") == std::string::npos);
}
