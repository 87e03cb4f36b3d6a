// test_paired_ratios.cpp — the validation report's comparisons: rows that differ only in the
// precision, or only in the hardware, their measured throughput ratio against the predicted one.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>

#include "paired_ratios.hpp"

using namespace trnsim;

namespace {
nlohmann::json row(int id, const char* precision, const char* hw, double measured, double predicted,
                   const char* layout = "TP1 PP1 DP8 VP1 mb1 gb64 seq4096", const char* release = "R1",
                   const char* quantity = "tokens_per_s_per_gpu", const char* status = "predicted") {
  return {{"row", id},          {"dataset", "d"},          {"model", "M"},        {"release", release},
          {"stated_layout", layout}, {"quantity", quantity}, {"status", status},   {"family", "f"},
          {"hw", hw},           {"gpus", 8},               {"precision", precision}, {"measured", measured},
          {"predicted", predicted}};
}
const nlohmann::json* group(const nlohmann::json& out, const std::string& factor, const std::string& from, const std::string& to) {
  for (const auto& g : out["groups"])
    if (g["factor"] == factor && g["from"] == from && g["to"] == to) return &g;
  return nullptr;
}
}  // namespace

TEST_CASE("paired ratios by hand: a precision change and a hardware change, each against its measurement",
          "[validation][pairs]") {
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back(row(1, "mxfp8", "gpu-a", 130, 160));      // listed before its BF16 twin: the pair still runs bf16 -> mxfp8
  rows.push_back(row(2, "mixed-bf16", "gpu-a", 100, 100));
  rows.push_back(row(3, "mixed-bf16", "gpu-b", 120, 105));  // gpu-a -> gpu-b at BF16
  rows.push_back(row(4, "fp8", "gpu-a", 50, 50, "TP2 PP1 DP4 VP1 mb1 gb64 seq4096"));  // another stated layout: no partner
  rows.push_back(row(5, "fp8", "gpu-a", 125, 120, "TP1 PP1 DP8 VP1 mb1 gb64 seq4096", "R2"));  // another release: no partner
  const auto out = paired_ratios(rows);
  REQUIRE(out["pairs"].size() == 2);

  const auto* p = group(out, "precision", "mixed-bf16", "mxfp8");
  REQUIRE(p != nullptr);
  CHECK((*p)["pairs"] == 1);
  CHECK((*p)["measured_ratio"].get<double>() == Approx(1.3));
  CHECK((*p)["predicted_ratio"].get<double>() == Approx(1.6));
  CHECK((*p)["bias_pct"].get<double>() == Approx(100 * (1.6 / 1.3 - 1)));  // trnsim expects 23 % more than MXFP8 gave
  CHECK((*p)["mean_abs_ratio_error_pct"].get<double>() == Approx(100 * (1.6 / 1.3 - 1)));

  const auto* h = group(out, "hardware", "gpu-a", "gpu-b");
  REQUIRE(h != nullptr);
  CHECK((*h)["measured_ratio"].get<double>() == Approx(1.2));
  CHECK((*h)["predicted_ratio"].get<double>() == Approx(1.05));
  CHECK((*h)["bias_pct"].get<double>() == Approx(100 * (1.05 / 1.2 - 1)));
  // The pair names its rows from -> to.
  for (const auto& pair : out["pairs"])
    if (pair["factor"] == "precision") CHECK(pair["rows"] == nlohmann::json::array({2, 1}));
  // Precision groups come before hardware ones.
  CHECK(out["groups"][0]["factor"] == "precision");
}

