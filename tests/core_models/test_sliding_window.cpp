// test_sliding_window.cpp — issue 24: alternating sliding-window attention (GPT-OSS), against
// hand calculations written here: GPT-OSS-120B's published parameter count (with attention and
// expert biases, without the 64 sink logits per layer), which layers are windowed, the key
// columns a windowed flash kernel computes, and that the window changes only the attention core.
#include <catch2/catch.hpp>

#include "block_builder.hpp"
#include "helpers.hpp"
#include "model_spec.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

using namespace trnsim;

namespace {
Workload oss(int64_t seq) { return test::moe_workload("gpt-oss-120b", "gb200-nvl72", 16, 1, 64, 64, 1, 128, seq); }
}  // namespace

TEST_CASE("GPT-OSS-120B: the published parameter count by hand", "[window][moe]") {
  const auto m = load_model_spec(model_path("gpt-oss-120b"));
  const int64_t h = 2880, q = 64 * 64, kv = 8 * 64, e = 2880;
  const int64_t attn = h * q + 2 * h * kv + q * h + (q + 2 * kv + h);  // weights and biases
  const int64_t experts = 128 * (h * 2 * e + 2 * e + e * h + h);       // gate_up and down, with biases
  const int64_t layer = attn + (h * 128 + 128) + experts + 2 * h;      // router with bias, two RMSNorms
  const int64_t total = 36 * layer + 2 * 201088 * h + h;               // untied embedding and head, final norm
  CHECK(m.total_parameters() == total);
  CHECK(static_cast<double>(m.public_parameters - static_cast<double>(total)) == Approx(36 * 64));  // the sinks
}

TEST_CASE("sliding window: every other layer windowed, its kernel computes window + one query tile of keys",
          "[window]") {
  const auto m = load_model_spec(model_path("gpt-oss-120b"));
  CHECK(m.sliding_window.windowed(0));
  CHECK_FALSE(m.sliding_window.windowed(1));
  CHECK(m.sliding_window.windowed(34));
  CHECK_FALSE(m.sliding_window.windowed(35));
  CHECK(flash_window_key_columns(4096, 128) == 128 + 512);
  CHECK(flash_window_key_columns(512, 128) == flash_key_columns(512, true));  // never above causal
  const auto plan = build_step_plan(m, oss(4096));
  const Op* win = test::op_named(plan, "L0.flash.scores");
  const Op* full = test::op_named(plan, "L1.flash.scores");
  REQUIRE((win && full));
  CHECK(win->n == 640);
  CHECK(full->n == flash_key_columns(4096, true));
  CHECK(test::op_named(plan, "L0.flash.context")->k == 640);
  // Everything outside the attention core is the same in both kinds of layer.
  CHECK(test::op_named(plan, "L0.qkv")->flops.base() == Approx(test::op_named(plan, "L1.qkv")->flops.base()));
  // Doubling the sequence doubles a windowed layer's attention work per micro-batch (linear in s).
  const auto plan2 = build_step_plan(m, oss(8192));
  CHECK(test::op_named(plan2, "L0.flash.scores")->flops.base() == Approx(2 * win->flops.base()));
  CHECK(test::op_named(plan2, "L1.flash.scores")->flops.base() > 3.5 * full->flops.base());  // quadratic
}

TEST_CASE("sliding window: bad model fields are one-line errors", "[window]") {
  auto j = load_json_file(model_path("gpt-oss-120b"));
  j["sliding_window"]["window"] = 0;
  CHECK_THROWS_WITH(model_spec_from_json(j, "m.json"), Catch::Contains("/sliding_window/window"));
  j["sliding_window"] = {{"window", 128}, {"every", 2}};
  CHECK_THROWS_WITH(model_spec_from_json(j, "m.json"), Catch::Contains("every"));
}
