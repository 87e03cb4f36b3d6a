// semaphore_bank.hpp — the counting semaphores engines use to order their work.
#pragma once
#include <systemc>
#include <vector>

namespace trnsim {

class SemaphoreBank {
 public:
  void reset(int n) {
    counts_.assign(static_cast<size_t>(n), 0);
  }
  void signal(int s) {
    ++counts_[static_cast<size_t>(s)];
    changed_.notify(sc_core::SC_ZERO_TIME);
  }
  // Blocks the calling SC_THREAD until semaphore s reaches count.
  void wait_for(int s, int count) {
    while (counts_[static_cast<size_t>(s)] < count) sc_core::wait(changed_);
  }

 private:
  std::vector<int> counts_;
  sc_core::sc_event changed_;
};

}  // namespace trnsim
