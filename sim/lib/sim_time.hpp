// sim_time.hpp — conversions between unit-carrying quantities and SystemC time.
// Why: simulated time is sc_core::sc_time everywhere in sim/; these are the only
// places where a double becomes a time, so the unit is named once.
#pragma once
#include <systemc>

#include "trnsim/units.hpp"

namespace trnsim {

inline sc_core::sc_time sim_seconds(double s) { return sc_core::sc_time(s * 1e12, sc_core::SC_PS); }
inline sc_core::sc_time sim_cycles(double cycles, double clock_hz) { return sim_seconds(cycles / clock_hz); }
inline sc_core::sc_time transfer_time(Bytes b, Bandwidth bw) { return sim_seconds((b / bw).base()); }
inline double to_seconds(const sc_core::sc_time& t) { return t.to_seconds(); }

}  // namespace trnsim
