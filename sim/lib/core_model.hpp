// core_model.hpp — one NeuronCore-style core: tensor, vector, scalar and GpSimd engines
// and two DMA queues (loads, stores), each an SC_THREAD draining its own instruction
// queue, synchronised by semaphores. DMA moves bytes through a TLM initiator socket into
// the chip's shared HBM target, so a GEMM's loads overlap earlier tiles' compute and
// vector work overlaps tensor work exactly as far as the semaphores allow.
#pragma once
#include <array>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "program.hpp"
#include "semaphore_bank.hpp"
#include "trnsim/units.hpp"

namespace trnsim {

class CoreModel : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<CoreModel> hbm_socket;
  explicit CoreModel(sc_core::sc_module_name name);

  void configure(Bandwidth dma_bandwidth, Bytes dma_chunk) {
    dma_bandwidth_ = dma_bandwidth;
    dma_chunk_ = dma_chunk;
  }
  // Loads a program; its queues start at the current simulated time.
  void start(const Program& p);
  bool idle() const { return running_ == 0; }
  const sc_core::sc_event& done() const { return done_event_; }
  // Busy time per queue since the last start().
  const std::array<sc_core::sc_time, kQueues>& busy() const { return busy_; }

 private:
  void run_queue(int q);
  void execute_dma(const Instruction& ins);
  Program program_;
  SemaphoreBank sems_;
  std::array<sc_core::sc_event, kQueues> start_events_;
  std::array<sc_core::sc_time, kQueues> busy_{};
  sc_core::sc_event done_event_;
  int running_ = 0;
  Bandwidth dma_bandwidth_;
  Bytes dma_chunk_ = mib(1);
  tlm::tlm_generic_payload payload_;
};

}  // namespace trnsim
