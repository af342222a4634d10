#include "sm/sweep/sweep_problem.h"

#include <algorithm>

namespace ibsm {

std::string_view sweep_problem_kind_name(SweepProblemKind kind) {
  switch (kind) {
    case SweepProblemKind::unreachable: return "unreachable";
    case SweepProblemKind::smp_failed: return "smp_failed";
    case SweepProblemKind::lft_cap: return "lft_cap";
    case SweepProblemKind::no_route_in: return "no_route_in";
    case SweepProblemKind::port_state: return "port_state";
    case SweepProblemKind::partition_cap: return "partition_cap";
  }
  return "unknown";
}

size_t count_problems(std::span<const SweepProblem> problems, SweepProblemKind kind) {
  return static_cast<size_t>(
      std::count_if(problems.begin(), problems.end(), [kind](const SweepProblem& p) { return p.kind == kind; }));
}

}  // namespace ibsm
