// The multicast checker (beside route_check): judges multicast forwarding
// tables, computed or read back from the switches, the way switches forward
// (IBA 18.2.4.3.3: a packet leaves by every port of its MLID's entry but the
// one it came in on). For each group and each member it floods a packet from
// the member and checks that every other member gets exactly one copy, that
// no switch sees the packet twice (a loop or a second path), and that no
// port outside the tree gets it (a CA port that is no member, a switch port
// whose peer's entry does not list the port it arrives on, an uncabled port).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "sm/fabric/fabric.h"
#include "sm/fabric/multicast_tables.h"

namespace ibsm::routing {

struct MulticastCheckOptions {
  size_t max_problems = 10;  // problems listed; the rest are counted
  // Members of a group flooded from, in port order; 0: every member. One
  // flood already judges the whole tree's reach; a group every host joins
  // (IPoIB's broadcast group) would cost members x tree switches otherwise.
  size_t max_sources = 0;
};

struct MulticastCheck {
  size_t groups = 0;
  size_t floods = 0;             // members flooded from (attached ones)
  size_t detached_members = 0;   // members with no usable cable to a switch: not judged
  size_t deliveries = 0;         // copies that reached a member
  size_t missed = 0;             // (source, member) pairs that got no copy
  size_t duplicates = 0;         // copies beyond the first, and switches seen twice
  size_t leaks = 0;              // copies that left the tree
  std::vector<std::string> problems;  // the first max_problems, by GUID and port
  bool ok() const { return missed == 0 && duplicates == 0 && leaks == 0; }
  // "multicast check: 12 groups, 340 floods: ok" or what failed, counted.
  std::string to_string() const;
};

MulticastCheck check_multicast(const Fabric& fabric, const MulticastTables& tables,
                               std::span<const MulticastGroupMembers> groups, const MulticastCheckOptions& options = {});

}  // namespace ibsm::routing
