// test_ranking.cpp — issue 25 item 6: Spearman's rho and the regret of the predicted-best layout.
#include <catch2/catch.hpp>

#include "ranking.hpp"
#include "versus.hpp"
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

TEST_CASE("pair order: each two layouts of a sweep, right or wrong, binned by the predicted gap", "[validation][ranking]") {
  // Predicted 100 / 101 / 130; measured 100 / 90 / 120. Pairs: (1, 2) 1 % apart, ordered wrong;
  // (1, 3) 30 % apart, right; (2, 3) 28.7 % apart, right. A measured tie orders nothing.
  nlohmann::json rows = nlohmann::json::array();
  auto add = [&](int row, double measured, double predicted) {
    rows.push_back({{"dataset", "d"}, {"row", row}, {"model", "m"}, {"hw", "h"}, {"gpus", 8}, {"seq", 4096},
                    {"quantity", "tokens_per_s_per_gpu"}, {"status", "predicted"}, {"measured", measured},
                    {"predicted", predicted}, {"layout", std::to_string(row)}});
  };
  add(1, 100, 100), add(2, 90, 101), add(3, 120, 130), add(4, 120, 110);  // row 4 ties row 3's measurement
  const auto q = ranking_quality(rows);
  const auto& all = q["pair_order"]["all"];
  REQUIRE(all.size() == 5);
  CHECK(all[0]["gap_lo_pct"].get<double>() == 0);
  CHECK(all[0]["gap_hi_pct"].get<double>() == Approx(2));
  CHECK_FALSE(all[4].contains("gap_hi_pct"));  // the last bin is open
  // 0-2 %: (1, 2) wrong. 5-10 %: (2, 4) 8.9 % right. 10-20 %: (1, 4) 10 % right, (3, 4) tie left out. >= 20 %: (1, 3), (2, 3) right.
  CHECK(all[0]["pairs"] == 1);
  CHECK(all[0]["ordered_right"] == 0);
  CHECK(all[2]["pairs"] == 1);
  CHECK(all[2]["ordered_right"] == 1);
  CHECK(all[3]["pairs"] == 1);
  CHECK(all[4]["pairs"] == 2);
  CHECK(all[4]["ordered_right_pct"].get<double>() == Approx(100));
  CHECK(q["pair_order"]["d"] == all);
  // The bin a `run --vs` gap falls in.
  CHECK(pair_order_for_gap(q, 0.015)["pairs"] == 1);
  CHECK(pair_order_for_gap(q, 0.5)["pairs"] == 2);
  CHECK(pair_order_for_gap(q, 0.03).is_null());  // 2-5 %: no pairs
}

TEST_CASE("pair order for run --vs: only for layouts of one model, hardware, size, sequence and precision", "[validation][ranking]") {
  nlohmann::json ranking = {{"pair_order", {{"all", nlohmann::json::array()}}}};
  for (double lo : {0.0, 2.0, 5.0, 10.0, 20.0})
    ranking["pair_order"]["all"].push_back({{"gap_lo_pct", lo}, {"pairs", 10}, {"ordered_right", 9}, {"ordered_right_pct", 90.0}});
  const nlohmann::json w = {{"model", "m"}, {"hw", "h"}, {"devices", 8}, {"seq_len", 4096}, {"precision", "bf16"}};
  nlohmann::json report = {{"workload", w}, {"throughput", {{"tokens_per_s", 100.0}}}};
  report["versus"]["report"] = {{"workload", w}, {"throughput", {{"tokens_per_s", 112.0}}}};
  const auto o = versus_ordering(report, ranking);
  CHECK(o["applies"] == true);
  CHECK(o["predicted_gap_pct"].get<double>() == Approx(12));
  CHECK(o["bin"]["gap_lo_pct"].get<double>() == 10);
  report["versus"]["report"]["workload"]["precision"] = "fp8";
  const auto other = versus_ordering(report, ranking);
  CHECK(other["applies"] == false);
  CHECK_THAT(other["reason"].get<std::string>(), Catch::Contains("differ in precision"));
}

TEST_CASE("search: how far apart the best two layouts are, and how often the corpus orders such pairs right", "[validation][ranking]") {
  nlohmann::json ranking = {{"pair_order", {{"all", nlohmann::json::array()}}}};
  for (double lo : {0.0, 2.0, 5.0, 10.0, 20.0})
    ranking["pair_order"]["all"].push_back({{"gap_lo_pct", lo}, {"pairs", 10}, {"ordered_right", 6}, {"ordered_right_pct", 60.0 + lo}});
  auto row = [](const char* id, double tps, const char* hw = "h") {
    return nlohmann::json{{"id", id}, {"tokens_per_s", tps}, {"hw", hw}, {"nodes", 4}, {"precision", "bf16"}};
  };
  // The runner-up is the next row of the same hardware, nodes and precision: "c", 3 % behind.
  nlohmann::json doc = {{"top_by_throughput", {row("a", 103), row("b", 102.9, "other"), row("c", 100), row("d", 90)}}};
  add_top_order(doc, "top_by_throughput", ranking);  // as `trnsim search` adds it
  REQUIRE(doc.contains("top_order"));
  const auto t = doc["top_order"];
  CHECK(t["runner_up"] == "c");
  CHECK(t["gap_pct"].get<double>() == Approx(3.0));
  CHECK(t["bin"]["gap_lo_pct"].get<double>() == 2);
  CHECK(t["rows_within_5pct"] == 1);  // c (d is 14 % behind; b is another cluster)
  CHECK(top_order_of(doc["top_by_throughput"], ranking) == t);  // a sweep's rows take the same rule
  CHECK_THAT(top_order_sentence(t), Catch::Contains("predicted 3.0 % slower than the best, and 1 listed row(s) of that kind"));
  // A top list of one, or no row of the best's kind behind it: nothing to say.
  for (nlohmann::json quiet : {nlohmann::json{{"top_by_throughput", {row("a", 1)}}},
                               nlohmann::json{{"top_by_throughput", {row("a", 2), row("b", 1, "other")}}}}) {
    add_top_order(quiet, "top_by_throughput", ranking);
    CHECK_FALSE(quiet.contains("top_order"));
  }
}
