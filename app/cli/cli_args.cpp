// cli_args.cpp — see cli_args.hpp.
#include "cli_args.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>

#include "trnsim/error.hpp"
#include "trnsim/json_reader.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <fstream>
#include <sstream>
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

// The command line is parsed by CLI11: long options as `--name VALUE` or `--name=VALUE`,
// flags, positionals in any order, `--` ending options, a value given twice an error. Values are
// kept as text; number() / integer() range-check them when the command reads them, so every
// message names the option, the value and the allowed range.
bool Args::parse(const std::vector<std::string>& argv) {
  CLI::App app{description_, "trnsim " + command_};
  app.set_help_flag();  // --help prints our own text (with defaults), below
  bool want_help = false;
  app.add_flag("-h,--help", want_help);
  std::map<std::string, std::string> given;
  std::map<std::string, CLI::Option*> opts;
  for (const auto& [name, s] : specs_) {
    if (s.takes_value)
      opts[name] = app.add_option("--" + name, given[name])->multi_option_policy(CLI::MultiOptionPolicy::Throw);
    else
      opts[name] = app.add_flag("--" + name)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  }
  app.add_option("args", positional_);
  app.allow_extras();
  // A flag takes no value: CLI11 would read `--quiet=false` as the flag given.
  for (const std::string& arg : argv) {
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0 || arg.find('=') == std::string::npos) continue;
    const std::string name = arg.substr(2, arg.find('=') - 2);
    for (const auto& [n, s] : specs_)
      if (n == name && !s.takes_value)
        throw UsageError(fmt::format("trnsim {}: --{} takes no value (got \"{}\"); give --{} alone, or leave it out; see `trnsim {} --help`",
                                     command_, name, arg.substr(arg.find('=') + 1), name, command_));
  }
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 consumes from the back
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (want_help || std::find(argv.begin(), argv.end(), "--help") != argv.end()) {
      std::fputs(help().c_str(), stdout);
      return false;
    }
    std::string msg = e.what();
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    // CLI11's wording for the two common cases, made plain.
    const std::string option = msg.substr(0, msg.find(':'));
    if (msg.find("required") != std::string::npos && msg.find("missing") != std::string::npos)
      msg = option + " needs a value";
    else if (msg.find("At Most 1") != std::string::npos)
      msg = option + " is given more than once; give it once";
    throw UsageError(fmt::format("trnsim {}: {}; see `trnsim {} --help`", command_, msg, command_));
  }
  if (want_help) {
    std::fputs(help().c_str(), stdout);
    return false;
  }
  bool options_ended = false;
  for (const std::string& extra : app.remaining()) {
    if (extra == "--" && !options_ended) {
      options_ended = true;
      continue;
    }
    if (!options_ended && extra.rfind("-", 0) == 0 && extra.size() > 1) {
      std::string name = extra.substr(extra.rfind("--", 0) == 0 ? 2 : 1);
      name = name.substr(0, name.find('='));
      throw UsageError(fmt::format("trnsim {}: unknown option {}{}; see `trnsim {} --help`", command_,
                                   extra.rfind("--", 0) == 0 ? "--" : "-", name, command_));
    }
    positional_.push_back(extra);
  }
  for (const auto& [name, opt] : opts)
    if (opt->count() > 0) {
      // An option given is given a value: `--stack ""` is a slip, not "no stack" or "every dataset".
      if (specs_of(name).takes_value && given[name].empty())
        throw UsageError(fmt::format("trnsim {}: --{} is given an empty value; give a value or leave the option out "
                                     "(see `trnsim {} --help`)", command_, name, command_));
      if (specs_of(name).takes_value && !valid_utf8(given[name]))
        throw UsageError(fmt::format("trnsim {}: --{}: the value is not valid UTF-8; write it as UTF-8 text", command_, name));
      values_[name] = specs_of(name).takes_value ? given[name] : "1";
    }
  return true;
}

const Args::Spec& Args::specs_of(const std::string& name) const {
  for (const auto& [n, s] : specs_)
    if (n == name) return s;
  throw std::logic_error("trnsim: option --" + name + " was never declared");
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

std::vector<std::string> Args::words(const std::string& name) const {
  std::vector<std::string> out;
  std::stringstream ss(get(name));
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

std::string Args::choice(const std::string& name, const std::vector<std::string>& allowed) const {
  const std::string v = get(name);
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
  throw UsageError(fmt::format("trnsim {}: --{} \"{}\" is not allowed; choose one of: {}", command_, name, v,
                               fmt::join(allowed, ", ")));
}

}  // namespace trnsim
