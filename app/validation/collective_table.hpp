// collective_table.hpp — a measured collective table (nccl-tests / nccom-test results) and how
// trnsim's collectives compare with it.
// Why: clusters differ by several times at scale (data/validation/nccl_tests_p5_efa.csv's own
// README), so a user's measured table is the ground truth for their cluster, and the shipped one is
// the corpus's check on the collective model. The format is the corpus file's: one row per
// (collective, nodes, size) with the bus bandwidth, CSV with a header.
#pragma once
#include <string>
#include <vector>

#include "collective_bench.hpp"
#include "hw_spec.hpp"

namespace trnsim {

struct MeasuredCollective {
  OpKind kind = OpKind::AllReduce;
  int nodes = 1;
  double size_bytes = 0;
  double busbw_GBps = 0;
  std::string hardware;  // as the table names it (may be empty)
  size_t row = 0;        // 1-based data row
};

// Columns: collective (all_reduce, all_gather, reduce_scatter, alltoall), nodes, size_MB (MiB, as
// nccl-tests counts) or size_bytes, busbw_GBps; optional hardware. Throws ConfigError naming the
// file, row and column.
std::vector<MeasuredCollective> load_collective_table(const std::string& file);

// A table's rows for one hw file: rows whose hardware is empty or begins with the instance name.
std::vector<MeasuredCollective> rows_for(const std::vector<MeasuredCollective>& rows, const HwSpec& hw);

struct CollectiveComparison {
  CollectiveBench predicted;
  MeasuredCollective measured;
  double error() const { return predicted.busbw_GBps / measured.busbw_GBps - 1; }  // + = trnsim faster
};
std::vector<CollectiveComparison> compare_collectives(const HwSpec& hw, const std::vector<MeasuredCollective>& rows);

}  // namespace trnsim