TEST_CASE("paired ratios: iteration times count as inverse throughput, twins once, searched layouts never",
          "[validation][pairs]") {
  nlohmann::json rows = nlohmann::json::array();
  // Iteration times: 2.0 s in BF16, 1.6 s in FP8 is a 1.25x throughput gain; predicted 2.0 -> 1.25 s, 1.6x.
  rows.push_back(row(1, "mixed-bf16", "g", 2.0, 2.0, "L", "", "iteration_time"));
  rows.push_back(row(2, "fp8", "g", 1.6, 1.25, "L", "", "iteration_time"));
  // The same two runs under another model name: one pair, not two.
  auto twin1 = row(3, "mixed-bf16", "g", 2.0, 2.0, "L", "", "iteration_time");
  auto twin2 = row(4, "fp8", "g", 1.6, 1.25, "L", "", "iteration_time");
  twin1["model"] = twin2["model"] = "M (tokendrop)";
  rows.push_back(twin1);
  rows.push_back(twin2);
  // A calibration row pairs (a ratio is not what the fit matched); a refused one, or one whose layout
  // trnsim searched (no stated_layout), does not.
  rows.push_back(row(5, "nvfp4", "g", 1.0, 0.8, "L", "", "iteration_time", "calibration"));
  rows.push_back(row(6, "mxfp8", "g", 1.0, 0.8, "L", "", "iteration_time", "refused"));
  auto searched = row(7, "mxfp8", "g", 1.0, 0.8, "L", "", "iteration_time");
  searched.erase("stated_layout");
  rows.push_back(searched);
  // Memory rows are not throughput.
  rows.push_back(row(8, "mxfp8", "g", 40, 41, "L", "", "peak_memory"));
  const auto out = paired_ratios(rows);
  const auto* p = group(out, "precision", "mixed-bf16", "fp8");
  REQUIRE(p != nullptr);
  CHECK((*p)["pairs"] == 1);
  CHECK((*p)["measured_ratio"].get<double>() == Approx(1.25));
  CHECK((*p)["predicted_ratio"].get<double>() == Approx(1.6));
  REQUIRE(group(out, "precision", "mixed-bf16", "nvfp4") != nullptr);
  REQUIRE(group(out, "precision", "fp8", "nvfp4") != nullptr);
  CHECK(group(out, "precision", "fp8", "mxfp8") == nullptr);
  CHECK(group(out, "precision", "mixed-bf16", "mxfp8") == nullptr);
  CHECK(out["pairs"].size() == 3);  // bf16 -> fp8, bf16 -> nvfp4, fp8 -> nvfp4
  // The twins are recorded on the pair they repeat, and `--explain` finds either row's comparisons.
  for (const auto& pair : out["pairs"])
    if (pair["rows"] == nlohmann::json::array({1, 2})) CHECK(pair["same_as"] == nlohmann::json::array({nlohmann::json::array({3, 4})}));
  CHECK_THAT(row_pairs_text(out, "d", 4), Catch::Contains("precision mixed-bf16 -> fp8 (f) with row 3: measured 1.25x, predicted 1.60x"));
  CHECK_THAT(row_pairs_text(out, "d", 2), Catch::Contains("with row 1: measured 1.25x"));
  CHECK(row_pairs_text(out, "d", 8).empty());        // a memory row is in no pair
  CHECK(row_pairs_text(out, "other", 2).empty());    // rows are per dataset
  CHECK(paired_ratios(nlohmann::json::array())["groups"].empty());
}

TEST_CASE("paired ratios: hardware of two families is one group named by both", "[validation][pairs]") {
  nlohmann::json rows = nlohmann::json::array();
  auto a = row(1, "fp8", "h100-box", 100, 100);
  auto b = row(2, "fp8", "b200-box", 210, 250);
  a["family"] = "h100";
  b["family"] = "blackwell";
  rows.push_back(a);
  rows.push_back(b);
  const auto out = paired_ratios(rows);
  const auto* h = group(out, "hardware", "b200-box", "h100-box");  // alphabetical: b200-box first
  REQUIRE(h != nullptr);
  CHECK((*h)["family"] == "blackwell -> h100");
  CHECK((*h)["measured_ratio"].get<double>() == Approx(100.0 / 210));
  CHECK((*h)["predicted_ratio"].get<double>() == Approx(100.0 / 250));
  CHECK(precision_rank("fp32") < precision_rank("mixed-bf16"));
  CHECK(precision_rank("nvfp4") < precision_rank("unknown"));
}

