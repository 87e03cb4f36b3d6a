// prices.hpp — a dated, sourced price file (prices/*.json), separate from the hw files so that a
// user can drop in their own quote without touching the hardware description.
// Format: {"date": "YYYY-MM-DD", "currency": "USD", "source": "...", "plans": [names],
//          "instances": {"<hw name>": {"<plan>": USD per node-hour or null, ..., "source": "..."}}}
// null (or a missing plan) means "not offered or not known": the table shows a dash, never a guess.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trnsim {

struct PriceFile {
  std::string file, date, currency, source;
  std::vector<std::string> plans;  // column order, e.g. on_demand, capacity_block, reserved_3y
  struct Entry {
    std::map<std::string, std::optional<double>> usd_per_node_hour;
    std::string source;
  };
  std::map<std::string, Entry> instances;
  // Price of `plan` for hw `instance`: nullopt when unknown; a ConfigError when the instance is absent.
  std::optional<double> price(const std::string& instance, const std::string& plan) const;
};

PriceFile load_price_file(const std::string& file);

}  // namespace trnsim
