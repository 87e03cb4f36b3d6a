// fault_injection.cpp — see fault_injection.hpp.
#include "fault_injection.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>

namespace trnsim {

void maybe_inject_fault(const std::string& workload_name) {
  const char* spec = std::getenv("TRNSIM_INJECT_FAULT");
  if (spec == nullptr) return;
  const std::string s = spec;
  const auto colon = s.find(':');
  if (colon == std::string::npos || s.substr(colon + 1) != workload_name) return;
  const std::string kind = s.substr(0, colon);
  if (kind == "crash") kill(getpid(), SIGKILL);
  if (kind == "hang")
    for (;;) pause();
}

}  // namespace trnsim
