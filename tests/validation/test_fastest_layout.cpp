// test_fastest_layout.cpp — rows that ran "the most performant configuration" without listing it
// (NeMo's long-sequence page, without CP) are predicted as trnsim's fastest layout among those the
// stack could run; and the B200 long-sequence table runs on the GPUs its own layouts use (a quarter
// of its GPU column, nemo.cpp long_sequence_gpu_factors).
#include <catch2/catch.hpp>

#include <algorithm>

#include "validation.hpp"

using namespace trnsim;

namespace {
const std::string kLongSeqCsv = std::string(TRNSIM_SOURCE_DIR) + "/data/validation";

const ValidationCase& nemo_row(const std::vector<ValidationCase>& v, int r) {
  const auto it = std::find_if(v.begin(), v.end(), [&](const ValidationCase& c) { return c.row == r; });
  REQUIRE(it != v.end());
  return *it;
}

std::vector<Workload> layouts_of(const ValidationCase& c) {
  std::vector<Workload> all{c.workload};
  all.insert(all.end(), c.alternatives.begin(), c.alternatives.end());
  return all;
}
}  // namespace

TEST_CASE("a row run on its stack's fastest unlisted layout gets the layouts the stack could run", "[validation][layouts]") {
  const auto v = load_dataset("nvidia_nemo", kLongSeqCsv);
  // Llama 2 7B, 1,024 H100s, 4 sequences of 1 M tokens, without CP: DP <= 4 (micro-batch 1), TP
  // inside a node (<= 8), so TP x PP >= 256: PP 32, one layer per stage, one micro-batch.
  const auto& m = nemo_row(v, 411);
  REQUIRE(m.has_workload);
  for (const auto& w : layouts_of(m)) {
    CHECK(w.cp == 1);
    CHECK(w.tp <= 8);
    CHECK(w.devices() == 1024);
    CHECK(w.global_batch % w.dp == 0);
    CHECK(w.tp * w.pp >= 256);
  }
  // At 32 K tokens on 32 GPUs many layouts fit, each with the lightest recompute that fits.
  const auto& k = nemo_row(v, 401);
  REQUIRE(k.alternatives.size() >= 5);
  for (const auto& w : layouts_of(k)) {
    CHECK(w.devices() == 32);
    CHECK(make_scenario(w, k.model, true).fits);
  }
  // A row with its layout stated has no alternatives.
  CHECK(nemo_row(v, 410).alternatives.empty());
}

TEST_CASE("the prediction of such a row is the fastest of its layouts", "[validation][layouts]") {
  const auto v = load_dataset("nvidia_nemo", kLongSeqCsv);
  const auto& c = nemo_row(v, 415);  // Llama 3 8B, B200, 16 K tokens, without CP: on 4 GPUs
  REQUIRE(c.alternatives.size() >= 2);
  double best = 0;
  std::string status;
  Workload used;
  REQUIRE(predict_case(c, FamilyParams{}, best, status, {}, {}, &used));
  double fastest = 0;
  int at_best = 0;
  for (const auto& w : layouts_of(c)) {
    ValidationCase one = c;
    one.alternatives.clear();
    one.workload = w;
    double p = 0;
    if (!predict_case(one, FamilyParams{}, p, status)) continue;
    fastest = std::max(fastest, p);
    if (w.tp == used.tp && w.pp == used.pp) CHECK(p == Approx(best).epsilon(1e-12));
    at_best += p == Approx(best).epsilon(1e-12) ? 1 : 0;
  }
  CHECK(best == Approx(fastest).epsilon(1e-12));
  CHECK(at_best >= 1);
}

TEST_CASE("the B200 long-sequence table runs on the GPUs its layouts use", "[validation][layouts]") {
  const auto v = load_dataset("nvidia_nemo", kLongSeqCsv);
  // Every with-CP row states DP with TP x CP x DP = a quarter of the GPU column: 1,024 -> 256.
  const auto& cp = nemo_row(v, 426);
  REQUIRE(cp.has_workload);
  CHECK(cp.gpus == 256);
  CHECK(cp.workload.devices() == 256);
  CHECK(cp.workload.dp == 4);  // the stated DP, no longer inconsistent
  CHECK(nemo_row(v, 425).gpus == 128);  // the same table's row without CP
  // The H100 table's layouts use its whole column: unchanged.
  const auto& h = nemo_row(v, 410);
  CHECK(h.gpus == 1024);
  CHECK(h.workload.devices() == 1024);
}
