// json_reader.cpp — implementation of strict config reading (see json_reader.hpp).
#include "trnsim/json_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
#include <vector>

namespace trnsim {

std::string config_message(const std::string& file, const std::string& path, const std::string& problem) {
  return fmt::format("{}: {}: {}", file, path.empty() ? "/" : path, problem);
}

// Config files are small; anything larger is not one (and /dev/zero must not fill memory).
constexpr std::uintmax_t kMaxConfigBytes = 16u << 20;

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// For a missing file: the closest .json names in its folder (a typo of a model or instance name:
// names that begin with what was given, else those at the least edit distance, the longer shared
// prefix first), or nothing when no name is close.
std::string did_you_mean(const std::string& file) {
  const std::filesystem::path p(file);
  if (p.extension() != ".json") return "";
  const std::string want = p.stem().string();
  struct Near {
    size_t distance, shared;
    std::string name;
  };
  std::vector<Near> near;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(p.has_parent_path() ? p.parent_path() : ".", ec)) {
    if (e.path().extension() != ".json") continue;
    const std::string name = e.path().stem().string();
    size_t shared = 0;
    while (shared < std::min(name.size(), want.size()) && name[shared] == want[shared]) ++shared;
    const size_t d = shared == want.size() ? 0 : edit_distance(want, name);  // a prefix of the name: p5en for p5en.48xlarge
    if (d <= std::max<size_t>(2, want.size() / 3)) near.push_back({d, shared, name});
  }
  if (near.empty()) return "";
  std::sort(near.begin(), near.end(), [](const Near& a, const Near& b) {
    return std::tie(a.distance, b.shared, a.name) < std::tie(b.distance, a.shared, b.name);
  });
  std::vector<std::string> names;
  for (const auto& n : near)
    if (n.distance == near.front().distance && names.size() < 3) names.push_back(n.name);
  return fmt::format("; did you mean {}?", fmt::join(names, " or "));
}
}  // namespace

nlohmann::json load_json_file(const std::string& file) {
  std::error_code ec;
  const auto st = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(st))
    throw FileError(config_message(file, "", fmt::format("cannot open file: no such file{} (`trnsim list` shows what there is)", did_you_mean(file))));
  if (!std::filesystem::is_regular_file(st))
    throw FileError(config_message(file, "", "not a regular file (a directory, FIFO or device); give a .json file"));
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throw FileError(config_message(file, "", "cannot read the file size; check permissions"));
  if (size > kMaxConfigBytes)
    throw ConfigError(config_message(file, "", fmt::format("file is {} bytes; a config file is at most {} bytes", size, kMaxConfigBytes)));
  std::ifstream in(file);
  if (!in) throw FileError(config_message(file, "", "cannot open file; check the path (see `trnsim list`)"));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_text(ss.str(), file);
}

nlohmann::json parse_json_text(const std::string& text, const std::string& file) {
  // Duplicate keys: nlohmann keeps the last silently; a config with two "nodes" is an error.
  struct Frame {
    bool object;
    std::string path;
    std::vector<std::string> keys;
    size_t index = 0;
  };
  std::vector<Frame> stack;
  std::string pending_key;  // key of the value about to start, in the innermost object
  std::string duplicate;
  auto child_path = [&]() {
    if (stack.empty()) return std::string();
    Frame& f = stack.back();
    return f.path + "/" + (f.object ? pending_key : std::to_string(f.index++));
  };
  auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (ev) {
      case E::object_start:
      case E::array_start: {
        if (depth >= kMaxJsonDepth)
          throw ConfigError(config_message(file, stack.empty() ? "" : stack.back().path,
                                           fmt::format("nested deeper than {} levels; a config file is a few levels deep", kMaxJsonDepth)));
        std::string path = child_path();
        stack.push_back({ev == E::object_start, path, {}, 0});
        break;
      }
      case E::object_end:
      case E::array_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case E::key: {
        pending_key = parsed.get<std::string>();
        auto& keys = stack.back().keys;
        if (duplicate.empty() && std::find(keys.begin(), keys.end(), pending_key) != keys.end())
          duplicate = stack.back().path + "/" + pending_key;
        keys.push_back(pending_key);
        break;
      }
      case E::value:
        if (!stack.empty() && !stack.back().object) ++stack.back().index;
        break;
    }
    return true;
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text, cb);
  } catch (const nlohmann::json::parse_error& e) {
    std::string what = e.what();
    auto pos = what.find("parse error");
    throw ConfigError(config_message(file, "", "malformed JSON (" + (pos == std::string::npos ? what : what.substr(pos)) +
                                                   "); fix the syntax"));
  } catch (const nlohmann::json::exception& e) {  // e.g. a number beyond the double range (1e400)
    std::string what = e.what();
    auto pos = what.find("] ");
    throw ConfigError(config_message(file, "", "unreadable JSON value (" + (pos == std::string::npos ? what : what.substr(pos + 2)) +
                                                   "); write numbers within the double range"));
  }
  if (!duplicate.empty())
    throw ConfigError(config_message(file, duplicate, "duplicate key; keep one of them"));
  if (!j.is_object()) throw ConfigError(config_message(file, "", "top level must be a JSON object {...}"));
  return j;
}

