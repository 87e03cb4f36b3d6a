// csv_table.cpp — see csv_table.hpp.
#include "trnsim/csv_table.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "trnsim/error.hpp"

namespace trnsim {

CsvTable CsvTable::load(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(fmt::format("{}: cannot open the CSV file; check the path (the validation corpus ships in data/validation/ of the data directory; --data DIR reads another copy)", file));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> rec;
  std::string cell;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
      continue;
    }
    if (c == '"') quoted = true, any = true;
    else if (c == ',') rec.push_back(cell), cell.clear(), any = true;
    else if (c == '\r') continue;
    else if (c == '\n') {
      if (any || !cell.empty()) rec.push_back(cell), records.push_back(rec);
      rec.clear(), cell.clear(), any = false;
    } else cell += c, any = true;
  }
  if (quoted) throw ConfigError(fmt::format("{}: unterminated quoted field; fix the CSV", file));
  if (any || !cell.empty()) rec.push_back(cell), records.push_back(rec);
  if (records.empty()) throw ConfigError(fmt::format("{}: empty CSV; expected a header row", file));
  CsvTable t;
  t.file_ = file;
  for (size_t c = 0; c < records[0].size(); ++c) t.columns_[records[0][c]] = c;
  for (size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != records[0].size())
      throw ConfigError(fmt::format("{}: row {} has {} fields but the header has {}; fix the CSV", file, r,
                                    records[r].size(), records[0].size()));
    t.rows_.push_back(std::move(records[r]));
  }
  return t;
}

const std::string& CsvTable::at(size_t r, const std::string& column) const {
  auto it = columns_.find(column);
  if (it == columns_.end())
    throw ConfigError(fmt::format("{}: no column \"{}\"; the reader expects it", file_, column));
  return rows_.at(r).at(it->second);
}

}  // namespace trnsim
