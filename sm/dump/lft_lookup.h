// Reading one entry of the unicast forwarding tables the writers take.
#pragma once

#include <cstdint>
#include <vector>

#include "sm/fabric/fabric.h"

namespace ibsm::dump {

inline constexpr uint8_t kNoRoute = 0xFF;

// The port `lfts[node]` sends `lid` to; kNoRoute past the end of the table or
// of the set of tables.
inline uint8_t lft_port(const std::vector<std::vector<uint8_t>>& lfts, NodeIndex node, uint32_t lid) {
  if (node.value >= lfts.size()) return kNoRoute;
  const std::vector<uint8_t>& table = lfts[node.value];
  return lid < table.size() ? table[lid] : kNoRoute;
}

}  // namespace ibsm::dump
