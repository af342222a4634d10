// A plain, one-destination-at-a-time reference for the up*/down* path rule
// of routing/updown_paths.h, for the tests: descents by a breadth-first
// search over down edges, then legal distances in order, then the
// candidates. Written the obvious way so it can judge the bit-parallel batch.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph.h"

namespace ibsm::routing::testing {

class UpDownOracle {
 public:
  static constexpr uint32_t kFar = UINT32_MAX;

  UpDownOracle(const RoutingGraph& graph, std::span<const uint8_t> up) : graph_(graph), up_(up) {}

  // Computes everything toward destination switch `to`.
  void search(SwitchId to) {
    const uint32_t n = graph_.switch_count();
    descent_.assign(n, kFar);
    distance_.assign(n, kFar);
    // Descents: S -> T is a down edge exactly when the edge T -> S goes up.
    std::vector<SwitchId> queue{to};
    descent_[to] = 0;
    for (size_t head = 0; head < queue.size(); ++head) {
      const SwitchId t = queue[head];
      for (uint32_t e = graph_.edge_begin(t); e < graph_.edge_begin(t + 1); ++e) {
        const SwitchId s = graph_.edge_target(e);
        if (!up_[e] || descent_[s] != kFar) continue;
        descent_[s] = descent_[t] + 1;
        queue.push_back(s);
      }
    }
    // Legal distances in rounds of increasing distance: a descending switch
    // at its descent, any other one more than its nearest up-neighbour.
    for (uint32_t d = 0;; ++d) {
      bool any = false, pending = false;
      for (SwitchId s = 0; s < n; ++s) {
        if (distance_[s] != kFar) continue;
        if (descent_[s] != kFar) {
          if (descent_[s] == d) distance_[s] = d, any = true;
          else pending = true;
          continue;
        }
        for (uint32_t e = graph_.edge_begin(s); e < graph_.edge_begin(s + 1); ++e) {
          if (up_[e] && d > 0 && distance_[graph_.edge_target(e)] == d - 1) {
            distance_[s] = d;
            any = true;
            break;
          }
        }
      }
      if (!any && !pending) break;
    }
  }

  uint32_t distance(SwitchId s) const { return distance_[s]; }
  bool descends(SwitchId s) const { return descent_[s] != kFar; }

  // Whether edge e (out of s) is a candidate toward the destination.
  bool candidate(SwitchId s, uint32_t e) const {
    if (distance_[s] == kFar || distance_[s] == 0) return false;
    const SwitchId t = graph_.edge_target(e);
    if (descends(s)) return !up_[e] && descends(t) && descent_[t] + 1 == descent_[s];
    return up_[e] && distance_[t] != kFar && distance_[t] + 1 == distance_[s];
  }

 private:
  const RoutingGraph& graph_;
  std::span<const uint8_t> up_;
  std::vector<uint32_t> descent_, distance_;
};

}  // namespace ibsm::routing::testing
