// What the SM remembers per port of one node (SweepState::ports and
// p_key_tables): a few entries, looked up by port number. A vector sorted by
// port, not a hash map: at the full LID space the SM remembers some 370k
// ports, and a hash map per node cost an allocation per port and a bucket
// array per node (some 80 MB and 750k allocations at 49k LIDs, made again
// for the copy the cache writer saves, and freed twice).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ibsm {

template <typename T>
class PortMap {
 public:
  using value_type = std::pair<uint8_t, T>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  const_iterator begin() const { return entries_.begin(); }
  const_iterator end() const { return entries_.end(); }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }

  iterator find(uint8_t port) {
    const iterator at = lower(port);
    return at != entries_.end() && at->first == port ? at : entries_.end();
  }
  const_iterator find(uint8_t port) const {
    const const_iterator at = first_not_below(entries_, port);
    return at != entries_.end() && at->first == port ? at : entries_.end();
  }
  size_t count(uint8_t port) const { return find(port) == end() ? 0 : 1; }

  // The entry of `port`, made (value-initialized) if there is none.
  T& operator[](uint8_t port) {
    iterator at = lower(port);
    if (at == entries_.end() || at->first != port) at = entries_.insert(at, value_type{port, T{}});
    return at->second;
  }
  // The entry of `port`, which must be there (asserted: the core does not
  // throw; use find where a port may be missing).
  T& at(uint8_t port) {
    const iterator it = find(port);
    assert(it != end() && "PortMap::at: no such port");
    return it->second;
  }
  const T& at(uint8_t port) const {
    const const_iterator it = find(port);
    assert(it != end() && "PortMap::at: no such port");
    return it->second;
  }

  iterator erase(const_iterator it) { return entries_.erase(it); }
  size_t erase(uint8_t port) {
    const iterator it = find(port);
    if (it == end()) return 0;
    entries_.erase(it);
    return 1;
  }

  bool operator==(const PortMap&) const = default;

 private:
  // The first entry at or after `port`, in `entries` (const or not).
  template <typename Entries>
  static auto first_not_below(Entries& entries, uint8_t port) {
    return std::lower_bound(entries.begin(), entries.end(), port,
                            [](const value_type& e, uint8_t p) { return e.first < p; });
  }
  iterator lower(uint8_t port) {
    // Ports mostly come in ascending order: check the back first.
    if (entries_.empty() || entries_.back().first < port) return entries_.end();
    return first_not_below(entries_, port);
  }

  std::vector<value_type> entries_;  // by port, ascending
};

}  // namespace ibsm
