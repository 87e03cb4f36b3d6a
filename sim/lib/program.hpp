// program.hpp — what a core executes: one instruction queue per engine, synchronised by
// counting semaphores as on NeuronCore-v2 (an instruction may wait until semaphores
// reach given counts, and increments one semaphore when it completes).
#pragma once
#include <array>
#include <systemc>
#include <vector>

#include "trnsim/units.hpp"

namespace trnsim {

enum class Queue { Tensor = 0, Vector, Scalar, GpSimd, DmaLoad, DmaStore, Count };
constexpr int kQueues = static_cast<int>(Queue::Count);
const char* to_string(Queue q);

struct SemWait {
  int sem;
  int count;  // proceed once semaphore `sem` has reached `count`
};

struct Instruction {
  sc_core::sc_time busy;     // engine occupancy (compute engines); fixed latency for DMA
  Bytes bytes;               // DMA only: bytes moved through HBM
  std::vector<SemWait> waits;
  int signal = -1;           // semaphore incremented on completion (-1: none)
};

struct Program {
  std::array<std::vector<Instruction>, kQueues> queues;
  int semaphores = 0;
  int new_semaphore() { return semaphores++; }
  std::vector<Instruction>& q(Queue which) { return queues[static_cast<size_t>(which)]; }
  size_t instruction_count() const;
};

}  // namespace trnsim
