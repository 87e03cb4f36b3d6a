// registry.cpp — the datasets of the validation corpus, in report order, and their files.
#include <fmt/format.h>

#include <map>

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

std::string dataset_file(const std::string& name, const std::string& dir) {
  static const std::map<std::string, std::string> files = {
      {"korthikanti2022", "korthikanti2022.csv"},
      {"vtrain_multi", "vtrain_ground_truth_multi.csv"},
      {"vtrain_single", "vtrain_ground_truth_single.csv"},
      {"aws_neuron_trn1", "aws_neuron_trn1_training.csv"},
      {"nvidia_nemo", "nvidia_nemo_megatron_bridge.csv"},
      {"nvidia_nemo_moe", "nvidia_nemo_megatron_bridge.csv"},
      {"nvidia_nemo_finetune", "nvidia_nemo_megatron_bridge.csv"},
      {"torchtitan", "torchtitan.csv"},
      {"kempnerforge", "kempnerforge_h200.csv"},
      {"llmfoundry", "llmfoundry_mpt_2023_07_a100_80gb.csv"}};
  if (name == "seed") return data_dir() + "/results/published.json";
  const auto it = files.find(name);
  if (it != files.end()) return dir + "/" + it->second;
  std::string all;
  for (const auto& n : dataset_names()) all += (all.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("--dataset {}: unknown dataset; choose from {}", name, all));
}

std::vector<ValidationCase> load_dataset(const std::string& name, const std::string& dir) {
  const std::string file = dataset_file(name, dir);
  if (name == "seed") return seed(file);
  if (name == "korthikanti2022") return korthikanti(file);
  if (name == "vtrain_multi" || name == "vtrain_single") return vtrain(file, name);
  if (name == "aws_neuron_trn1") return neuron_trn1(file);
  if (name == "nvidia_nemo") return nemo(file, NemoRows::Dense);
  if (name == "nvidia_nemo_moe") return nemo(file, NemoRows::Moe);
  if (name == "nvidia_nemo_finetune") return nemo(file, NemoRows::FineTuning);
  if (name == "torchtitan") return torchtitan(file);
  if (name == "kempnerforge") return kempnerforge(file);
  return llmfoundry(file);  // the last name dataset_file knows
}

}  // namespace trnsim
