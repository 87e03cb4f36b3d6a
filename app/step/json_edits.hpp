// json_edits.hpp — what-if edits of a JSON document without writing a file: `trnsim run W --set
// "parallel.tp=4;batch.micro_batch=2"` edits the workload, `--hw-set "hbm.bandwidth_GBps_per_chip=4000"`
// its hw file (run and search). Each `path=value` sets one field (a dotted path; objects on the way
// are created), the value read as JSON where it parses (4, true, "x", [1, 2]) and as a string
// otherwise (bf16, full); the edited document is then read as strictly as a file, so an unknown
// field or an out-of-range figure is the reader's one-line error.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace trnsim {

// Applies `spec` ("a.b=v;c=w") to `doc`; a malformed item (no '=', an empty path or segment, a path
// through a value that is not an object) is a UsageError naming `option` ("--set" for a workload,
// "--hw-set" for a hw file) and the item.
void apply_json_edits(nlohmann::json& doc, const std::string& spec, const std::string& option);

// One option's edits as the command line gave them (`run --set A --vs B` edits a workload twice).
struct JsonEdits {
  std::string option, spec;
};
// Applies each list in order (later edits win); an empty spec is skipped.
void apply_json_edits(nlohmann::json& doc, const std::vector<JsonEdits>& edits);
// " (with --set A --vs B)" for error messages and notes; "" when every spec is empty.
std::string edits_suffix(const std::vector<JsonEdits>& edits);
// True when some list is not empty.
bool any_edits(const std::vector<JsonEdits>& edits);

}  // namespace trnsim
