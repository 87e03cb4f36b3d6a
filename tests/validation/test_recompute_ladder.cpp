// test_recompute_ladder.cpp — the NeMo adapter's declared recompute assumption (the recipes are
// tuned to fit): the lightest of none, selective, full recompute of the first N layers of each
// pipeline chunk (Megatron-Core's block method, the smallest N) and full that fits in memory.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "dataset_common.hpp"
#include "helpers.hpp"

using namespace trnsim;

TEST_CASE("NeMo's lightest recompute that fits takes the smallest block that fits", "[checkpoint][validation]") {
  // Llama 3.1 70B on 64 GB300 at TP 1, PP 4, VP 5 (4 layers per chunk), MXFP8, micro-batch 1 x 8192:
  // neither no recompute nor selective fits; full recompute of some first layers per chunk does.
  ValidationCase c;
  c.model = load_model_spec(model_path("llama3.1-70b"));
  Workload w = test::workload("llama3.1-70b", "gb300-nvl72", 16, 1, 4, 16, 1, 256, 8192);
  w.virtual_stages = 5;
  w.attention = Attention::Flash;
  w.precision = Precision::MXFP8;
  w.fp32_grads = true;
  w.zero = 1;
  c.workload = w;
  datasets::lightest_recompute_that_fits(c);
  const Workload& got = c.workload;
  REQUIRE(got.checkpointing == Checkpointing::Full);
  REQUIRE(got.checkpoint_layers > 0);
  CHECK(got.checkpoint_layers < 4);
  CHECK(make_scenario(got, c.model, true).fits);
  Workload fewer = got;
  fewer.checkpoint_layers -= 1;
  if (fewer.checkpoint_layers == 0) fewer.checkpointing = Checkpointing::Selective;
  CHECK_FALSE(make_scenario(fewer, c.model, true).fits);
  // `--explain` says how close no recompute came: its memory need against the usable HBM.
  Workload none = w;
  none.checkpointing = Checkpointing::None;
  const Scenario s = make_scenario(none, c.model, true);
  REQUIRE_FALSE(s.fits);
  CHECK_THAT(c.recompute_note, Catch::Contains(fmt::format("none would need {:.1f} GiB of {:.1f} GiB usable",
                                                            in_gib(peak_stage(s.memory).total()), in_gib(s.hw.hbm_per_core()))));
  // A run that fits without recompute keeps no note.
  ValidationCase small = c;
  small.recompute_note.clear();
  small.workload = w;
  small.workload.micro_batch = 1;
  small.workload.seq_len = 1024;
  datasets::lightest_recompute_that_fits(small);
  CHECK(small.workload.checkpointing == Checkpointing::None);
  CHECK(small.recompute_note.empty());
}
