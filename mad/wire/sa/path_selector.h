// The selectors of PathRecord, MultiPathRecord and MCMemberRecord (IBA
// 15.2.5): 2 bits in front of MTU, Rate and PacketLifeTime that say how a
// query's value is to be met.
#pragma once

#include <cstdint>

namespace ibsm::wire::sa_selector {
inline constexpr uint8_t greater_than = 0;
inline constexpr uint8_t less_than = 1;
inline constexpr uint8_t exactly = 2;
inline constexpr uint8_t largest = 3;   // MTU and Rate: the largest available
inline constexpr uint8_t smallest = 3;  // PacketLifeTime: the smallest available
}  // namespace ibsm::wire::sa_selector
