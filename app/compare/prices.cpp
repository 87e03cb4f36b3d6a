// prices.cpp — strict reading of prices/*.json (see prices.hpp).
#include "prices.hpp"

#include <fmt/format.h>

#include <regex>

#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {

std::optional<double> PriceFile::price(const std::string& instance, const std::string& plan) const {
  auto it = instances.find(instance);
  if (it == instances.end())
    throw ConfigError(fmt::format("{}: no prices for \"{}\"; add an entry under \"instances\"", file, instance));
  auto p = it->second.usd_per_node_hour.find(plan);
  return p == it->second.usd_per_node_hour.end() ? std::nullopt : p->second;
}

PriceFile load_price_file(const std::string& file) {
  const nlohmann::json j = load_json_file(file);
  JsonReader r(j, file);
  r.ignore("$schema");
  r.ignore("notes");
  PriceFile p;
  p.file = file;
  p.date = r.string("date");
  if (!std::regex_match(p.date, std::regex(R"(\d{4}-\d{2}-\d{2})")))
    r.fail("date", fmt::format("\"{}\" is not a date; use YYYY-MM-DD (when the prices were read)", p.date));
  p.currency = r.choice("currency", {"USD"});
  p.source = r.string("source");
  {
    const auto& plans = j.at("plans");
    r.ignore("plans");
    if (!plans.is_array() || plans.empty())
      r.fail("plans", "expected a non-empty array of plan names, e.g. [\"on_demand\", \"reserved_3y\"]");
    for (const auto& v : plans) {
      if (!v.is_string() || v.get<std::string>().empty()) r.fail("plans", "plan names must be non-empty strings");
      p.plans.push_back(v.get<std::string>());
    }
  }
  if (!j.contains("instances") || !j["instances"].is_object()) r.fail("instances", "expected an object of instance names");
  r.ignore("instances");
  for (auto it = j["instances"].begin(); it != j["instances"].end(); ++it) {
    JsonReader e(it.value(), file, "/instances/" + it.key());
    PriceFile::Entry entry;
    for (const auto& plan : p.plans) {
      if (!it.value().contains(plan)) continue;
      if (it.value()[plan].is_null()) {
        e.ignore(plan);
        entry.usd_per_node_hour[plan] = std::nullopt;
      } else {
        entry.usd_per_node_hour[plan] = e.number(plan, 1e-6, 1e5);  // free is not a price: it shows as 100 % savings
      }
    }
    entry.source = e.string("source");
    e.ignore("notes");
    e.finish();
    p.instances[it.key()] = entry;
  }
  r.finish();
  return p;
}

}  // namespace trnsim
