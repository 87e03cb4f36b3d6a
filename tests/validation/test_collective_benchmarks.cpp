// test_collective_benchmarks.cpp — the nccl-tests tables as a validation dataset: every row on the
// hw file its hardware column names, the same errors `trnsim collective --compare` gives, and a
// table that names no instance refused with its file and row.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "collective_bench.hpp"
#include "collective_benchmarks.hpp"
#include "measured_collectives.hpp"
#include "scenario.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;

TEST_CASE("collective benchmarks: the corpus's nccl-tests table, row by row as `collective --compare`", "[validation][collective][tlm]") {
  const std::string dir = std::string(TRNSIM_SOURCE_DIR) + "/data/validation";
  const nlohmann::json b = collective_benchmarks(dir);
  REQUIRE(b.contains("nccl_tests_p5_efa / busbw"));
  const auto& t = b["nccl_tests_p5_efa / busbw"];
  CHECK(t["error"]["n"] == 80);
  CHECK(t["hw"] == nlohmann::json::array({"p5.48xlarge"}));
  double sum = 0;
  const auto rows = load_collective_table(dir + "/nccl_tests_p5_efa.csv");
  for (const auto& c : compare_collectives(load_hw_spec(hw_path("p5.48xlarge")), rows)) sum += std::abs(c.error());
  CHECK(t["error"]["mean_abs_pct"].get<double>() == Approx(100 * sum / 80));
  int per_nodes = 0;
  for (const auto& n : t["by_nodes"]) per_nodes += n["n"].get<int>();
  CHECK(per_nodes == 80);
  CHECK(t["by_collective"]["all_reduce"]["n"] == 45);
  CHECK(t["by_collective"]["alltoall"]["n"] == 35);
  CHECK(collective_benchmarks_markdown(b).find("| nccl_tests_p5_efa.csv | p5.48xlarge | 80 |") != std::string::npos);
}

TEST_CASE("collective benchmarks: a table without the instance in its hardware column is refused", "[validation][collective]") {
  const auto dir = std::filesystem::temp_directory_path() / ("trnsim_cb_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "nccl_tests_mine.csv") << "collective,nodes,size_MB,busbw_GBps\nall_reduce,2,64,100\n";
  CHECK_THROWS_WITH(collective_benchmarks(dir.string()), Catch::Contains("nccl_tests_mine.csv row 1") && Catch::Contains("hardware"));
  CHECK(collective_benchmarks((dir / "none").string()).empty());  // no directory, no table
  std::filesystem::remove_all(dir);
}
