// bench_validation.cpp — issue 27: `trnsim validation` on the whole corpus (every fit, the
// leave-one-dataset-out refits and all 2,066 predictions), on one worker and on every core.
// Wall time is what users wait for (UseRealTime); the children's CPU is not in the process's.
#include <benchmark/benchmark.h>

#include "trnsim/fork_map.hpp"
#include "validation.hpp"

using namespace trnsim;

namespace {

void BM_ValidationCorpus(benchmark::State& st) {
  ValidationOptions opt;
  opt.csv_dir = std::string(TRNSIM_SOURCE_DIR) + "/data/validation";
  opt.progress = false;
  opt.jobs = st.range(0) == 0 ? online_cpus() : static_cast<int>(st.range(0));
  for (auto _ : st) benchmark::DoNotOptimize(run_validation(opt));
  st.counters["workers"] = opt.jobs;
}
BENCHMARK(BM_ValidationCorpus)->Arg(1)->Arg(0)->ArgName("jobs(0=all)")->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

}  // namespace
