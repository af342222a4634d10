#include "routing/updown_paths.h"

#include <algorithm>
#include <cassert>

namespace ibsm::routing {

UpDownPathBatch::UpDownPathBatch(const RoutingGraph& graph, std::span<const uint8_t> up_edge)
    : PathBatch(graph), up_edge_(up_edge) {
  assert(up_edge.size() == graph.edge_count());
  frontier_.resize(switches_);
  next_.resize(switches_);
  reached_.resize(switches_);
  descends_.resize(switches_);
}

void UpDownPathBatch::search(SwitchId first, uint32_t count) {
  start(first, count);

  // Descents: a switch reaches destination j in l + 1 hops going down when a
  // down edge leads to a switch that reaches it in l going down.
  std::fill(descends_.begin(), descends_.end(), 0);
  std::fill(frontier_.begin(), frontier_.end(), 0);
  for (uint32_t j = 0; j < count; ++j) frontier_[first + j] = descends_[first + j] = uint64_t{1} << j;
  down_levels_.assign(frontier_.begin(), frontier_.end());
  uint32_t down_max = 0;
  while (true) {
    uint64_t any = 0;
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      uint64_t reached = 0;
      for (uint32_t e = graph_.edge_begin(sw); e < graph_.edge_begin(sw + 1); ++e) {
        if (!up_edge_[e]) reached |= frontier_[graph_.edge_target(e)];
      }
      reached &= ~descends_[sw];
      next_[sw] = reached;
      any |= reached;
    }
    if (any == 0) break;
    ++down_max;
    for (SwitchId sw = 0; sw < switches_; ++sw) descends_[sw] |= next_[sw];
    down_levels_.insert(down_levels_.end(), next_.begin(), next_.end());
    frontier_.swap(next_);
  }

  // Legal distances: a switch that descends to j is as far as its descent;
  // any other is one more than the nearest switch an up edge leads to.
  std::fill(frontier_.begin(), frontier_.end(), 0);
  std::fill(reached_.begin(), reached_.end(), 0);
  for (uint32_t j = 0; j < count; ++j) frontier_[first + j] = reached_[first + j] = uint64_t{1} << j;
  levels_.assign(frontier_.begin(), frontier_.end());
  max_level_ = 0;
  while (true) {
    const uint32_t l = max_level_ + 1;
    const uint64_t* down = l <= down_max ? &down_levels_[size_t{l} * switches_] : nullptr;
    uint64_t any = 0;
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      uint64_t up = 0;
      for (uint32_t e = graph_.edge_begin(sw); e < graph_.edge_begin(sw + 1); ++e) {
        if (up_edge_[e]) up |= frontier_[graph_.edge_target(e)];
      }
      uint64_t reached = up & ~descends_[sw];
      if (down != nullptr) reached |= down[sw];
      reached &= ~reached_[sw];
      next_[sw] = reached;
      any |= reached;
    }
    if (any == 0) break;
    max_level_ = l;
    for (SwitchId sw = 0; sw < switches_; ++sw) reached_[sw] |= next_[sw];
    levels_.insert(levels_.end(), next_.begin(), next_.end());
    frontier_.swap(next_);
  }

  // An edge sw -> t leads toward j when t is one hop closer and the turn
  // rule allows it: down edges between switches that both descend to j, up
  // edges out of a switch that does not.
  for (SwitchId sw = 0; sw < switches_; ++sw) {
    for (uint32_t e = graph_.edge_begin(sw); e < graph_.edge_begin(sw + 1); ++e) {
      const SwitchId t = graph_.edge_target(e);
      uint64_t toward = 0;
      for (uint32_t l = 1; l <= max_level_; ++l) {
        toward |= levels_[size_t{l} * switches_ + sw] & levels_[size_t{l - 1} * switches_ + t];
      }
      on_path_[e] = up_edge_[e] ? toward & ~descends_[sw] : toward & descends_[sw] & descends_[t];
    }
  }
  finish();
}

}  // namespace ibsm::routing
