// The route check after a route repair (RoutingEngine::repair): the tables
// the repair was given, already checked pair by pair on the fabric before
// the change, and the tables it returned, on the fabric after.
//
// Every route of the new tables whose walk meets no changed entry and no
// changed cable is, hop for hop, a route the last check followed and found
// delivered, so only the walks that meet one need following:
//  - from every entry that differs from the given tables (toward a LID of an
//    end port), and
//  - from every entry that sends a LID out of a switch port whose cable
//    changed (gone, come, or now leading elsewhere), changed or not.
// A route that meets a changed entry or cable first follows the given tables
// over unchanged cables (as before, delivered then), then the walk from
// there on, which is followed here to the end: so every pair is delivered
// when every such walk is. A walk is followed to its end, not to the first
// unchanged entry, so an entry no route used before is judged too.
//
// Cost: the rows the repair copied are compared, and each walk is followed
// once per LID (the walks toward one LID share their tails). On the k=34 fat
// tree a pull changes some 5,000 entries of 42k LIDs; checking every source
// toward those LIDs read 8M entries spread over 148 MB (bench/reroute.sh).
//
// The walks stand for the pairs only when the end ports are as before (same
// LIDs, same cables): otherwise, and when the last check found a pair not
// delivered, the caller checks every pair (check_routes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"

namespace ibsm::routing {

struct RepairCheck {
  uint64_t changed_entries = 0;  // entries toward end-port LIDs that differ from the given tables
  uint64_t changed_lids = 0;     // the LIDs of those entries
  uint64_t changed_ports = 0;    // switch ports whose cable changed
  uint64_t walks = 0;            // (switch, LID) walks followed
  uint64_t delivered = 0;        // to the port that owns the LID
  uint64_t unreachable = 0;      // dropped, or delivered to another port
  uint64_t looping = 0;
  std::vector<std::string> problems;  // the first failed walks, readable

  bool all_delivered() const { return delivered == walks; }
  // "5120 entries of 2413 LIDs and 2 ports changed: 6200/6200 walks from
  // them delivered", with "(3 unreachable, 1 looping)" on failure.
  std::string to_string() const;
};

// `given`: the tables the repair started from, by `now`'s node indices (rows
// past now's nodes are ignored); `repaired`: what it returned. nullopt when
// the end ports differ between `before` and `now` (matched by GUID): then
// the walks do not stand for the pairs.
std::optional<RepairCheck> check_repaired_routes(const Fabric& before, const Fabric& now, const SharedLfts& given,
                                                 const SharedLfts& repaired, size_t max_problems = 10);

}  // namespace ibsm::routing
