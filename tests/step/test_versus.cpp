// test_versus.cpp — `trnsim run W --vs EDITS` (app/step/versus.cpp): the base step and a what-if of
// it, figure by figure. Invariants: a variant identical to the base changes nothing; at the same
// cluster, price and tokens per step, the cost per token changes exactly as the step time does and
// the throughput as its inverse (closed form); better hardware (--vs-hw) never slows the step; a
// variant that does not fit is reported with its reason; edits are layered on --set's and a bad one
// names its option.
#include <catch2/catch.hpp>

#include <cmath>

#include "intervals.hpp"
#include "paired_ratios.hpp"
#include "ranking.hpp"
#include "report.hpp"
#include "run_helpers.hpp"
#include "trnsim/error.hpp"
#include "versus.hpp"
#include "workload_set.hpp"

using namespace trnsim;

namespace {
const std::string kMainJobFile = std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json";

StepReport report_of(const Scenario& s) { return build_report(s, execute_step(s)); }

// The main job against the same file with `vs` / `vs_hw` layered on its (empty) --set / --hw-set.
StepReport typed_versus(const std::string& vs, const std::string& vs_hw = "") {
  StepReport base = report_of(load_scenario_with_set(kMainJobFile, "", true));
  const Scenario v = load_scenario_with_edits(kMainJobFile, {{"--set", ""}, {"--vs", vs}}, {{"--hw-set", ""}, {"--vs-hw", vs_hw}}, true);
  if (!v.fits) add_versus_refusal(base, "--vs \"" + vs + "\"", v.memory_error);
  else add_versus(base, report_of(v), "--vs \"" + vs + "\"", !vs_hw.empty());
  return base;
}
nlohmann::json versus(const std::string& vs, const std::string& vs_hw = "") { return to_json(typed_versus(vs, vs_hw)); }
std::string text_of(const StepReport& r) { return versus_text(*r.versus, r.interval); }
std::string md_of(const StepReport& r) { return versus_markdown(*r.versus); }

const nlohmann::json& row(const nlohmann::json& report, const std::string& quantity) {
  for (const auto& r : report["versus"]["rows"])
    if (r["quantity"].get<std::string>().rfind(quantity, 0) == 0) return r;
  FAIL("no row " << quantity);
  static const nlohmann::json none;
  return none;
}
}  // namespace

TEST_CASE("versus: a variant identical to the base changes nothing", "[step][versus]") {
  const StepReport typed = typed_versus("nodes=128");  // the file's own figure
  const nlohmann::json j = to_json(typed);
  REQUIRE(j["versus"]["rows"].size() >= 8);
  for (const auto& r : j["versus"]["rows"]) {
    INFO(r.dump());
    CHECK(r["variant"].get<double>() == r["base"].get<double>());
    if (r.contains("change_pct")) CHECK(r["change_pct"].get<double>() == 0);
  }
  CHECK_THAT(text_of(typed), Catch::Contains("verdict: the variant trains 0.0 % more tokens per second at 0.0 % lower cost"));
}

TEST_CASE("versus: same cluster and batch, cost per token moves as the step time", "[step][versus]") {
  // TP 4 x DP 1,024 on the same 4,096 cores, the same global batch and price: tokens per step and
  // dollars per second are unchanged, so $/token scales with the step and tokens/s with its inverse.
  const StepReport typed = typed_versus("parallel.tp=4;parallel.dp=1024");
  const nlohmann::json j = to_json(typed);
  const double step = row(j, "step time")["change_pct"].get<double>() / 100;
  REQUIRE(std::abs(step) > 1e-3);  // the layouts differ
  CHECK(row(j, "cost")["change_pct"].get<double>() / 100 == Approx(step).epsilon(1e-9));
  CHECK(row(j, "throughput")["change_pct"].get<double>() / 100 == Approx(1 / (1 + step) - 1).epsilon(1e-9));
  CHECK(row(j, "cores")["change_pct"].get<double>() == 0);
  CHECK_THAT(j["versus"]["layout"].get<std::string>(), Catch::Contains("TP 4 PP 1 DP 1024"));
  // How far to trust the order: results/validation.json's pair statistic for an 11 % gap.
  StepReport with = typed;
  add_versus_checks(with, load_validation_results());
  REQUIRE(to_json(with)["versus"].contains("ordering"));
  CHECK(with.versus->ordering["applies"] == true);
  CHECK_THAT(text_of(with), Catch::Contains("how far to trust the order: of the layout pairs trnsim predicted 10-20 % apart"));
  CHECK_THAT(md_of(with), Catch::Contains("How far to trust the order: of the layout pairs trnsim predicted 10-20 % apart"));
  // Text and Markdown carry every row.
  const std::string text = text_of(typed), md = md_of(typed);
  for (const auto& r : j["versus"]["rows"]) {
    CHECK_THAT(text, Catch::Contains(r["quantity"].get<std::string>()));
    CHECK_THAT(md, Catch::Contains(r["quantity"].get<std::string>()));
  }
}

