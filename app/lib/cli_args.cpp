// cli_args.cpp — see cli_args.hpp.
#include "cli_args.hpp"

#include <cmath>

#include "trnsim/error.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace trnsim {

Args::Args(std::string command, std::string synopsis, std::string description)
    : command_(std::move(command)), synopsis_(std::move(synopsis)), description_(std::move(description)) {}

Args& Args::flag(const std::string& name, const std::string& help) {
  specs_.push_back({name, {false, "", help}});
  return *this;
}

Args& Args::option(const std::string& name, const std::string& def, const std::string& help) {
  specs_.push_back({name, {true, def, help}});
  if (!def.empty()) values_[name] = def;
  return *this;
}

std::string Args::help() const {
  std::string o = fmt::format("usage: trnsim {} {}\n\n{}\n\noptions:\n", command_, synopsis_, description_);
  for (const auto& [name, s] : specs_)
    o += fmt::format("  --{:<22} {}{}\n", name + (s.takes_value ? " VALUE" : ""), s.help,
                     s.def.empty() ? "" : " (default: " + s.def + ")");
  o += fmt::format("  --{:<22} {}\n", "help", "show this help");
  return o;
}

bool Args::parse(const std::vector<std::string>& argv) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(help().c_str(), stdout);
      return false;
    }
    if (a.rfind("--", 0) != 0) {
      positional_.push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    auto eq = name.find('=');
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const Spec* spec = nullptr;
    for (const auto& [n, s] : specs_)
      if (n == name) spec = &s;
    if (!spec) throw UsageError(fmt::format("trnsim {}: unknown option --{}; see `trnsim {} --help`", command_, name, command_));
    if (spec->takes_value) {
      if (eq == std::string::npos) {
        if (i + 1 >= argv.size()) throw UsageError(fmt::format("trnsim {}: --{} needs a value", command_, name));
        value = argv[++i];
      }
      values_[name] = value;
    } else {
      values_[name] = "1";
    }
  }
  return true;
}

bool Args::has(const std::string& name) const { return values_.count(name) > 0; }
std::string Args::get(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? "" : it->second;
}
namespace {
// Parses an option's whole value with `parse` (std::stod / std::stoll) and checks it is finite
// and in [lo, hi]; `kind` names the type in the one-line error.
template <typename T, typename Parse>
T parse_in_range(const std::string& command, const std::string& name, const std::string& v, T lo, T hi,
                 const char* kind, Parse parse) {
  T x{};
  try {
    size_t used = 0;
    x = parse(v, &used);
    if (used != v.size()) throw std::invalid_argument(v);
  } catch (const std::exception&) {
    throw UsageError(fmt::format("trnsim {}: --{} expects {} in [{}, {}], got \"{}\"", command, name, kind, lo, hi, v));
  }
  if (!std::isfinite(static_cast<double>(x)) || x < lo || x > hi)
    throw UsageError(fmt::format("trnsim {}: --{} {} is out of range; allowed: {} in [{}, {}]", command, name, v, kind, lo, hi));
  return x;
}
int64_t parse_integer(const std::string& command, const std::string& name, const std::string& v, int64_t lo, int64_t hi) {
  return parse_in_range<int64_t>(command, name, v, lo, hi, "an integer",
                                 [](const std::string& s, size_t* used) { return static_cast<int64_t>(std::stoll(s, used)); });
}
}  // namespace

double Args::number(const std::string& name, double lo, double hi) const {
  return parse_in_range<double>(command_, name, get(name), lo, hi, "a number",
                                [](const std::string& s, size_t* used) { return std::stod(s, used); });
}

int64_t Args::integer(const std::string& name, int64_t lo, int64_t hi) const {
  return parse_integer(command_, name, get(name), lo, hi);
}

std::vector<int64_t> Args::integers(const std::string& name, int64_t lo, int64_t hi) const {
  std::vector<int64_t> out;
  const std::string v = get(name);
  size_t start = 0;
  while (start <= v.size()) {
    const size_t comma = v.find(',', start);
    const std::string item = v.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    out.push_back(parse_integer(command_, name, item, lo, hi));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace trnsim
