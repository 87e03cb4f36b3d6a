// test_layouts.cpp — the sweep's layouts come from the one enumerator (layout_space.hpp): every
// sweep layout is a layout the search explores, with the same workload under the same stack, and
// the sweep's own axes (TP a power of two in a node, SP wherever TP > 1) hold; a hand count.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "layout_space.hpp"
#include "layouts.hpp"
#include "scenario.hpp"
#include "stack_profile.hpp"

#include <set>

using namespace trnsim;

namespace {
// The workload JSON without its name (the sweep and the search name layouts differently).
std::string unnamed(Workload w) {
  w.name = w.file = "x";
  return workload_to_json(w);
}
}  // namespace

TEST_CASE("the sweep's layouts are layouts the search explores, with the same workloads", "[sweep][layouts]") {
  struct Case {
    const char *model, *hw, *stack;
    int64_t nodes, seq, gb;
  };
  for (const Case& c : {Case{"llama2-7b", "trn1.32xlarge", "", 2, 4096, 256}, Case{"llama2-7b", "trn1.32xlarge", "nxd", 2, 4096, 256},
                        Case{"qwen3-30b-a3b", "p5.48xlarge", "torchtitan", 2, 4096, 128},
                        Case{"llama3.1-8b", "p5.48xlarge", "megatron-core", 1, 8192, 64}}) {
    INFO(c.model << " on " << c.hw << " stack " << c.stack);
    LayoutSpace sweep;
    sweep.model = c.model, sweep.hw = c.hw, sweep.nodes = c.nodes, sweep.seq_len = c.seq, sweep.global_batch = c.gb;
    sweep.micro_batches = {1, 2};
    sweep.stack = c.stack;
    const auto layouts = enumerate_layouts(sweep);
    REQUIRE(!layouts.empty());

    SpaceSpec search;
    search.model = c.model, search.hws = {c.hw}, search.nodes = {c.nodes}, search.seq_len = c.seq, search.global_batch = c.gb;
    search.axes["recompute"] = {0, 1, 2};  // the sweep's recompute axis wins over a profile's policies
    if (*c.stack) use_stack(search, c.stack, stack_lookup());
    const HwSpec hw = load_hw_spec(hw_path(c.hw));
    std::set<std::string> explored;
    for (const Layout& l : enumerate_space(search, load_model_spec(model_path(c.model)), {hw}))
      explored.insert(unnamed(layout_workload(l, search, hw)));
    for (const Workload& w : layouts) {
      INFO(w.name);
      CHECK(explored.count(unnamed(w)) == 1);
      CHECK((w.tp & (w.tp - 1)) == 0);
      CHECK(w.tp <= hw.cores_per_node());
      if (!*c.stack) CHECK(w.sequence_parallel == (w.tp > 1));
      CHECK(w.name == layout_id(w));
    }
  }
}

TEST_CASE("the sweep's layout count by hand: BERT-Large on one dl1 node", "[sweep][layouts]") {
  // 16 heads, 24 layers, 8 cores: TP 1/2/4/8 (all divide 16), PP dividing 24 with TP x PP dividing
  // 8 -> (tp, pp) pairs: tp1 {1,2,4,8}, tp2 {1,2,4}, tp4 {1,2}, tp8 {1} = 10 pairs, every DP = 8 / (tp
  // pp) divides 256 / 32. Each: 3 recompute x 2 fused x ZeRO {0, 1} (1 only with DP > 1): the pairs
  // with DP 1 (tp1pp8, tp2pp4, tp4pp2, tp8pp1) have one ZeRO stage: 6 x 12 + 4 x 6 = 96.
  LayoutSpace sp;
  sp.model = "bert-large", sp.hw = "dl1.24xlarge", sp.nodes = 1, sp.seq_len = 128, sp.global_batch = 256;
  sp.micro_batches = {32};
  CHECK(enumerate_layouts(sp).size() == 96);
}
