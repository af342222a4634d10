// The same slice of LIDs out of many switches' LFT rows at once, for the
// passes that read every table a chunk of destinations at a time (the route
// checker, the CDG builder): 148 MB of rows on a 42k-LID fabric, read one or
// a few cache lines per row per chunk. Each row is its own allocation (and
// behind a shared pointer in SharedLfts), which the hardware prefetcher
// cannot follow from one row to the next; so the rows are gathered once as
// plain pointers, and each copy fetches the rows a few switches ahead.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "sm/fabric/fabric.h"
#include "sm/fabric/lfts.h"

namespace ibsm {

class LftSlices {
 public:
  LftSlices() = default;
  // The rows of `switches`, in that order (a node beyond `lfts` has none).
  LftSlices(LftSet lfts, std::span<const NodeIndex> switches) {
    rows_.reserve(switches.size());
    for (NodeIndex n : switches) {
      const LftRow* row = n.value < lfts.size() ? &lfts[n.value] : nullptr;
      rows_.push_back(row == nullptr ? std::span<const uint8_t>() : std::span<const uint8_t>(*row));
    }
  }

  // Row i's entry for `lid`: kNoRoute past its end.
  uint8_t at(size_t i, uint32_t lid) const { return lft_entry(rows_[i], lid); }

  // Entries [first, first + count) of every row into out[i * stride ...].
  void copy(uint32_t first, size_t count, uint8_t* out, size_t stride) const {
    constexpr size_t kAhead = 8;   // rows fetched ahead
    constexpr size_t kLine = 64;
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (i + kAhead < rows_.size() && first < rows_[i + kAhead].size()) {
        const uint8_t* ahead = rows_[i + kAhead].data() + first;
        const size_t span = std::min(count, rows_[i + kAhead].size() - first);
        for (size_t b = 0; b < span; b += kLine) __builtin_prefetch(ahead + b);
        __builtin_prefetch(ahead + span - 1);
      }
      uint8_t* to = out + i * stride;
      const std::span<const uint8_t> row = rows_[i];
      if (first + count <= row.size()) {
        std::memcpy(to, row.data() + first, count);
        continue;
      }
      for (size_t k = 0; k < count; ++k) to[k] = at(i, static_cast<uint32_t>(first + k));
    }
  }

 private:
  std::vector<std::span<const uint8_t>> rows_;
};

}  // namespace ibsm
