// registry.cpp — the datasets of the validation corpus, in report order, and their files.
#include <fmt/format.h>

#include "dataset_common.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
using namespace datasets;

// The FSDP stacks' datasets (torchtitan, KempnerForge, llm-foundry) joined the default corpus in
// session 17, with their stack profiles and attention kernels (docs/stacks.md): they had been run
// with --dataset only while no profile described FSDP2 / FSDP1, because their A100 and H100
// calibration rows move the shared family fits (RULES.md note, session 17).
const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names = {"seed",           "korthikanti2022", "vtrain_multi",
                                                 "vtrain_single",  "aws_neuron_trn1", "nvidia_nemo",
                                                 "nvidia_nemo_moe", "nvidia_nemo_finetune", "torchtitan",
                                                 "kempnerforge",   "llmfoundry"};
  return names;
}

std::vector<ValidationCase> load_dataset(const std::string& name, const std::string& dir) {
  if (name == "seed") return seed(data_dir() + "/results/published.json");
  if (name == "korthikanti2022") return korthikanti(dir + "/korthikanti2022.csv");
  if (name == "vtrain_multi") return vtrain(dir + "/vtrain_ground_truth_multi.csv", name);
  if (name == "vtrain_single") return vtrain(dir + "/vtrain_ground_truth_single.csv", name);
  if (name == "aws_neuron_trn1") return neuron_trn1(dir + "/aws_neuron_trn1_training.csv");
  if (name == "nvidia_nemo") return nemo(dir + "/nvidia_nemo_megatron_bridge.csv", NemoRows::Dense);
  if (name == "nvidia_nemo_moe") return nemo(dir + "/nvidia_nemo_megatron_bridge.csv", NemoRows::Moe);
  if (name == "nvidia_nemo_finetune") return nemo(dir + "/nvidia_nemo_megatron_bridge.csv", NemoRows::FineTuning);
  if (name == "torchtitan") return torchtitan(dir + "/torchtitan.csv");
  if (name == "kempnerforge") return kempnerforge(dir + "/kempnerforge_h200.csv");
  if (name == "llmfoundry") return llmfoundry(dir + "/llmfoundry_mpt_2023_07_a100_80gb.csv");
  std::string all;
  for (const auto& n : dataset_names()) all += (all.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("--dataset {}: unknown dataset; choose from {}", name, all));
}

}  // namespace trnsim
