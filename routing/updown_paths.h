// Shortest up*/down* paths toward many destination switches at once (the
// bit-parallel batch of routing/shortest_paths.h under a turn rule).
//
// Every switch-to-switch edge is either up or down (routing/updn.h decides
// which); a legal path takes up edges first and then down edges only, never
// up after down. Forwarding tables know the destination, not where a packet
// came from, so one switch's choice must suit every packet that reaches it:
// a switch that some packets reach on a down edge must send them on down.
// The rule that keeps that consistent: a switch from which the destination
// lies below (it descends to it on down edges only) sends its packets down,
// on a shortest such descent; any other switch sends them up, on a shortest
// legal path. Every switch that has any legal path to the destination gets
// one this way (a legal path that starts up leads through switches that
// have one), and the routes of one destination form a tree of legal paths.
//
// The candidates of a switch are then its out-edges one hop closer along
// those paths: down edges to switches that also descend, for a switch that
// descends; up edges, for one that does not.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "routing/graph.h"
#include "routing/shortest_paths.h"

namespace ibsm::routing {

class UpDownPathBatch final : public PathBatch {
 public:
  // up_edge[e] != 0 when edge e goes up; one entry per edge of `graph`.
  // Both must outlive the batch.
  UpDownPathBatch(const RoutingGraph& graph, std::span<const uint8_t> up_edge);

  // Searches toward switches first .. first + count - 1 (1 <= count <= kWidth).
  void search(SwitchId first, uint32_t count);

  // The destinations of the batch (bit j) that switch sw has a legal path
  // to, and those it descends to (it sends their packets down).
  uint64_t reaches(SwitchId sw) const { return reached_[sw]; }
  uint64_t descends(SwitchId sw) const { return descends_[sw]; }

 private:
  std::span<const uint8_t> up_edge_;
  std::vector<uint64_t> frontier_, next_;  // by switch, during the search
  std::vector<uint64_t> reached_;          // by switch: the destinations it has a path to
  std::vector<uint64_t> descends_;         // by switch: the destinations it reaches going down only
  // Descent levels: down_levels_[l * switches_ + sw]: the destinations sw
  // reaches in l hops going down only.
  std::vector<uint64_t> down_levels_;
};

}  // namespace ibsm::routing
