// A switch's LFT as the SM remembers it between sweeps (SwitchMemory::lft).
// After a sweep that programmed the switch, the table is the row the
// sweep's SubnetSnapshot records (SharedLfts::share), so it is not copied.
// At 42k LIDs a copy of every switch's table is 148 MB, the largest single
// cost of a bring-up after the tables themselves. A table read from a
// switch or loaded from the cache is the memory's own. An edit copies a
// shared table first (copy on write), so a snapshot never changes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace ibsm {

class RememberedLft {
 public:
  RememberedLft() = default;
  RememberedLft(std::vector<uint8_t> entries)  // NOLINT(google-explicit-constructor): a table is a value
      : table_(std::make_shared<std::vector<uint8_t>>(std::move(entries))), own_(true) {}
  RememberedLft(std::initializer_list<uint8_t> entries) : RememberedLft(std::vector<uint8_t>(entries)) {}

  // The table `entries` points to, owned by whoever `entries` shares
  // ownership with (a SubnetSnapshot); never written through.
  static RememberedLft shared(std::shared_ptr<const std::vector<uint8_t>> entries) {
    RememberedLft r;
    r.table_ = std::move(entries);
    return r;
  }

  bool empty() const { return !table_ || table_->empty(); }
  size_t size() const { return table_ ? table_->size() : 0; }
  uint8_t operator[](size_t lid) const { return (*table_)[lid]; }
  std::span<const uint8_t> entries() const {
    return table_ ? std::span<const uint8_t>(*table_) : std::span<const uint8_t>();
  }
  bool operator==(const std::vector<uint8_t>& other) const { return std::ranges::equal(entries(), other); }
  bool operator==(const RememberedLft& other) const { return std::ranges::equal(entries(), other.entries()); }

  // The table to write into: a copy first unless the memory alone holds one
  // of its own (a SweepState copied for the cache writer shares it too).
  std::vector<uint8_t>& edit() {
    if (!own_ || table_.use_count() != 1) {
      table_ = std::make_shared<std::vector<uint8_t>>(table_ ? *table_ : std::vector<uint8_t>{});
      own_ = true;
    }
    // Made non-const above (make_shared<std::vector>): writing is allowed.
    return const_cast<std::vector<uint8_t>&>(*table_);
  }
  void clear() {
    table_.reset();
    own_ = false;
  }

 private:
  std::shared_ptr<const std::vector<uint8_t>> table_;
  bool own_ = false;  // table_ was made here, non-const
};

}  // namespace ibsm
