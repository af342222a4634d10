// Linear forwarding tables (IBA 14.2.5.10): one row per switch, indexed by
// LID, holding the out-port (0: the switch itself; kNoRoute: none). Rows are
// kept by NodeIndex, empty for CAs and routers.
//
// Two holders:
//  - std::vector<std::vector<uint8_t>>: what an engine fills in
//    (routing::UnicastTables), plain and fast to write.
//  - SharedLfts: what a sweep leaves behind (SweepRoutes, SubnetSnapshot).
//    Each row is shared and copied on write. One cable changed on a 42k-LID
//    fabric changes a few thousand of 148M entries, on a handful of
//    switches; the incremental sweep starts from the last sweep's tables
//    while the SA and the SM's memory of each switch still read them, and a
//    copy of every row cost 148 MB of fresh pages per event (bench/reroute.sh
//    on the k=34 fat tree).
//
// LftSet reads either without copying (the checker, the tracer, the dumps).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace ibsm {

// An LFT entry with no route (IBA 14.2.5.10: 255 drops the packet).
inline constexpr uint8_t kNoRoute = 0xFF;

using LftRow = std::vector<uint8_t>;

// The entry of `lft` for `lid`, or kNoRoute when the LID is past the table:
// a table holds entries up to its top LID only.
constexpr uint8_t lft_entry(std::span<const uint8_t> lft, size_t lid) {
  return lid < lft.size() ? lft[lid] : kNoRoute;
}

class SharedLfts {
 public:
  SharedLfts() = default;
  explicit SharedLfts(size_t rows) : rows_(rows) {}
  // Takes each row's entries (no copy of them).
  SharedLfts(std::vector<LftRow> rows)  // NOLINT(google-explicit-constructor): the same tables
  {
    rows_.reserve(rows.size());
    for (LftRow& row : rows) rows_.push_back(row.empty() ? nullptr : std::make_shared<LftRow>(std::move(row)));
  }
  SharedLfts(std::initializer_list<LftRow> rows) : SharedLfts(std::vector<LftRow>(rows)) {}

  size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  void resize(size_t n) { rows_.resize(n); }

  // Row i; an empty row where there is none.
  const LftRow& operator[](size_t i) const { return rows_[i] ? *rows_[i] : kEmpty; }

  // Row i to write into: copied first when anything else shares it.
  LftRow& edit(size_t i) {
    std::shared_ptr<LftRow>& row = rows_[i];
    if (!row) {
      row = std::make_shared<LftRow>();
    } else if (row.use_count() != 1) {
      row = std::make_shared<LftRow>(*row);
    }
    return *row;
  }
  void assign(size_t i, LftRow row) { rows_[i] = row.empty() ? nullptr : std::make_shared<LftRow>(std::move(row)); }

  // Row i shared (null when there is none): whoever holds it sees it as it
  // is now, whatever is edited here later.
  std::shared_ptr<const LftRow> share(size_t i) const { return rows_[i]; }
  // Row j of `from` becomes row i here, shared.
  void share_from(size_t i, const SharedLfts& from, size_t j) { rows_[i] = from.rows_[j]; }
  // Whether row i here and row j of `other` are the same memory.
  bool same_row(size_t i, const SharedLfts& other, size_t j) const {
    return rows_[i] && rows_[i] == other.rows_[j];
  }

  // A plain copy of every row (for an engine to write into).
  std::vector<LftRow> rows() const {
    std::vector<LftRow> out(rows_.size());
    for (size_t i = 0; i < rows_.size(); ++i)
      if (rows_[i]) out[i] = *rows_[i];
    return out;
  }

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = LftRow;
    using difference_type = std::ptrdiff_t;
    using pointer = const LftRow*;
    using reference = const LftRow&;
    const_iterator() = default;
    const_iterator(const SharedLfts* s, size_t i) : s_(s), i_(i) {}
    const LftRow& operator*() const { return (*s_)[i_]; }
    const_iterator& operator++() {
      ++i_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator was = *this;
      ++i_;
      return was;
    }
    bool operator==(const const_iterator& o) const { return i_ == o.i_; }

   private:
    const SharedLfts* s_ = nullptr;
    size_t i_ = 0;
  };
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, rows_.size()}; }

  friend bool operator==(const SharedLfts& a, const SharedLfts& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  friend bool operator==(const SharedLfts& a, const std::vector<LftRow>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i] != b[i]) return false;
    return true;
  }

 private:
  static inline const LftRow kEmpty{};
  std::vector<std::shared_ptr<LftRow>> rows_;  // null: no table
};

// LFTs by NodeIndex, read in place from either holder; both must outlive
// it. A switch whose row is missing or short drops the LIDs it does not
// cover.
class LftSet {
 public:
  LftSet() = default;
  LftSet(const std::vector<LftRow>& rows)  // NOLINT(google-explicit-constructor): a view
      : plain_(rows.data()), size_(rows.size()) {}
  LftSet(std::span<const LftRow> rows)  // NOLINT(google-explicit-constructor): a view
      : plain_(rows.data()), size_(rows.size()) {}
  LftSet(const SharedLfts& rows)  // NOLINT(google-explicit-constructor): a view
      : shared_(&rows), size_(rows.size()) {}

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const LftRow& operator[](size_t i) const { return plain_ ? plain_[i] : (*shared_)[i]; }
  // The port row `node` sends `lid` to; kNoRoute past the end of the table
  // or of the set.
  uint8_t port(size_t node, uint32_t lid) const {
    if (node >= size_) return kNoRoute;
    return lft_entry((*this)[node], lid);
  }

 private:
  const LftRow* plain_ = nullptr;
  const SharedLfts* shared_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ibsm
