// csv_table.hpp — a small RFC-4180 CSV reader (quoted fields, doubled quotes, commas and
// newlines inside quotes) with strict column lookup: the validation corpus and measured
// collective tables (nccl-tests results) are read with it.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "trnsim/error.hpp"

namespace trnsim {

// A cell that cannot be read as the mapping needs it (text where a number must be): a fault of one
// row, unlike a missing column or a ragged row, which are faults of the file.
class CsvCellError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

class CsvTable {
 public:
  static CsvTable load(const std::string& file);  // throws ConfigError (missing, ragged rows)
  size_t rows() const { return rows_.size(); }
  // Cell of data row r (0-based) in the named column; throws ConfigError if the column is missing.
  const std::string& at(size_t r, const std::string& column) const;
  bool has(const std::string& column) const { return columns_.count(column) > 0; }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::map<std::string, size_t> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace trnsim
