// test_fork_map.cpp — issue 27: fork_map returns every task's result in index order whatever
// the worker count, and turns a task's exception or a worker's death into a ConfigError.
#include <catch2/catch.hpp>
#include <csignal>
#include <string>

#include "trnsim/error.hpp"
#include "trnsim/fork_map.hpp"

using namespace trnsim;

TEST_CASE("fork_map: results in index order, the same on 1, 2 and 7 workers", "[fork_map]") {
  auto task = [](size_t i) { return std::to_string(i * i) + std::string(i % 5 * 30000, 'x'); };  // some > a pipe buffer
  const auto serial = fork_map(23, 1, task);
  for (int w : {2, 7}) CHECK(fork_map(23, w, task) == serial);
  REQUIRE(serial.size() == 23);
  CHECK(serial[4].substr(0, 2) == "16");
  size_t last = 0, calls = 0;
  fork_map(23, 2, task, [&](size_t done, size_t n) {
    CHECK(done > last);
    CHECK(n == 23);
    last = done;
    ++calls;
  });
  CHECK(last == 23);
  CHECK(calls >= 1);
}

TEST_CASE("fork_map: a task's exception is rethrown with its message - a dead worker names the task", "[fork_map]") {
  auto throwing = [](size_t i) -> std::string {
    if (i == 5) throw ConfigError("row 6: bad input");
    return "ok";
  };
  CHECK_THROWS_WITH(fork_map(9, 2, throwing), "row 6: bad input");
  CHECK_THROWS_WITH(fork_map(9, 1, throwing), "row 6: bad input");
  auto dying = [](size_t i) -> std::string {
    if (i == 3) std::raise(SIGKILL);
    return "ok";
  };
  CHECK_THROWS_WITH(fork_map(6, 2, dying), Catch::Contains("task 4 of 6") && Catch::Contains("signal 9"));
  CHECK(fork_map(0, 2, dying).empty());
}