TEST_CASE("versus: better hardware (--vs-hw) never slows the step", "[step][versus]") {
  // Twice the NICs of the 512-node run: its data-parallel all-reduces cross them.
  const StepReport typed = typed_versus("", "inter_node.nic_Gbps_per_node=1600");
  const nlohmann::json j = to_json(typed);
  CHECK(row(j, "step time")["change_pct"].get<double>() < 0);
  CHECK(row(j, "cost")["change_pct"].get<double>() < 0);
  REQUIRE(j["versus"].contains("notes"));
  CHECK_THAT(j["versus"]["notes"].dump(), Catch::Contains("--vs-hw"));
  // Edited hardware is not a layout pair: the corpus's ordering statistic does not apply.
  StepReport with = typed;
  add_versus_checks(with, load_validation_results());
  CHECK(with.versus->ordering["applies"] == false);
  CHECK_THAT(text_of(with), Catch::Contains("the variant's hardware is edited"));
}

TEST_CASE("versus: a change of precision alone quotes the corpus's measured pairs of that change", "[step][versus]") {
  // The main job in FP32 instead of BF16 with stochastic rounding: the trn1 BERT-Large rows measure
  // the reverse change (fp32 -> bf16-sr) on the same layouts (results/validation.json).
  const StepReport typed = typed_versus("precision=fp32");
  const nlohmann::json j = to_json(typed);
  REQUIRE_FALSE(j["versus"].contains("refused"));
  const nlohmann::json check = versus_ratio_check(j, load_validation_results().paired);
  REQUIRE(check["applies"] == true);
  CHECK(check["factor"] == "precision");
  CHECK(check["family"] == "trainium");
  CHECK(check["reversed"] == true);
  REQUIRE_FALSE(check["group"].is_null());
  CHECK(check["group"]["pairs"].get<int>() >= 1);
  CHECK(check["variant_gain"].get<double>() < 1);  // FP32 is slower here, as the measured pairs say
  StepReport with = typed;
  add_versus_checks(with, load_validation_results());
  CHECK(to_json(with)["versus"]["corpus_pairs"]["sentence"] == ratio_check_sentence(check));
  CHECK_THAT(text_of(with), Catch::Contains("how far to trust the gain: over "));
  CHECK_THAT(md_of(with), Catch::Contains("made the reverse change (precision fp32 -> bf16-sr (trainium))"));
  // A layout change is not such a pair.
  CHECK(versus_ratio_check(versus("parallel.tp=4;parallel.dp=1024"), load_validation_results().paired)["applies"] == false);
}

TEST_CASE("versus: a variant that does not fit is an answer, with its reason", "[step][versus]") {
  const StepReport typed = typed_versus("parallel.tp=1;parallel.dp=4096;parallel.sequence_parallel=false;checkpointing=none;"
                                        "batch.global_batch=4096");
  const nlohmann::json j = to_json(typed);
  REQUIRE(j["versus"].contains("refused"));
  CHECK_THAT(j["versus"]["refused"].get<std::string>(), Catch::Contains("does not fit"));
  CHECK_THAT(text_of(typed), Catch::Contains("cannot run:"));
  CHECK_THAT(md_of(typed), Catch::Contains("Cannot run:"));
}

TEST_CASE("versus: edits land on top of --set's, and a bad one names its option", "[step][versus]") {
  const Scenario v = load_scenario_with_edits(kMainJobFile, {{"--set", "precision=fp8;parallel.tp=2;parallel.dp=2048"},
                                                             {"--vs", "parallel.tp=4;parallel.dp=1024"}},
                                              {}, true);
  CHECK(v.workload.tp == 4);  // the variant's edits win
  CHECK(v.workload.dp == 1024);
  CHECK(v.workload.precision == Precision::FP8);  // --set's others stay
  CHECK_THROWS_WITH(load_scenario_with_edits(kMainJobFile, {{"--vs", "parallel.tpx=1"}}, {}, true),
                    Catch::Contains("(with --vs parallel.tpx=1)") && Catch::Contains("unknown field \"tpx\""));
  CHECK_THROWS_WITH(load_scenario_with_edits(kMainJobFile, {{"--vs", "parallel.tp"}}, {}, true),
                    Catch::Contains("--vs \"parallel.tp\": expected path=value"));
  CHECK_THROWS_WITH(load_scenario_with_edits(kMainJobFile, {}, {{"--hw-set", "tensor.clock_GHz=3"}, {"--vs-hw", "hbm"}}, true),
                    Catch::Contains("--vs-hw \"hbm\": expected path=value, e.g. hbm.bandwidth_GBps_per_chip"));
  CHECK_THROWS_WITH(load_scenario_with_edits(kMainJobFile, {}, {{"--hw-set", "tensor.clock_GHz=3"}, {"--vs-hw", "hbm.x=1"}}, true),
                    Catch::Contains("(with --hw-set tensor.clock_GHz=3 --vs-hw hbm.x=1)"));
}
