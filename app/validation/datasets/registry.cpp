// registry.cpp — the datasets of the validation corpus, in report order, and their files.
#include <fmt/format.h>

#include "dataset_common.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"

namespace trnsim {
using namespace datasets;

namespace {
// One entry per dataset, in report order: its file (under the corpus directory; the seed rows'
// under the data directory) and its adapter.
struct Dataset {
  const char* name;
  const char* file;  // relative to the corpus directory, or to the data directory for "seed"
  std::vector<ValidationCase> (*load)(const std::string& file);
};
// The FSDP stacks' datasets (torchtitan, KempnerForge, llm-foundry) are in the default corpus with
// their stack profiles and attention kernels (docs/stacks.md); their A100 and H100 calibration rows
// share the family fits (RULES.md note).
const Dataset kDatasets[] = {
    {"seed", "results/published.json", [](const std::string& f) { return seed(f); }},
    {"korthikanti2022", "korthikanti2022.csv", [](const std::string& f) { return korthikanti(f); }},
    {"vtrain_multi", "vtrain_ground_truth_multi.csv", [](const std::string& f) { return vtrain(f, "vtrain_multi"); }},
    {"vtrain_single", "vtrain_ground_truth_single.csv", [](const std::string& f) { return vtrain(f, "vtrain_single"); }},
    {"aws_neuron_trn1", "aws_neuron_trn1_training.csv", [](const std::string& f) { return neuron_trn1(f); }},
    {"nvidia_nemo", "nvidia_nemo_megatron_bridge.csv", [](const std::string& f) { return nemo(f, NemoRows::Dense); }},
    {"nvidia_nemo_moe", "nvidia_nemo_megatron_bridge.csv", [](const std::string& f) { return nemo(f, NemoRows::Moe); }},
    {"nvidia_nemo_finetune", "nvidia_nemo_megatron_bridge.csv",
     [](const std::string& f) { return nemo(f, NemoRows::FineTuning); }},
    {"torchtitan", "torchtitan.csv", [](const std::string& f) { return torchtitan(f); }},
    {"kempnerforge", "kempnerforge_h200.csv", [](const std::string& f) { return kempnerforge(f); }},
    {"llmfoundry", "llmfoundry_mpt_2023_07_a100_80gb.csv", [](const std::string& f) { return llmfoundry(f); }},
};

const Dataset& dataset_entry(const std::string& name) {
  for (const auto& d : kDatasets)
    if (name == d.name) return d;
  std::string all;
  for (const auto& n : dataset_names()) all += (all.empty() ? "" : ", ") + n;
  throw UsageError(fmt::format("--dataset {}: unknown dataset; choose from {}", name, all));
}
}  // namespace

const std::vector<std::string>& dataset_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const auto& d : kDatasets) n.push_back(d.name);
    return n;
  }();
  return names;
}

std::string corpus_dir() { return data_dir() + "/data/validation"; }

std::string dataset_file(const std::string& name, const std::string& dir) {
  const Dataset& d = dataset_entry(name);
  return (name == "seed" ? data_dir() : dir.empty() ? corpus_dir() : dir) + "/" + d.file;
}

std::vector<ValidationCase> load_dataset(const std::string& name, const std::string& dir) {
  return dataset_entry(name).load(dataset_file(name, dir));
}

}  // namespace trnsim
