// fault_injection.hpp — test hook for the sweep's fault handling: with
// TRNSIM_INJECT_FAULT=hang:NAME or crash:NAME in the environment, the worker that reaches the
// workload named NAME hangs (until killed) or dies by SIGKILL, as an OOM-killed or wedged worker
// would. Unset (always, outside tests) it does nothing. Used by tests/sweep/sweep_test.sh.
#pragma once
#include <string>

namespace trnsim {

void maybe_inject_fault(const std::string& workload_name);

}  // namespace trnsim
