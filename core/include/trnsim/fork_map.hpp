// fork_map.hpp — run independent tasks on every core of the machine, in one command.
// Why: the validation fits and predictions are thousands of independent simulations, but the
// SystemC 2.3 kernel is one process-wide object (sc_get_curr_simcontext) that threads cannot
// share, so threads cannot simulate side by side. Forked children are copies of the already
// elaborated process (copy-on-write: no re-elaboration, no exec, no files): each takes the next
// task from a counter in shared memory and sends its result back through a pipe.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace trnsim {

// The number of online CPUs (at least 1): the default worker count of the commands that use them.
int online_cpus();

// Returns task(i) for every i in [0, n), in index order, computed by up to `workers` forked
// children (in this process when workers <= 1 or n <= 1). `on_done(done, n)`, if given, is called
// in this process as results arrive (progress lines). A task that throws has its message
// rethrown here as a ConfigError; a child that dies (signal, exit without a result) is a
// ConfigError naming the task. The results must not depend on which process computed them.
std::vector<std::string> fork_map(size_t n, int workers, const std::function<std::string(size_t)>& task,
                                  const std::function<void(size_t, size_t)>& on_done = {});

}  // namespace trnsim
