// The unicast LID space during one LID assignment: which port holds each LID
// and which GUID the persisted guid2lid map reserves it for. Flat arrays over
// 0..0xBFFF (under 0.5 MB), so every question is O(LIDs asked about) and a
// 48k-port fabric is assigned in linear time.
#pragma once

#include <cassert>
#include <cstdint>
#include <optional>
#include <vector>

#include "mad/base/types.h"

namespace ibsm {

class LidSpace {
 public:
  static constexpr uint32_t kNoOwner = UINT32_MAX;

  // Only LIDs in [first, last] can be handed out (1 <= first <= last <= 0xBFFF).
  LidSpace(uint16_t first, uint16_t last);

  uint16_t first() const { return first_; }
  uint16_t last() const { return last_; }
  // [base, base + count - 1] lies inside [first, last].
  bool in_range(uint32_t base, uint32_t count) const {
    return count > 0 && base >= first_ && base + count - 1 <= last_;
  }

  // The port (caller's index) that holds `lid`, or kNoOwner.
  uint32_t owner(uint16_t lid) const { return owner_[lid]; }
  // The GUID the persisted map reserves `lid` for; zero when none.
  Guid reserved_for(uint16_t lid) const { return Guid{reserved_[lid]}; }

  // Every LID of the block is held by nobody.
  bool unowned(uint16_t base, uint32_t count) const;
  // The first LID of the block reserved for a GUID other than `guid`, if any.
  std::optional<uint16_t> reserved_for_other(uint16_t base, uint32_t count, Guid guid) const;

  void take(uint16_t base, uint32_t count, uint32_t port);
  void reserve(uint16_t base, uint32_t count, Guid guid);
  // Drops the reservations of `guid` inside the block (others' stay).
  void release(uint16_t base, uint32_t count, Guid guid);

  // The lowest block of `count` LIDs (a power of two) that starts at a
  // multiple of `count`, lies in range and is neither held nor reserved.
  // Successive calls for the same count resume where the last one stopped:
  // call it only once all reservations are final (take() may come between).
  std::optional<uint16_t> lowest_free_block(uint32_t count);

 private:
  uint16_t first_;
  uint16_t last_;
  std::vector<uint32_t> owner_;
  std::vector<uint64_t> reserved_;
  uint32_t cursor_[8] = {};  // by log2(count): where the next search starts
};

}  // namespace ibsm