std::optional<nlohmann::json> parse_json_value(const std::string& text, const std::string& what) {
  auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json&) {
    using E = nlohmann::json::parse_event_t;
    if ((ev == E::object_start || ev == E::array_start) && depth >= kMaxJsonDepth)
      throw UsageError(fmt::format("{}: nested deeper than {} levels; give a flat value", what, kMaxJsonDepth));
    return true;
  };
  nlohmann::json v = nlohmann::json::parse(text, cb, /*allow_exceptions=*/false);
  if (v.is_discarded()) return std::nullopt;
  return v;
}

bool is_plain_name(const std::string& s) {
  return !s.empty() && s[0] != '.' &&
         s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == std::string::npos;
}

bool valid_utf8(const std::string& s) {
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const auto c = static_cast<unsigned char>(s[i]);
    const size_t len = c < 0x80 ? 1 : (c >= 0xC2 && c <= 0xDF) ? 2 : (c >= 0xE0 && c <= 0xEF) ? 3 : (c >= 0xF0 && c <= 0xF4) ? 4 : 0;
    if (len == 0 || i + len > n) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    const auto c1 = len > 1 ? static_cast<unsigned char>(s[i + 1]) : 0;
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) ||  // overlong, surrogates
        (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))     // overlong, beyond U+10FFFF
      return false;
    i += len;
  }
  return true;
}

JsonReader::JsonReader(const nlohmann::json& obj, std::string file, std::string path)
    : obj_(obj), file_(std::move(file)), path_(std::move(path)) {
  if (!obj_.is_object()) throw ConfigError(config_message(file_, path_, "must be a JSON object {...}"));
}

void JsonReader::fail(const std::string& key, const std::string& problem) const {
  throw ConfigError(config_message(file_, key.empty() ? path_ : path_of(key), problem));
}

bool JsonReader::has(const std::string& key) const {
  asked_.insert(key);
  return obj_.contains(key);
}

const nlohmann::json& JsonReader::at(const std::string& key, const char* type_name) {
  if (!obj_.contains(key)) fail(key, fmt::format("missing required field; add \"{}\": <{}>", key, type_name));
  used_.insert(key);
  return obj_.at(key);
}

static std::string range_text(double min, double max) {
  return fmt::format("a number in [{}, {}]", min, max);
}

double JsonReader::number(const std::string& key, double min, double max) {
  const auto& v = at(key, "number");
  if (!v.is_number()) fail(key, fmt::format("expected {}, got {}", range_text(min, max), v.dump()));
  double d = v.get<double>();
  if (!std::isfinite(d) || d < min || d > max) fail(key, fmt::format("value {} out of range; allowed: {}", v.dump(), range_text(min, max)));
  return d;
}

double JsonReader::number_or(const std::string& key, double fallback, double min, double max) {
  return has(key) ? number(key, min, max) : fallback;
}

