// What the switches forward multicast packets to: per switch, per MLID, a set
// of ports (the content of its MulticastForwardingTable, IBA 14.2.5.12).
//
// It sits in the subnet model (layer 2), not beside the code that computes
// it (sm/multicast, layer 5), because three layers read it: routing's
// multicast checker (layer 4), the SA, which serves
// MulticastForwardingTableRecords from it (layer 6 may include the model and
// routing, never sm/multicast or sm/sweep), and the dump writers (sm/dump,
// below routing). Like the LFTs in SubnetSnapshot, it is data only.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <vector>

#include "mad/base/types.h"
#include "sm/fabric/fabric.h"

namespace ibsm {

// Set of ports of one switch (bit p: port p, 0..255; port 0 is the switch itself).
struct PortMask {
  std::array<uint64_t, 4> bits{};
  void set(uint8_t p) { bits[p / 64] |= uint64_t{1} << (p % 64); }
  void reset(uint8_t p) { bits[p / 64] &= ~(uint64_t{1} << (p % 64)); }
  bool test(uint8_t p) const { return (bits[p / 64] >> (p % 64)) & 1; }
  bool empty() const { return (bits[0] | bits[1] | bits[2] | bits[3]) == 0; }
  size_t count() const;
  // The 16 ports 16*position .. 16*position+15 as one MFT entry holds them
  // (bit i: port 16*position + i, IBA 14.2.5.12).
  uint16_t position_bits(unsigned position) const {
    return static_cast<uint16_t>(bits[position / 4] >> (16 * (position % 4)));
  }
  void set_position_bits(unsigned position, uint16_t value);
  bool operator==(const PortMask&) const = default;
};
PortMask operator&(const PortMask& a, const PortMask& b);
PortMask operator|(const PortMask& a, const PortMask& b);
// The ports of `a` that are not in `b`.
PortMask minus(const PortMask& a, const PortMask& b);

// Calls visit(port) for every port in the mask, in increasing order.
template <typename Visit>
void for_each_port(const PortMask& mask, Visit&& visit) {
  for (unsigned w = 0; w < mask.bits.size(); ++w) {
    for (uint64_t b = mask.bits[w]; b != 0; b &= b - 1) visit(static_cast<uint8_t>(w * 64 + std::countr_zero(b)));
  }
}

// A multicast group as the SA knows it: its MLID and the ports that joined
// (CA or router ports, or port 0 of a switch).
struct MulticastGroupMembers {
  Lid mlid;
  std::vector<PortRef> members;
};

// Every switch's multicast forwarding entries that are not empty.
class MulticastTables {
 public:
  using Entries = std::map<uint16_t, PortMask>;  // by MLID value

  explicit MulticastTables(size_t node_count = 0) : by_node_(node_count) {}

  size_t node_count() const { return by_node_.size(); }
  // The entries of one node (none for a CA or a node beyond the tables).
  const Entries& of(NodeIndex node) const;
  PortMask ports(NodeIndex sw, Lid mlid) const;
  // An empty mask removes the entry.
  void set(NodeIndex sw, Lid mlid, const PortMask& ports);
  // Entries over all switches.
  size_t entry_count() const;
  bool operator==(const MulticastTables&) const = default;

 private:
  std::vector<Entries> by_node_;  // by NodeIndex
};

}  // namespace ibsm
