// json_edits.cpp — dotted-path what-if edits of a JSON document (see json_edits.hpp).
#include "json_edits.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

namespace trnsim {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);) out.push_back(item);
  return out;
}

}  // namespace

void apply_json_edits(nlohmann::json& doc, const std::string& spec, const std::string& option) {
  const bool hw = option.find("hw") != std::string::npos;  // --hw-set, --vs-hw
  const char* example = hw ? "hbm.bandwidth_GBps_per_chip=4000;tensor.clock_GHz=3" : "parallel.tp=4;batch.micro_batch=2";
  const char* one = hw ? "hbm.bandwidth_GBps_per_chip=4000" : "nodes=64";
  for (const std::string& raw : split(spec, ';')) {
    const std::string item = trim(raw);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos)
      throw UsageError(fmt::format("{} \"{}\": expected path=value, e.g. {}", option, item, example));
    const std::string path = trim(item.substr(0, eq)), text = trim(item.substr(eq + 1));
    const std::vector<std::string> keys = split(path, '.');
    if (path.empty() || path.back() == '.' || text.empty())
      throw UsageError(fmt::format("{} \"{}\": the path and the value must both be given (e.g. {})", option, item, one));
    nlohmann::json* at = &doc;
    for (size_t k = 0; k < keys.size(); ++k) {
      if (keys[k].empty())
        throw UsageError(fmt::format("{} \"{}\": an empty name in the path \"{}\"", option, item, path));
      if (at->is_null()) *at = nlohmann::json::object();  // a section the document did not have yet
      if (!at->is_object())
        throw UsageError(fmt::format("{} \"{}\": \"{}\" is a value, not a section, in this {}", option, item,
                                     fmt::join(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(k), "."),
                                     hw ? "hw file" : "workload"));
      at = &(*at)[keys[k]];
    }
    const auto value = parse_json_value(text, fmt::format("{} {}", option, path));
    *at = value ? *value : nlohmann::json(text);
  }
}

void apply_json_edits(nlohmann::json& doc, const std::vector<JsonEdits>& edits) {
  for (const JsonEdits& e : edits)
    if (!e.spec.empty()) apply_json_edits(doc, e.spec, e.option);
}

bool any_edits(const std::vector<JsonEdits>& edits) {
  for (const JsonEdits& e : edits)
    if (!e.spec.empty()) return true;
  return false;
}

std::string edits_suffix(const std::vector<JsonEdits>& edits) {
  std::vector<std::string> parts;
  for (const JsonEdits& e : edits)
    if (!e.spec.empty()) {
      // Messages name the file and the JSON path that failed; a long list of edits is not echoed whole.
      const size_t n = static_cast<size_t>(std::count(e.spec.begin(), e.spec.end(), ';')) + 1;
      parts.push_back(e.spec.size() <= 200 ? fmt::format("{} {}", e.option, e.spec) : fmt::format("{}'s {} edits", e.option, n));
    }
  return parts.empty() ? std::string() : fmt::format(" (with {})", fmt::join(parts, " "));
}

}  // namespace trnsim