int64_t JsonReader::integer(const std::string& key, int64_t min, int64_t max) {
  const auto& v = at(key, "integer");
  if (!v.is_number_integer()) fail(key, fmt::format("expected an integer in [{}, {}], got {}", min, max, v.dump()));
  // Beyond int64 (>= 2^63) is out of range too, not a wrapped negative.
  const bool beyond = v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX);
  const int64_t i = beyond ? 0 : v.get<int64_t>();
  if (beyond || i < min || i > max)
    fail(key, fmt::format("value {} out of range; allowed: an integer in [{}, {}]", v.dump(), min, max));
  return i;
}

int64_t JsonReader::integer_or(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  return has(key) ? integer(key, min, max) : fallback;
}

bool JsonReader::boolean(const std::string& key) {
  const auto& v = at(key, "true|false");
  if (!v.is_boolean()) fail(key, fmt::format("expected true or false, got {}", v.dump()));
  return v.get<bool>();
}

bool JsonReader::boolean_or(const std::string& key, bool fallback) { return has(key) ? boolean(key) : fallback; }

std::string JsonReader::string(const std::string& key) {
  const auto& v = at(key, "string");
  if (!v.is_string()) fail(key, fmt::format("expected a string, got {}", v.dump()));
  return v.get<std::string>();
}

std::string JsonReader::string_or(const std::string& key, const std::string& fallback) {
  return has(key) ? string(key) : fallback;
}

std::string JsonReader::choice(const std::string& key, const std::vector<std::string>& allowed) {
  std::string s = string(key);
  for (const auto& a : allowed)
    if (a == s) return s;
  fail(key, fmt::format("unknown value \"{}\"; allowed: {}", s, fmt::join(allowed, ", ")));
}

std::string JsonReader::choice_or(const std::string& key, const std::string& fallback,
                                  const std::vector<std::string>& allowed) {
  return has(key) ? choice(key, allowed) : fallback;
}

JsonReader JsonReader::child(const std::string& key) {
  const auto& v = at(key, "object");
  if (!v.is_object()) fail(key, fmt::format("expected an object {{...}}, got {}", v.dump()));
  return JsonReader(v, file_, path_of(key));
}

std::vector<JsonReader> JsonReader::children(const std::string& key) {
  const auto& v = at(key, "array");
  if (!v.is_array()) fail(key, "expected an array [...]");
  std::vector<JsonReader> out;
  for (size_t i = 0; i < v.size(); ++i) out.emplace_back(v[i], file_, path_of(key) + "/" + std::to_string(i));
  return out;
}

std::vector<int64_t> JsonReader::integers(const std::string& key, int64_t min, int64_t max) {
  const auto& v = at(key, "array of integers");
  if (!v.is_array() || v.empty()) fail(key, fmt::format("expected a non-empty array of integers in [{}, {}]", min, max));
  std::vector<int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer() || e.get<int64_t>() < min || e.get<int64_t>() > max)
      fail(key, fmt::format("element {} out of range; allowed: integers in [{}, {}]", e.dump(), min, max));
    out.push_back(e.get<int64_t>());
  }
  return out;
}

std::vector<std::string> JsonReader::strings(const std::string& key) {
  const auto& v = at(key, "array of strings");
  if (!v.is_array() || v.empty()) fail(key, "expected a non-empty array of non-empty strings");
  std::vector<std::string> out;
  for (const auto& e : v) {
    if (!e.is_string() || e.get<std::string>().empty()) fail(key, fmt::format("element {} is not a non-empty string", e.dump()));
    out.push_back(e.get<std::string>());
  }
  return out;
}

void JsonReader::ignore(const std::string& key) {
  asked_.insert(key);
  if (obj_.contains(key)) used_.insert(key);
}

void JsonReader::finish() const {
  std::set<std::string> all(asked_);
  all.insert(used_.begin(), used_.end());
  std::vector<std::string> known(all.begin(), all.end());
  for (auto it = obj_.begin(); it != obj_.end(); ++it) {
    if (!used_.count(it.key()))
      fail(it.key(), fmt::format("unknown field \"{}\"; remove it or check the spelling (known here: {})", it.key(),
                                 fmt::join(known, ", ")));
  }
}

}  // namespace trnsim
