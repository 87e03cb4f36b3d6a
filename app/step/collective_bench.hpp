// collective_bench.hpp — one collective alone on idle links, reported as nccl-tests and nccom-test
// report it (size, time, algorithm and bus bandwidth), and beside a measured table.
// Why: the collective model is the part of trnsim a user can check on their own cluster in minutes
// (all_reduce_perf, alltoall_perf), and a measured table is the ground truth for it
// (data/validation/nccl_tests_p5_efa.csv). The time is the executor's own (the hw file's
// algorithms on the fabric, idle_collective_seconds, with the hw file's measured table if it names
// one), so what this prints is what a step's collectives cost before contention.
#pragma once
#include <string>
#include <vector>

#include "hw_spec.hpp"
#include "measured_collectives.hpp"
#include "trnsim/op.hpp"

namespace trnsim {

struct CollectiveBench {
  std::string op;          // nccl-tests' name: all_reduce, all_gather, reduce_scatter, alltoall
  int nodes = 1;
  int ranks = 1;           // every core of every node (one rank per GPU / NeuronCore)
  double size_bytes = 0;   // nccl-tests' size: the whole buffer per rank (all_gather: the gathered one)
  double time_s = 0;
  double algbw_GBps = 0;   // size / time
  double busbw_GBps = 0;   // algbw x the op's bus factor (nccl-tests PERFORMANCE.md)
  std::string algorithm;   // what the call ran: ring / hierarchical / pipelined (the tuner's pick), or the intra-node one
};

// Bytes in "32M", "32MB", "32MiB", "1.5G", "4096" (K / M / G / T are powers of 1024, as in
// nccl-tests' -b / -e); nullopt where the text is not a size.
std::optional<double> parse_size(const std::string& text);
// The collective over every rank of `nodes` nodes of `hw`, one group, alone.
CollectiveBench bench_collective(const HwSpec& hw, OpKind kind, int nodes, double size_bytes);

struct CollectiveComparison {
  CollectiveBench predicted;
  MeasuredCollective measured;
  double error() const { return predicted.busbw_GBps / measured.busbw_GBps - 1; }  // + = trnsim faster
};
std::vector<CollectiveComparison> compare_collectives(const HwSpec& hw, const std::vector<MeasuredCollective>& rows);

}  // namespace trnsim
