#include "sm/fabric/multicast_tables.h"

#include <bit>

namespace ibsm {

size_t PortMask::count() const {
  size_t n = 0;
  for (uint64_t w : bits) n += static_cast<size_t>(std::popcount(w));
  return n;
}

void PortMask::set_position_bits(unsigned position, uint16_t value) {
  const unsigned shift = 16 * (position % 4);
  uint64_t& word = bits[position / 4];
  word = (word & ~(uint64_t{0xFFFF} << shift)) | (uint64_t{value} << shift);
}

PortMask operator&(const PortMask& a, const PortMask& b) {
  PortMask m;
  for (size_t i = 0; i < m.bits.size(); ++i) m.bits[i] = a.bits[i] & b.bits[i];
  return m;
}

PortMask operator|(const PortMask& a, const PortMask& b) {
  PortMask m;
  for (size_t i = 0; i < m.bits.size(); ++i) m.bits[i] = a.bits[i] | b.bits[i];
  return m;
}

PortMask minus(const PortMask& a, const PortMask& b) {
  PortMask m;
  for (size_t i = 0; i < m.bits.size(); ++i) m.bits[i] = a.bits[i] & ~b.bits[i];
  return m;
}

const MulticastTables::Entries& MulticastTables::of(NodeIndex node) const {
  static const Entries none;
  return node.value < by_node_.size() ? by_node_[node.value] : none;
}

PortMask MulticastTables::ports(NodeIndex sw, Lid mlid) const {
  const Entries& e = of(sw);
  auto it = e.find(mlid.value);
  return it == e.end() ? PortMask{} : it->second;
}

void MulticastTables::set(NodeIndex sw, Lid mlid, const PortMask& ports) {
  if (sw.value >= by_node_.size()) by_node_.resize(size_t{sw.value} + 1);
  Entries& e = by_node_[sw.value];
  if (ports.empty()) {
    e.erase(mlid.value);
  } else {
    e[mlid.value] = ports;
  }
}

size_t MulticastTables::entry_count() const {
  size_t n = 0;
  for (const Entries& e : by_node_) n += e.size();
  return n;
}

}  // namespace ibsm
