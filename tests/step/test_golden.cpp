// test_golden.cpp — issue 9: speed work must not change answers. The full JSON report of
// each seed workload must equal its stored reference bit for bit (regenerate deliberately
// with TRNSIM_UPDATE_GOLDEN=1 after a model change, and say why in the commit), and an
// op timing read back from the persistent cache must equal the simulated one exactly.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <fstream>

#include "lowering.hpp"
#include "op_factory.hpp"
#include "platform.hpp"
#include "report.hpp"
#include "step_executor.hpp"

using namespace trnsim;

namespace {
nlohmann::json answer(const std::string& workload) {
  auto s = load_scenario(std::string(TRNSIM_SOURCE_DIR) + "/workloads/" + workload + ".json");
  auto j = make_report(s, execute_step(s));
  j.erase("simulator");              // cache statistics, not the answer
  j["workload"].erase("file");       // absolute path of the checkout
  return j;
}
}  // namespace

TEST_CASE("seed workloads reproduce their stored reports bit for bit", "[golden]") {
  for (const char* w : {"llama7b_tp8_dp512", "r1_neox20b_tp8_pp4_4node", "r2_bert1.5b_zero1_8node",
                        "r1_pythia6.9b_tp8_pp1_4node", "hlat7b_tp8_64node"}) {
    const std::string path = std::string(TRNSIM_SOURCE_DIR) + "/tests/golden/" + w + ".json";
    const std::string got = answer(w).dump(1) + "\n";
    if (std::getenv("TRNSIM_UPDATE_GOLDEN")) std::ofstream(path) << got;
    std::ifstream in(path);
    REQUIRE(in);
    std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(w);
    CHECK(got == expected);
  }
}

TEST_CASE("a cached op timing equals the uncached simulation exactly", "[golden]") {
  HwSpec hw = load_hw_spec(hw_path("trn1.32xlarge"));
  // a shape no workload uses, so the first lookup simulates
  const Op op = ops::gemm("gemm", 3, 4096, 4096, 1376, DType::BF16);
  auto& p = Platform::instance();
  p.configure(hw);
  const OpTiming direct = p.timer().run_program(lower_op(op, hw), hw.cores_per_chip);
  const OpTiming first = p.timer().time(op);
  const std::string file =
      (std::filesystem::temp_directory_path() / ("trnsim-test-" + std::to_string(getpid()) + ".opcache")).string();
  p.timer().save_cache(file);
  OpTimer fresh(p.chip());
  fresh.use(hw);
  fresh.load_cache(file);
  const OpTiming cached = fresh.time(op);
  std::remove(file.c_str());
  CHECK(fresh.simulated() == 0);
  CHECK(cached.seconds == first.seconds);
  CHECK(first.seconds == direct.seconds);
  for (size_t q = 0; q < cached.busy_s.size(); ++q) CHECK(cached.busy_s[q] == direct.busy_s[q]);
}
