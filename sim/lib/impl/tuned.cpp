// impl/tuned.cpp — NCCL's per-call algorithm choice: of the named algorithms (hw
// collectives.inter_algorithm "ring+hierarchical"), each call runs the one whose steps take the
// least time on idle links, as NCCL's tuner picks ring or tree per call from its own cost model
// (NCCL_ALGO unset; recalled from NCCL's environment-variable docs). The estimate is the same
// step code run on an idle clock, so it cannot drift from what the algorithms book.
#include <limits>
#include <vector>

#include "collective.hpp"

namespace trnsim {
namespace {

class Tuned : public CollectiveAlgorithm {
 public:
  explicit Tuned(std::vector<std::unique_ptr<CollectiveAlgorithm>> candidates) : candidates_(std::move(candidates)) {}
  const char* name() const override { return "tuned"; }
  void steps(StepSink& f, const CollectiveCall& c) const override { pick(f, c).steps_on(f, c); }
  std::string chosen_for(const StepSink& f, const CollectiveCall& c) const override { return pick(f, c).name(); }

 private:
  // The candidate whose steps take the least time on idle links (the first of equals).
  const CollectiveAlgorithm& pick(const StepSink& f, const CollectiveCall& c) const {
    const CollectiveAlgorithm* best = candidates_.front().get();
    double fastest = std::numeric_limits<double>::infinity();
    for (const auto& a : candidates_) {
      const double t = a->idle_seconds(f, c);
      if (t < fastest) fastest = t, best = a.get();
    }
    return *best;
  }
  std::vector<std::unique_ptr<CollectiveAlgorithm>> candidates_;
};

}  // namespace

std::unique_ptr<CollectiveAlgorithm> make_tuned(std::vector<std::unique_ptr<CollectiveAlgorithm>> candidates) {
  return std::make_unique<Tuned>(std::move(candidates));
}

}  // namespace trnsim
