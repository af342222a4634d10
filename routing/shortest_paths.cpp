#include "routing/shortest_paths.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace ibsm::routing {

namespace {

// Transposes a 64 x 64 bit matrix in place: bit c of row r trades places
// with bit r of row c (Hacker's Delight 7-3, for least-significant-bit-first
// numbering): six rounds of block swaps instead of 4096 bit moves.
void transpose64(uint64_t rows[64]) {
  uint64_t mask = 0x00000000FFFFFFFFULL;
  for (unsigned width = 32; width != 0; width >>= 1, mask ^= mask << width) {
    for (unsigned k = 0; k < 64; k = ((k | width) + 1) & ~width) {
      const uint64_t t = ((rows[k] >> width) ^ rows[k | width]) & mask;
      rows[k] ^= t << width;
      rows[k | width] ^= t;
    }
  }
}

}  // namespace

PathBatch::PathBatch(const RoutingGraph& graph) : graph_(graph), switches_(graph.switch_count()) {
  on_path_.resize(graph.edge_count());
  word_begin_.resize(size_t{switches_} + 1);
  for (SwitchId sw = 0; sw < switches_; ++sw) {
    const uint32_t degree = graph.edge_begin(sw + 1) - graph.edge_begin(sw);
    word_begin_[sw + 1] = word_begin_[sw] + (degree + 63) / 64;
  }
  mask_words_ = word_begin_[switches_];
  masks_.resize(size_t{kWidth} * mask_words_);
  order_.resize(size_t{kWidth} * switches_);
  order_count_.resize(kWidth);
}

void PathBatch::start(SwitchId first, uint32_t count) {
  assert(count >= 1 && count <= kWidth && first + count <= switches_);
  first_ = first;
  count_ = count;
  listed_.clear();
}

void PathBatch::start(std::span<const SwitchId> destinations) {
  assert(!destinations.empty() && destinations.size() <= kWidth);
  first_ = 0;
  count_ = static_cast<uint32_t>(destinations.size());
  listed_.assign(destinations.begin(), destinations.end());
}

void PathBatch::finish() {
  // Per switch, its edges' destination masks, 64 edges at a time, turned
  // into per-destination edge masks by transposing the bit matrix.
  uint64_t block[64];
  for (SwitchId sw = 0; sw < switches_; ++sw) {
    const uint32_t begin = graph_.edge_begin(sw), end = graph_.edge_begin(sw + 1);
    for (uint32_t w = 0; begin + w * 64 < end; ++w) {
      const uint32_t base = begin + w * 64;
      const uint32_t edges = std::min<uint32_t>(64, end - base);
      std::copy_n(&on_path_[base], edges, block);
      std::fill(block + edges, block + 64, 0);
      transpose64(block);
      for (uint32_t j = 0; j < count_; ++j) masks_[size_t{j} * mask_words_ + word_begin_[sw] + w] = block[j];
    }
  }

  // Farthest first, for each destination.
  std::fill(order_count_.begin(), order_count_.end(), 0);
  for (uint32_t l = max_level_; l >= 1; --l) {
    const uint64_t* level = &levels_[size_t{l} * switches_];
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      for (uint64_t m = level[sw]; m != 0; m &= m - 1) {
        const unsigned j = static_cast<unsigned>(std::countr_zero(m));
        order_[size_t{j} * switches_ + order_count_[j]++] = sw;
      }
    }
  }
}

uint32_t PathBatch::distance(uint32_t j, SwitchId sw) const {
  for (uint32_t l = 0; l <= max_level_; ++l) {
    if ((levels_[size_t{l} * switches_ + sw] >> j) & 1) return l;
  }
  return kUnreachable;
}

ShortestPathBatch::ShortestPathBatch(const RoutingGraph& graph) : PathBatch(graph) {
  frontier_.resize(switches_);
  next_.resize(switches_);
  visited_.resize(switches_);
}

void ShortestPathBatch::search(SwitchId first, uint32_t count, bool masks) {
  start(first, count);
  search_started(masks);
}

void ShortestPathBatch::search(std::span<const SwitchId> destinations, bool masks) {
  start(destinations);
  search_started(masks);
}

void ShortestPathBatch::search_started(bool masks) {
  // Level by level: a switch joins level l + 1 for the destinations that a
  // neighbour reached at level l and it has not reached yet.
  std::fill(visited_.begin(), visited_.end(), 0);
  std::fill(frontier_.begin(), frontier_.end(), 0);
  for (uint32_t j = 0; j < count_; ++j) {
    const SwitchId d = destination(j);
    frontier_[d] |= uint64_t{1} << j;
    visited_[d] |= uint64_t{1} << j;
  }
  levels_.assign(frontier_.begin(), frontier_.end());
  max_level_ = 0;
  while (true) {
    uint64_t any = 0;
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      uint64_t reached = 0;
      for (uint32_t e = graph_.edge_begin(sw); e < graph_.edge_begin(sw + 1); ++e) {
        reached |= frontier_[graph_.edge_target(e)];
      }
      reached &= ~visited_[sw];
      next_[sw] = reached;
      any |= reached;
    }
    if (any == 0) break;
    ++max_level_;
    for (SwitchId sw = 0; sw < switches_; ++sw) visited_[sw] |= next_[sw];
    levels_.insert(levels_.end(), next_.begin(), next_.end());
    frontier_.swap(next_);
  }

  // An edge sw -> t leads toward destination j when t is one hop closer to
  // it than sw: sw at level l and t at level l - 1.
  for (SwitchId sw = 0; sw < switches_; ++sw) {
    for (uint32_t e = graph_.edge_begin(sw); e < graph_.edge_begin(sw + 1); ++e) {
      const SwitchId t = graph_.edge_target(e);
      uint64_t toward = 0;
      for (uint32_t l = 1; l <= max_level_; ++l) {
        toward |= levels_[size_t{l} * switches_ + sw] & levels_[size_t{l - 1} * switches_ + t];
      }
      on_path_[e] = toward;
    }
  }
  if (masks) finish();
}

}  // namespace ibsm::routing
