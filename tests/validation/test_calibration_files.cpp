// test_calibration_files.cpp — `trnsim calibrate --apply` must reach every hardware file, and write
// into each only the parameters of the execution modes it offers: a file no family lists keeps a
// hand-copied value that the next fit leaves behind (trn2u / trn3 / trn3u until session 33), and
// a Trainium3 file given a torch-xla trace cost would offer a stack that no longer exists there.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "scenario.hpp"
#include "trnsim/json_reader.hpp"
#include "validation.hpp"

using namespace trnsim;

TEST_CASE("every hardware file belongs to exactly one calibration family", "[validation][calibration]") {
  std::map<std::string, int> owners;
  for (const char* family : {"trainium", "gaudi", "a100", "h100", "h100_500w", "blackwell"})
    for (const auto& file : family_hw_files(family)) ++owners[file];
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(TRNSIM_SOURCE_DIR) + "/hw")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string name = entry.path().stem().string();
    INFO(name);
    CHECK(owners[name] == 1);
  }
  CHECK(files == static_cast<int>(owners.size()));  // and no family lists a file that is not there
}

TEST_CASE("a family's host parameter is written only where the file offers that mode", "[validation][calibration]") {
  const nlohmann::json trn2 = load_json_file(hw_path("trn2.48xlarge")), trn3 = load_json_file(hw_path("trn3.48xlarge"));
  CHECK(file_carries_parameter(trn2, "host.trace_s"));   // torch-xla still ran on Trn2 (Neuron <= 2.29)
  CHECK_FALSE(file_carries_parameter(trn3, "host.trace_s"));
  CHECK(file_carries_parameter(trn3, "tensor.efficiency"));
  CHECK(file_carries_parameter(trn3, "host.dispatch_s"));  // eager TorchNeuron
  // The stale check and --apply agree: the Trainium fit's values are in every file that carries them.
  for (const auto& file : family_hw_files("trainium")) {
    const nlohmann::json j = load_json_file(hw_path(file));
    INFO(file);
    CHECK(j["tensor"]["efficiency"].get<double>() == Approx(load_json_file(hw_path("trn1.32xlarge"))["tensor"]["efficiency"].get<double>()));
    if (file_carries_parameter(j, "host.trace_s"))
      CHECK(j["host"]["trace_us"].get<double>() == Approx(load_json_file(hw_path("trn1.32xlarge"))["host"]["trace_us"].get<double>()));
  }
}
