// workload_fields.hpp — every workload setting declared once: its JSON path, type, unit, default,
// range or choices, whether a stack profile may set it, whether the report shows it, and one
// sentence of description, bound to its member of Workload.
// Why: the reader, the writer (workload_to_json), the stack profiles' settable list, the report's
// workload section, `trnsim fields` and the JSON Schemas all follow from this one table, so a new
// setting is one row plus the code that uses it (models/lib/README.md says how).
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "trnsim/json_reader.hpp"
#include "workload.hpp"

namespace trnsim {

enum class FieldType { String, Integer, Number, Boolean, Choice, Integers, Strings };
const char* to_string(FieldType t);

// One setting. Rows are in the order a workload file lists them (workload_to_json writes them so).
struct WorkloadField {
  std::string path;         // "parallel/tp": section "parallel", key "tp"; "precision": top level
  FieldType type = FieldType::String;
  std::string unit;         // integers and numbers (and integer lists): "ranks", "tokens", ...
  nlohmann::json fallback;  // the value when absent; null: required (or a default that depends on
                            // other fields, which `default_text` then says)
  bool required = false;    // required unless a stack profile supplies it (stack_settable)
  std::optional<double> min, max;        // integers and numbers (lists: each element)
  std::vector<std::string> choices;      // choices, and the elements of a list of strings
  bool stack_settable = false;
  std::string default_text;  // a default that is not one value ("bf16 for bf16-sr, else fp32")
  std::string description;   // one or two sentences, as `trnsim fields` and the schema print it
  // The report shows the setting under `report_key` (empty: not shown) when `report_when` holds.
  std::string report_key;
  // Binding. `get`: the value as the file writes it; `set`: from a value the reader checked.
  std::function<nlohmann::json(const Workload&)> get;
  std::function<void(Workload&, const nlohmann::json&)> set;
  // The setting's members of `from` into `to` (the search puts its layouts under a stack profile so).
  std::function<void(Workload& to, const Workload& from)> copy;
  // Reading with a rule of its own (a default that depends on another field, several keys read as
  // one setting); empty: the generic strict read of `type` with `fallback`, `min`, `max`, `choices`.
  std::function<void(const WorkloadField&, JsonReader&, Workload&)> read;
  // When workload_to_json writes it (`stacked`: the workload names a stack profile).
  std::function<bool(const Workload&, bool stacked)> write_when;
  std::function<bool(const Workload&)> report_when;

  std::string section() const;  // "" for a top-level field
  std::string key() const;
};

// A JSON object of the workload file: the sub-reader its fields are read with.
struct WorkloadSection {
  std::string name;
  bool required = false;  // in the file (unless a stack profile supplies every required field in it)
  std::string description;
};

const std::vector<WorkloadField>& workload_fields();
const std::vector<WorkloadSection>& workload_sections();
const WorkloadField& workload_field(const std::string& path);  // throws std::out_of_range
const WorkloadSection& workload_section(const std::string& name);  // throws std::out_of_range
// The row the report shows under `report_key`, and whether it shows it for `w` (the renderers ask
// the row, not a JSON copy of the workload).
const WorkloadField& workload_report_field(const std::string& report_key);  // throws std::out_of_range
bool workload_reports(const Workload& w, const std::string& report_key);

// The table as JSON (`trnsim fields --format json`), and the JSON Schema parts it implies: the
// workload schema's properties (or, settable_only, a stack profile's `defaults`), and its
// "required" and "allOf" (a field a profile may supply is required only without a "stack").
// scripts/schemas_from_fields.py writes them into schema/ and checks them there (a ctest).
nlohmann::json workload_fields_json();
nlohmann::ordered_json workload_schema_properties(bool settable_only);
nlohmann::ordered_json workload_schema_required();

}  // namespace trnsim
