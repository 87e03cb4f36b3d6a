// core_model.cpp — engine threads and DMA behaviour (see core_model.hpp).
#include "core_model.hpp"

#include <algorithm>

#include "sim_time.hpp"

namespace trnsim {

CoreModel::CoreModel(sc_core::sc_module_name name) : sc_module(name), hbm_socket("hbm_socket") {
  for (int q = 0; q < kQueues; ++q) {
    sc_core::sc_spawn_options opts;
    sc_core::sc_spawn(sc_bind(&CoreModel::run_queue, this, q), sc_core::sc_gen_unique_name("queue"), &opts);
  }
}

void CoreModel::start(const Program& p) {
  program_ = p;
  sems_.reset(p.semaphores);
  busy_.fill(sc_core::SC_ZERO_TIME);
  running_ = 0;
  for (int q = 0; q < kQueues; ++q) {
    if (program_.queues[static_cast<size_t>(q)].empty()) continue;
    ++running_;
    start_events_[static_cast<size_t>(q)].notify(sc_core::SC_ZERO_TIME);
  }
  if (running_ == 0) done_event_.notify(sc_core::SC_ZERO_TIME);
}

void CoreModel::execute_dma(const Instruction& ins) {
  // Fixed descriptor/latency cost first, then the bytes in chunks so that concurrent
  // requesters (the other core's DMA, the other queue) interleave at HBM.
  if (ins.busy > sc_core::SC_ZERO_TIME) sc_core::wait(ins.busy);
  double left = ins.bytes.base();
  while (left > 0) {
    const double chunk = std::min(left, dma_chunk_.base());
    payload_.set_command(tlm::TLM_READ_COMMAND);
    payload_.set_data_ptr(nullptr);
    payload_.set_data_length(static_cast<unsigned int>(chunk));
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    hbm_socket->b_transport(payload_, delay);
    const sc_core::sc_time own = transfer_time(Bytes(chunk), dma_bandwidth_);
    sc_core::wait(std::max(delay, own));
    left -= chunk;
  }
}

void CoreModel::run_queue(int q) {
  const auto qi = static_cast<size_t>(q);
  const bool dma = q == static_cast<int>(Queue::DmaLoad) || q == static_cast<int>(Queue::DmaStore);
  for (;;) {
    sc_core::wait(start_events_[qi]);
    for (const auto& ins : program_.queues[qi]) {
      for (const auto& w : ins.waits) sems_.wait_for(w.sem, w.count);
      const sc_core::sc_time t0 = sc_core::sc_time_stamp();
      if (dma) execute_dma(ins);
      else sc_core::wait(ins.busy);
      busy_[qi] += sc_core::sc_time_stamp() - t0;
      if (ins.signal >= 0) sems_.signal(ins.signal);
    }
    if (--running_ == 0) done_event_.notify(sc_core::SC_ZERO_TIME);
  }
}

}  // namespace trnsim
