// test_workload_set.cpp — `trnsim run W --set ...`: what-if edits land in the workload's JSON with
// the types the reader expects, create the sections they name, and the edited workload is read as
// strictly as a file (an unknown field or a layout that does not multiply out is the reader's error).
#include <catch2/catch.hpp>

#include "scenario.hpp"
#include "step_executor.hpp"
#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"
#include "workload_set.hpp"

using namespace trnsim;

namespace {
nlohmann::json main_job() { return load_json_file(std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json"); }
}  // namespace

TEST_CASE("trnsim run --set edits a workload's fields as JSON values, else strings", "[cli]") {
  nlohmann::json j = main_job();
  apply_workload_set(j, " parallel.tp=4; parallel.dp=1024 ;precision=fp8;fused.elementwise=false;;batch.seq_len=2048");
  CHECK(j["parallel"]["tp"] == 4);
  CHECK(j["parallel"]["dp"] == 1024);
  CHECK(j["precision"] == "fp8");                 // not JSON: the word as a string
  CHECK(j["fused"]["elementwise"] == false);      // a new field of an existing section
  CHECK(j["batch"]["seq_len"] == 2048);
  CHECK(j["parallel"]["sequence_parallel"] == true);  // untouched fields stay
  apply_workload_set(j, "a.b={\"c\":[1,2]}");
  CHECK(j["a"]["b"]["c"] == nlohmann::json::array({1, 2}));  // sections created on the way, a JSON object as the value
}

TEST_CASE("trnsim run --set: the edited workload is read like a file", "[cli]") {
  nlohmann::json j = main_job();
  apply_workload_set(j, "parallel.tp=4;parallel.dp=1024");
  const Scenario s = scenario_from_json(j, "main job with --set", true);
  CHECK(s.workload.tp == 4);
  CHECK(s.workload.dp == 1024);
  nlohmann::json wrong = main_job();
  apply_workload_set(wrong, "parallel.tp=4");  // 4 x 1 x 512 is not 4,096 cores
  CHECK_THROWS_AS(scenario_from_json(wrong, "main job with --set", true), ConfigError);
  nlohmann::json unknown = main_job();
  apply_workload_set(unknown, "parallel.tpp=4");
  CHECK_THROWS_WITH(scenario_from_json(unknown, "main job with --set", true), Catch::Contains("tpp"));
}

TEST_CASE("trnsim run --set: a malformed edit is a usage error naming it", "[cli]") {
  nlohmann::json j = main_job();
  CHECK_THROWS_WITH(apply_workload_set(j, "parallel.tp"), Catch::Contains("\"parallel.tp\": expected path=value"));
  CHECK_THROWS_WITH(apply_workload_set(j, "parallel..tp=2"), Catch::Contains("an empty name in the path"));
  CHECK_THROWS_WITH(apply_workload_set(j, "=2"), Catch::Contains("the path and the value must both be given"));
  CHECK_THROWS_WITH(apply_workload_set(j, "nodes="), Catch::Contains("the path and the value must both be given"));
  CHECK_THROWS_WITH(apply_workload_set(j, "name.x=1"), Catch::Contains("\"name\" is a value, not a section"));
  CHECK_THROWS_AS(apply_workload_set(j, "parallel.tp"), UsageError);
}

namespace {
const std::string kMainJob = std::string(TRNSIM_SOURCE_DIR) + "/workloads/llama7b_tp8_dp512.json";
double step_of(const Scenario& s) { return execute_step(s).step_time_s; }
}  // namespace

TEST_CASE("trnsim run --hw-set: a hypothetical chip, read as strictly as its file", "[cli]") {
  const double base = step_of(load_scenario_with_set(kMainJob, "", true));
  // The file's own figure: the same chip, the same step; the report notes the edit.
  const Scenario same = load_scenario_with_set(kMainJob, "", true, "hbm.bandwidth_GBps_per_chip=820");
  CHECK(step_of(same) == base);
  REQUIRE_FALSE(same.notes.empty());
  CHECK_THAT(same.notes.back(), Catch::Contains("hardware edited with --hw-set"));
  // Twice the NICs: the 512-node run's data-parallel all-reduces cross them, so the step shortens.
  const Scenario nic = load_scenario_with_set(kMainJob, "", true, "inter_node.nic_Gbps_per_node=1600");
  CHECK(nic.hw.inter.nic_bandwidth.base() == Approx(200e9));
  CHECK(step_of(nic) < base);
  // With --set too: both edits land.
  const Scenario both = load_scenario_with_set(kMainJob, "batch.micro_batch=2", true, "tensor.clock_GHz=3.0");
  CHECK(both.workload.micro_batch == 2);
  CHECK(both.hw.tensor.clock_hz == Approx(3.0e9));
  // A misspelt or out-of-range figure is the hw reader's one-line error naming the file and the edit.
  CHECK_THROWS_WITH(load_scenario_with_set(kMainJob, "", true, "hbm.bandwith=3"),
                    Catch::Contains("(with --hw-set hbm.bandwith=3)") && Catch::Contains("unknown field \"bandwith\""));
  CHECK_THROWS_WITH(load_scenario_with_set(kMainJob, "", true, "hbm.bandwidth_GBps_per_chip=-3"),
                    Catch::Contains("out of range"));
  CHECK_THROWS_WITH(load_scenario_with_set(kMainJob, "", true, "hbm"),
                    Catch::Contains("--hw-set \"hbm\": expected path=value, e.g. hbm.bandwidth_GBps_per_chip"));
  CHECK_THROWS_WITH(load_scenario_with_set(kMainJob, "", true, "instance.x=1"),
                    Catch::Contains("\"instance\" is a value, not a section, in this hw file"));
}