namespace {
nlohmann::json workload(const char* precision, const char* hw) {
  return {{"model", "m"}, {"devices", 8}, {"seq_len", 4096}, {"tp", 1}, {"pp", 1}, {"dp", 8}, {"micro_batch", 1},
          {"global_batch", 64}, {"virtual_stages", 1}, {"precision", precision}, {"hw", hw}};
}
nlohmann::json versus_report(const nlohmann::json& base, const nlohmann::json& variant, double gain, bool hw_edited = false) {
  const double base_gpus = base["devices"].get<double>(), var_gpus = variant["devices"].get<double>();
  return {{"workload", base},
          {"throughput", {{"tokens_per_s", 1000.0 * base_gpus}, {"tokens_per_s_per_core", 1000.0}}},
          {"versus",
           {{"hardware_edited", hw_edited},
            {"report", {{"workload", variant},
                        {"throughput", {{"tokens_per_s", 1000.0 * gain * var_gpus}, {"tokens_per_s_per_core", 1000.0 * gain}}}}}}}};
}
}  // namespace

TEST_CASE("run --vs: a change of precision or hardware alone quotes the corpus's pairs of that change", "[validation][pairs]") {
  nlohmann::json rows = nlohmann::json::array();
  rows.push_back(row(1, "mixed-bf16", "gpu-a", 100, 100));
  rows.push_back(row(2, "mxfp8", "gpu-a", 130, 160));
  rows.push_back(row(3, "mixed-bf16", "gpu-b", 120, 105));
  const auto paired = paired_ratios(rows);
  REQUIRE(paired["hw_families"]["gpu-a"] == "f");

  // BF16 -> MXFP8 on gpu-a: the group, and the variant's own predicted gain.
  auto c = versus_ratio_check(versus_report(workload("mixed-bf16", "gpu-a"), workload("mxfp8", "gpu-a"), 1.5), paired);
  REQUIRE(c["applies"] == true);
  CHECK(c["factor"] == "precision");
  CHECK(c["variant_gain"].get<double>() == Approx(1.5));
  CHECK(c["reversed"] == false);
  REQUIRE_FALSE(c["group"].is_null());
  CHECK(c["group"]["measured_ratio"].get<double>() == Approx(1.3));
  CHECK_THAT(ratio_check_sentence(c), Catch::Contains("measured gain was 1.30x where trnsim predicted 1.60x"));
  // The reverse change finds the same group and says so.
  c = versus_ratio_check(versus_report(workload("mxfp8", "gpu-a"), workload("mixed-bf16", "gpu-a"), 0.7), paired);
  CHECK(c["reversed"] == true);
  CHECK(c["from"] == "mixed-bf16");
  CHECK_THAT(ratio_check_sentence(c), Catch::Contains("the reverse change"));
  // A hardware change alone.
  c = versus_ratio_check(versus_report(workload("mixed-bf16", "gpu-a"), workload("mixed-bf16", "gpu-b"), 1.1), paired);
  CHECK(c["factor"] == "hardware");
  CHECK(c["group"]["predicted_ratio"].get<double>() == Approx(1.05));
  // A change the corpus has no pair of: applies, with no group.
  c = versus_ratio_check(versus_report(workload("mixed-bf16", "gpu-b"), workload("nvfp4", "gpu-b"), 1.8), paired);
  CHECK(c["applies"] == true);
  CHECK(c["group"].is_null());
  CHECK_THAT(ratio_check_sentence(c), Catch::Contains("no pair of measured rows"));
  // Not a single change: both at once, a layout change besides, an edited hw file, a chip nobody measured.
  CHECK(versus_ratio_check(versus_report(workload("mixed-bf16", "gpu-a"), workload("mxfp8", "gpu-b"), 2), paired)["applies"] == false);
  auto wider = workload("mxfp8", "gpu-a");
  wider["tp"] = 2;
  CHECK(versus_ratio_check(versus_report(workload("mixed-bf16", "gpu-a"), wider, 1.2), paired)["applies"] == false);
  CHECK(versus_ratio_check(versus_report(workload("mixed-bf16", "gpu-a"), workload("mixed-bf16", "gpu-a"), 1.2, true), paired)["applies"] == false);
  CHECK(versus_ratio_check(versus_report(workload("mixed-bf16", "gpu-a"), workload("mixed-bf16", "gpu-z"), 1.2), paired)["applies"] == false);
}

