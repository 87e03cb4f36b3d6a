// program.cpp — small helpers for Program (see program.hpp).
#include "program.hpp"

namespace trnsim {

const char* to_string(Queue q) {
  switch (q) {
    case Queue::Tensor: return "tensor";
    case Queue::Vector: return "vector";
    case Queue::Scalar: return "scalar";
    case Queue::GpSimd: return "gpsimd";
    case Queue::DmaLoad: return "dma_load";
    case Queue::DmaStore: return "dma_store";
    case Queue::Count: break;
  }
  return "?";
}

size_t Program::instruction_count() const {
  size_t n = 0;
  for (const auto& q : queues) n += q.size();
  return n;
}

}  // namespace trnsim
