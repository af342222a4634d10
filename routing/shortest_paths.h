// Paths toward many destination switches at once. For a batch of up to 64
// destinations, a bit-parallel breadth-first search (bit j of a switch's word
// stands for destination j) finds every switch's distance to each of them;
// from those levels come, per destination and switch, the out-edges that lie
// on a path of that length, as bitmasks over the switch's out-edges. Engines
// that route along such paths (min-hop, up*/down*) need exactly that per
// (switch, destination); done 64 destinations at a time, it costs about what
// one ordinary search per level would, instead of one search per destination.
//
// PathBatch holds what every such search produces and turns it into
// candidate masks and farthest-first orders; ShortestPathBatch searches
// plain shortest paths, UpDownPathBatch (routing/updown_paths.h) shortest
// paths under the up*/down* turn rule.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph.h"

namespace ibsm::routing {

class PathBatch {
 public:
  static constexpr uint32_t kWidth = 64;
  static constexpr uint32_t kUnreachable = routing::kUnreachable;

  PathBatch(const PathBatch&) = delete;
  PathBatch& operator=(const PathBatch&) = delete;

  const RoutingGraph& graph() const { return graph_; }
  uint32_t count() const { return count_; }
  SwitchId destination(uint32_t j) const { return listed_.empty() ? first_ + j : listed_[j]; }
  // The switches that reach destination j, farthest first (ties in switch
  // order), the destination itself left out.
  std::span<const SwitchId> farthest_first(uint32_t j) const {
    return std::span(order_).subspan(size_t{j} * switches_, order_count_[j]);
  }
  // Switch sw's out-edges on a path to destination j: bit b of word b / 64
  // stands for edge graph.edge_begin(sw) + b. Empty bits for a switch that
  // does not reach it or is it.
  std::span<const uint64_t> candidates(uint32_t j, SwitchId sw) const {
    return std::span(masks_).subspan(size_t{j} * mask_words_ + word_begin_[sw], word_begin_[sw + 1] - word_begin_[sw]);
  }
  // The batch destinations edge `edge` leads one hop closer to, bit j for
  // destination j: what the candidate masks are transposed from.
  uint64_t toward(uint32_t edge) const { return on_path_[edge]; }
  // Hops from sw to destination j, or kUnreachable. O(distance): for tests
  // and diagnostics.
  uint32_t distance(uint32_t j, SwitchId sw) const;

 protected:
  // `graph` must outlive the batch.
  explicit PathBatch(const RoutingGraph& graph);
  ~PathBatch() = default;

  // A search calls start(), fills levels_, max_level_ and on_path_, then
  // calls finish().
  void start(SwitchId first, uint32_t count);
  // Toward these switches instead of a run of consecutive ones.
  void start(std::span<const SwitchId> destinations);
  void finish();

  const RoutingGraph& graph_;
  const uint32_t switches_;
  SwitchId first_ = 0;
  uint32_t count_ = 0;
  std::vector<SwitchId> listed_;  // the destinations when not a run from first_
  // levels_[l * switches_ + sw]: the destinations sw is l hops from, for
  // l = 0..max_level_.
  std::vector<uint64_t> levels_;
  uint32_t max_level_ = 0;
  // By edge: the destinations it leads toward (one hop closer on a path).
  std::vector<uint64_t> on_path_;

 private:
  // Candidate masks: masks_[j * mask_words_ + word_begin_[sw] + w].
  std::vector<uint32_t> word_begin_;
  uint32_t mask_words_ = 0;
  std::vector<uint64_t> masks_;
  // Farthest-first orders: order_[j * switches_ + i], order_count_[j] of them.
  std::vector<SwitchId> order_;
  std::vector<uint32_t> order_count_;
};

// Plain shortest paths: every out-edge one hop closer to the destination.
class ShortestPathBatch final : public PathBatch {
 public:
  // `graph` must outlive the batch.
  explicit ShortestPathBatch(const RoutingGraph& graph);

  // Searches toward switches first .. first + count - 1 (1 <= count <= kWidth).
  // Without `masks` only toward() and distance() are filled, not the
  // candidate masks nor the orders (a route repair needs no more).
  void search(SwitchId first, uint32_t count, bool masks = true);
  // Toward these switches (1 to kWidth of them, any order): a route repair
  // searches the few destinations whose distances moved, which lie all over
  // the switch numbers, 64 to a search.
  void search(std::span<const SwitchId> destinations, bool masks = true);

 private:
  void search_started(bool masks);

  std::vector<uint64_t> frontier_, next_, visited_;  // by switch, during the search
};

}  // namespace ibsm::routing