TEST_CASE("paired ratios: weak scaling pairs compare per-GPU throughput of one replica on more GPUs", "[validation][pairs]") {
  const auto scaled = [](int id, int gpus, const char* quantity, double measured, double predicted, double tokens,
                         const char* replica = "TP1 PP1 VP1 mb2 seq4096 replica-batch8") {
    auto r = row(id, "mixed-bf16", "g", measured, predicted, "layout differs with DP", "R1", quantity);
    r["gpus"] = gpus;
    r["stated_layout"] = fmt::format("TP1 PP1 DP{} gb{}", gpus, 8 * gpus);
    r["stated_replica"] = replica;
    r["tokens_per_step"] = tokens;
    return r;
  };
  nlohmann::json rows = nlohmann::json::array();
  // Per GPU: 100 -> 90 tokens/s measured (0.9x), 100 -> 99 predicted (0.99x): trnsim 10 % optimistic.
  rows.push_back(scaled(1, 8, "tokens_per_s_per_gpu", 100, 100, 0));
  rows.push_back(scaled(2, 64, "tokens_per_s_per_gpu", 90, 99, 0));
  // A whole-cluster rate is divided by the GPUs: 100 seq/s on 8, 720 on 64 is 0.9x per GPU.
  auto c8 = scaled(3, 8, "cluster_seq_per_s", 100, 100, 0), c64 = scaled(4, 64, "cluster_seq_per_s", 720, 800, 0);
  c8["dataset"] = c64["dataset"] = "e";
  rows.push_back(c8);
  rows.push_back(c64);
  // An iteration time counts as the step's tokens over it: 8,000 tokens in 1.0 s on 8 GPUs and
  // 64,000 in 1.25 s on 64 is 0.8x per GPU.
  auto t8 = scaled(5, 8, "iteration_time", 1.0, 1.0, 8000), t64 = scaled(6, 64, "iteration_time", 1.25, 1.0, 64000);
  t8["dataset"] = t64["dataset"] = "t";
  rows.push_back(t8);
  rows.push_back(t64);
  // Another replica (a different batch per replica) is not weak scaling of the first.
  rows.push_back(scaled(7, 16, "tokens_per_s_per_gpu", 95, 95, 0, "TP1 PP1 VP1 mb2 seq4096 replica-batch4"));
  const auto out = paired_ratios(rows);
  std::map<std::string, nlohmann::json> by_dataset;
  for (const auto& g : out["groups"])
    if (g["factor"] == "scale") by_dataset[g["dataset"].get<std::string>()] = g;
  REQUIRE(by_dataset.size() == 3);
  CHECK(by_dataset["d"]["pairs"] == 1);
  CHECK(by_dataset["d"]["measured_ratio"].get<double>() == Approx(0.9));
  CHECK(by_dataset["d"]["predicted_ratio"].get<double>() == Approx(0.99));
  CHECK(by_dataset["d"]["bias_pct"].get<double>() == Approx(10.0));
  CHECK(by_dataset["d"]["scale_min"].get<double>() == Approx(8.0));
  CHECK(by_dataset["e"]["measured_ratio"].get<double>() == Approx(0.9));
  CHECK(by_dataset["e"]["predicted_ratio"].get<double>() == Approx(1.0));
  CHECK(by_dataset["t"]["measured_ratio"].get<double>() == Approx(0.8));
  CHECK(by_dataset["t"]["predicted_ratio"].get<double>() == Approx(1.0));
  // run --vs on more GPUs with the same replica quotes the family's scale groups, per dataset.
  auto small = workload("mixed-bf16", "g"), large = workload("mixed-bf16", "g");
  large["devices"] = 64, large["dp"] = 64, large["global_batch"] = 512;
  nlohmann::json fam = out;
  fam["hw_families"]["g"] = "f";
  const auto c = versus_ratio_check(versus_report(small, large, 0.95), fam);
  REQUIRE(c["applies"] == true);
  CHECK(c["factor"] == "scale");
  CHECK(c["groups"].size() == 3);
  CHECK(c["variant_gain"].get<double>() == Approx(0.95));
  CHECK_THAT(ratio_check_sentence(c), Catch::Contains("d 0.900x against 0.990x (1 pair(s), 8x the devices)"));
  // More GPUs with the global batch held (strong scaling) is not such a pair.
  large["global_batch"] = 64;
  CHECK(versus_ratio_check(versus_report(small, large, 0.8), fam)["applies"] == false);
}
