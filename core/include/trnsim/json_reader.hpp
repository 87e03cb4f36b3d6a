// json_reader.hpp — strict, path-aware reading of configuration JSON.
// Why: every config file (hw, model, workload) must reject unknown keys, wrong types
// and out-of-range values with one line naming the file, the JSON path and what is
// allowed. Readers consume keys; finish() reports any key nobody asked for.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trnsim/error.hpp"

namespace trnsim {

nlohmann::json load_json_file(const std::string& file);  // throws ConfigError (missing, malformed)
// The same checks on JSON text (malformed, duplicate keys, out-of-range numbers, not an
// object); `file` names the source in messages (a path, or e.g. "<dict>" from Python).
nlohmann::json parse_json_text(const std::string& text, const std::string& file);
// Deepest nesting a config may have: real files nest 4-5 levels; the cap keeps a hostile file from
// exhausting the stack or memory. `what` names the source in the one-line error.
constexpr int kMaxJsonDepth = 256;
// One JSON value (of a --set edit, say) with the same depth cap; nullopt where it is not JSON.
std::optional<nlohmann::json> parse_json_value(const std::string& text, const std::string& what);
// Whether `s` names a data file (hw, model, study output) rather than a path: letters, digits, '.',
// '_' and '-', not starting with '.'. Names are resolved inside the data directory; "../hw/x" or an
// absolute path must not reach the file system.
bool is_plain_name(const std::string& s);
// Whether `s` is well-formed UTF-8 (JSON text must be; a --set value or a path need not be).
bool valid_utf8(const std::string& s);

class JsonReader {
 public:
  JsonReader(const nlohmann::json& obj, std::string file, std::string path = "");
  ~JsonReader() = default;

  bool has(const std::string& key) const;
  double number(const std::string& key, double min, double max);
  double number_or(const std::string& key, double fallback, double min, double max);
  int64_t integer(const std::string& key, int64_t min, int64_t max);
  int64_t integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  bool boolean(const std::string& key);
  bool boolean_or(const std::string& key, bool fallback);
  std::string string(const std::string& key);
  std::string string_or(const std::string& key, const std::string& fallback);
  std::string choice(const std::string& key, const std::vector<std::string>& allowed);
  std::string choice_or(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);
  JsonReader child(const std::string& key);
  std::vector<JsonReader> children(const std::string& key);  // array of objects
  std::vector<int64_t> integers(const std::string& key, int64_t min, int64_t max);  // non-empty array of integers
  std::vector<std::string> strings(const std::string& key);  // non-empty array of non-empty strings
  void ignore(const std::string& key);  // documentation keys such as "source", "notes"
  // Throws on any key that was never read.
  void finish() const;

  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  const std::string& file() const { return file_; }
  std::string path_of(const std::string& key) const { return path_ + "/" + key; }

 private:
  const nlohmann::json& at(const std::string& key, const char* type_name);
  const nlohmann::json& obj_;
  std::string file_;
  std::string path_;
  std::set<std::string> used_;
  // Every key the reader asked about, present or not: the fields an unknown one is listed against.
  mutable std::set<std::string> asked_;
};

}  // namespace trnsim
