// run_kernel.hpp — the one way trnsim runs the SystemC kernel (sc_start), so that what every
// run needs afterwards is done in one place.
//
// Under AddressSanitizer: SystemC's QuickThreads coroutines switch stacks without telling ASan,
// so frames unwound on the main stack during a run can leave stale "use after scope" poison
// below the caller. The next exception thrown from main's stack then trips ASan's own
// sigaltstack() probe (google/sanitizers#189) — a false report that aborted the sanitizer CI
// on plain usage errors raised after a simulation. Clearing the shadow of the unused stack
// below the caller after each run removes the stale poison; live frames are above it.
#pragma once
#include <systemc>

namespace trnsim {

void run_kernel();
void run_kernel(const sc_core::sc_time& duration);

}  // namespace trnsim
