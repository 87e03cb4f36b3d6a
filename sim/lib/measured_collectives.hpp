// measured_collectives.hpp — a cluster's measured collective table (nccl-tests / nccom-test
// results) as a hardware fact: what the collectives of that cluster take, by size and node count.
// Why: clusters differ by several times at scale (data/validation/nccl_tests_p5_efa.csv's README),
// so a user who has run the benchmarks on their own cluster gives the table and every collective
// on that hardware follows it (collectives.measured_table in the hw file, or --hw-set). The format
// is the corpus file's: CSV with a header, one row per (collective, nodes, size) with its bus
// bandwidth: columns collective (all_reduce, all_gather, reduce_scatter, alltoall), nodes, size_MB
// (MiB, as nccl-tests counts) or size_bytes, busbw_GBps; optional hardware.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "trnsim/op.hpp"

namespace trnsim {

// The collective nccl-tests names `word` (all_reduce, all_gather, reduce_scatter, alltoall), or
// nullopt for another word.
std::optional<OpKind> collective_named(const std::string& word);
const char* collective_word(OpKind kind);
// nccl-tests' bus-bandwidth factor: 2(n-1)/n for all-reduce, (n-1)/n for the others.
double bus_factor(OpKind kind, int ranks);

struct MeasuredCollective {
  OpKind kind = OpKind::AllReduce;
  int nodes = 1;
  double size_bytes = 0;   // per rank, as nccl-tests counts it
  double busbw_GBps = 0;
  std::string hardware;    // as the table names it (may be empty)
  size_t row = 0;          // 1-based data row
};

// Throws ConfigError naming the file, row and column.
std::vector<MeasuredCollective> load_collective_table(const std::string& file);
// A table's rows for one instance: rows whose hardware is empty or begins with its name.
std::vector<MeasuredCollective> rows_for(const std::vector<MeasuredCollective>& rows, const std::string& instance);

// The table a hw file names, read once: every ranks-per-node figure is the hw file's own.
struct MeasuredTable {
  std::string file;
  std::vector<MeasuredCollective> rows;
  bool empty() const { return rows.empty(); }
  // Seconds a collective of `kind` over every rank of `nodes` nodes (`ranks_per_node` each), `size`
  // bytes per rank, takes by the table: its bus bandwidth interpolated linearly in log size and
  // log nodes between the measured points, held at the nearest point outside them. reduce_scatter
  // and all_gather without rows of their own take half an all_reduce's time (each is one of its
  // two halves). nullopt: no row of that kind (or inside one node: the table measures networks).
  std::optional<double> seconds(OpKind kind, int nodes, double size_bytes, int ranks_per_node) const;
  // A digest of the rows, for the hardware fingerprint (a different table is different hardware).
  std::string digest() const;

 private:
  // Per kind and node count, (log2 size, bus bandwidth) sorted by size: built on first use from
  // `rows` alone (a look-up per collective the executor runs).
  using Curve = std::vector<std::pair<double, double>>;
  mutable std::map<int, std::map<int, Curve>> curves_;
  mutable std::string digest_;  // digest(), once
  const std::map<int, Curve>& curves(OpKind kind) const;
};

}  // namespace trnsim
