#include "mad/sim/sim_faults.h"

#include <algorithm>

namespace ibsm::sim {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void SimFaults::set_drop_rate(uint32_t node, double fraction, uint64_t seed) {
  NodeFaults& f = nodes_[node];
  f.has_rate = true;
  f.rate = std::clamp(fraction, 0.0, 1.0);
  f.rng = SplitMix64(seed);
}

void SimFaults::set_drop_rate_all(double fraction, uint64_t seed) {
  all_rate_ = std::clamp(fraction, 0.0, 1.0);
  all_rng_ = SplitMix64(seed);
  for (auto& [node, f] : nodes_) f.has_rate = false;  // the fabric-wide rate replaces per-node ones
}

void SimFaults::set_drop_attribute(uint32_t node, uint16_t attr, bool drop) {
  std::vector<uint16_t>& attrs = nodes_[node].attributes;
  auto it = std::find(attrs.begin(), attrs.end(), attr);
  if (drop && it == attrs.end()) attrs.push_back(attr);
  if (!drop && it != attrs.end()) attrs.erase(it);
}

void SimFaults::set_unresponsive(uint32_t node, bool unresponsive) { nodes_[node].unresponsive = unresponsive; }

void SimFaults::clear() {
  nodes_.clear();
  all_rate_ = 0;
}

bool SimFaults::unresponsive(uint32_t node) const {
  if (nodes_.empty()) return false;
  auto it = nodes_.find(node);
  return it != nodes_.end() && it->second.unresponsive;
}

bool SimFaults::drop_answer(uint32_t node, uint16_t attr) {
  auto it = nodes_.empty() ? nodes_.end() : nodes_.find(node);
  if (it != nodes_.end()) {
    NodeFaults& f = it->second;
    if (std::find(f.attributes.begin(), f.attributes.end(), attr) != f.attributes.end()) return true;
    if (f.has_rate) return f.rate > 0 && f.rng.next_unit() < f.rate;
  }
  return all_rate_ > 0 && all_rng_.next_unit() < all_rate_;
}

}  // namespace ibsm::sim
