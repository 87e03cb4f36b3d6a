// test_memory_band.cpp — a does-not-fit error says when the shortfall is inside the memory model's
// error on published peak-memory rows (memory_band.hpp).
#include <catch2/catch.hpp>

#include <fstream>
#include <unistd.h>

#include "memory_band.hpp"
#include "trnsim/error.hpp"

using namespace trnsim;

namespace {
std::string write_rows(const std::string& rows) {
  const std::string path = "/tmp/trnsim_test_memory_band_" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << R"({"rows": [)" << rows << "]}";
  return path;
}
std::string memory_row(double error_pct, const char* status = "predicted") {
  return std::string(R"({"quantity": "peak_memory", "status": ")") + status + R"(", "error_pct": )" + std::to_string(error_pct) + "}";
}
}  // namespace

TEST_CASE("memory error band: quantiles of published peak-memory rows, and the note inside it", "[validation][memory]") {
  // 21 predicted rows at -20, -18, ..., +20 %: the 5 % / 95 % quantiles are -18 % and +18 %. A
  // performance row, a refused row and a calibration-status row are not memory predictions.
  std::string rows;
  for (int k = -10; k <= 10; ++k) rows += memory_row(2.0 * k) + ",";
  rows += R"({"quantity": "tokens_per_s_per_gpu", "status": "predicted", "error_pct": 90},)";
  rows += memory_row(50, "refused");
  const std::string file = write_rows(rows);
  const auto band = memory_error_band(file);
  REQUIRE(band);
  CHECK(band->rows == 21);
  CHECK(band->lo == Approx(-0.18));
  CHECK(band->hi == Approx(0.18));
  // 110 GiB needed of 100: over by 10 %, and 110 / 1.18 = 93 fits: the note says so.
  const std::string note = memory_margin_note(*band, 110, 100);
  CHECK(note.find("over by 10.0 %") != std::string::npos);
  CHECK(note.find("21 published runs") != std::string::npos);
  CHECK(note.find("-18 to +18 %") != std::string::npos);
  // 120 of 100: 120 / 1.18 = 101.7 does not fit even then: no note; nor when it fits.
  CHECK(memory_margin_note(*band, 120, 100).empty());
  CHECK(memory_margin_note(*band, 90, 100).empty());
  // Fewer than 5 memory rows: no band.
  CHECK_FALSE(memory_error_band(write_rows(memory_row(1) + "," + memory_row(2))));
  std::remove(file.c_str());
  CHECK_THROWS_AS(memory_error_band("/nonexistent/validation.json"), ConfigError);
}
