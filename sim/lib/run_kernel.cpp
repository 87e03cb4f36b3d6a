// run_kernel.cpp — sc_start plus the sanitizer stack clean-up (see run_kernel.hpp).
#include "run_kernel.hpp"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>

#include <cstdint>
#endif

namespace trnsim {
namespace {

void clear_stale_stack_poison() {
#if defined(__SANITIZE_ADDRESS__)
  // Everything below this frame is dead stack: unpoison 256 KiB of it.
  constexpr size_t kBytes = 256 * 1024;
  const auto here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  __asan_unpoison_memory_region(reinterpret_cast<void*>(here - kBytes), kBytes);
#endif
}

}  // namespace

void run_kernel() {
  sc_core::sc_start();
  clear_stale_stack_poison();
}

void run_kernel(const sc_core::sc_time& duration) {
  sc_core::sc_start(duration);
  clear_stale_stack_poison();
}

}  // namespace trnsim
