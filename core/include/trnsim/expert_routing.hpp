// expert_routing.hpp — where a mixture-of-experts token's routed copies go, as the network sees it.
//
// Why it exists: an expert-parallel all-to-all that crosses scale-up domains costs what crosses the
// network. A plain all-to-all dispatcher sends every routed copy to its expert's rank; a
// domain-aware one (DeepEP / HybridEP under Megatron-Core's flex dispatcher) sends a token once
// per destination domain and fans it out over NVLink there. With group-limited routing (DeepSeek-V3:
// 256 experts in 8 groups, each token's experts drawn from its top 4 groups) a token reaches at most
// group_topk groups. This header holds the hardware-neutral description the graph builder puts on
// the all-to-all op and the closed form the fabric uses for the network part.
#pragma once

namespace trnsim {

struct ExpertRouting {
  int top_k = 0;      // routed copies per token (0: not an MoE all-to-all)
  int experts = 0;    // routed experts, spread evenly and contiguously over the EP group
  int groups = 1;     // expert groups (contiguous) of group-limited routing; 1: unlimited
  int group_topk = 1; // groups a token may use
  bool once_per_domain = false;  // the dispatcher sends a token once per destination domain
  bool active() const { return top_k > 0 && experts > 0; }
};

// Expected number of scale-up domains other than the sender's that hold at least one of a token's
// top_k experts, when the EP group's experts are split evenly over `domains` domains (contiguous
// blocks), the token's groups are a uniform choice of group_topk of `groups` and its experts a
// uniform choice of top_k distinct experts among them (balanced routing). Exact (hypergeometric)
// when groups and domains nest (one divides the other); otherwise routing is taken as unlimited.
double remote_domains_per_token(const ExpertRouting& r, int domains);

}  // namespace trnsim
