// cmd_fields.cpp — `trnsim fields`: every workload setting as the field table declares it (path,
// type, unit, default, range or choices, whether a stack profile may set it, description), as
// text, JSON, or the JSON Schema parts scripts/schemas_from_fields.py writes into schema/.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iostream>

#include "cli_args.hpp"
#include "commands.hpp"
#include "trnsim/error.hpp"
#include "workload_fields.hpp"

namespace trnsim {

namespace {

std::string number_text(double v) { return v == static_cast<double>(static_cast<int64_t>(v)) ? fmt::format("{}", static_cast<int64_t>(v)) : fmt::format("{:g}", v); }

std::string field_text(const WorkloadField& f) {
  std::string kind = to_string(f.type);
  if (!f.unit.empty()) kind += fmt::format(" ({})", f.unit);
  if (f.min && f.max) kind += fmt::format(", {}..{}", number_text(*f.min), number_text(*f.max));
  if (!f.choices.empty()) kind += fmt::format(": {}", fmt::join(f.choices, " | "));
  std::string def;
  if (f.required) def = "required";
  else if (!f.default_text.empty()) def = "default: " + f.default_text;
  else if (!f.fallback.is_null())
    def = "default: " + (f.fallback.is_string() ? (f.fallback.get<std::string>().empty() ? "none" : f.fallback.get<std::string>())
                                                  : f.fallback.dump());
  if (f.stack_settable) def += "; a stack profile may set it";
  return fmt::format("{}\n  {}; {}\n  {}\n", f.path, kind, def, f.description);
}

}  // namespace

int cmd_fields(const ArgList& argv) {
  Args a("fields", "[PATH-PREFIX] [options]",
         "Every workload setting: its JSON path, type and unit, default, range or choices, whether a stack profile\n"
         "may set it, and what it means. A prefix (e.g. parallel/ or fp8) lists the settings whose path starts\n"
         "with it. models/lib/README.md says how to add one.");
  a.option("format", "text", "output format: text | json (the table) | schema (the JSON Schema parts it implies)");
  if (!a.parse(argv)) return 0;
  const std::string format = a.choice("format", {"text", "json", "schema"});
  if (a.positional().size() > 1) throw UsageError("trnsim fields: at most one path prefix; see --help");
  const std::string prefix = a.positional().empty() ? "" : a.positional()[0];
  if (format == "schema") {
    if (!prefix.empty()) throw UsageError("trnsim fields: --format schema prints the whole schema; drop the prefix");
    nlohmann::ordered_json out = workload_schema_required();
    out["properties"] = workload_schema_properties(false);
    out["stack_defaults"] = workload_schema_properties(true);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  nlohmann::json rows = nlohmann::json::array();
  std::string text;
  for (const auto& f : workload_fields())
    if (f.path.rfind(prefix, 0) == 0) text += field_text(f);
  for (const auto& row : workload_fields_json())
    if (row["path"].get<std::string>().rfind(prefix, 0) == 0) rows.push_back(row);
  if (rows.empty())
    throw UsageError(fmt::format("trnsim fields: no setting's path starts with \"{}\"; run `trnsim fields` for the list", prefix));
  if (format == "json") std::cout << rows.dump(2) << "\n";
  else std::cout << text;
  return 0;
}

}  // namespace trnsim
