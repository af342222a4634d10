#include "sm/manager/trap_filter.h"

namespace ibsm {

bool TrapVerdict::milestone() const {
  const uint64_t n = earlier + 1;
  if (n < 10) return false;
  uint64_t p = 10;
  while (p < n) p *= 10;
  return p == n;
}

TrapVerdict TrapFilter::note(Lid source, const wire::Notice& notice, Micros now) {
  Key key{source.value, {}};
  wire::encode(notice, key.second);
  auto it = series_.find(key);
  if (it != series_.end() && now - it->second.last >= options_.window) {
    // The series ended before this one came, which starts a new one (and
    // is acted on, so what the old one owed is paid).
    series_.erase(it);
    it = series_.end();
  }
  if (it == series_.end()) {
    if (series_.size() < options_.max_series) series_.emplace(key, Series{now, 1, false});
    return TrapVerdict{};
  }
  Series& s = it->second;
  TrapVerdict v;
  v.earlier = s.count;
  v.act = s.count <= options_.act_limit;
  ++s.count;
  s.last = now;  // the aging restarts at every repeat
  ++counters_.repeats;
  if (!v.act) {
    s.ignored = true;
    ++counters_.ignored;
  }
  return v;
}

void TrapFilter::sweep_started() {
  for (auto& [key, s] : series_) s.ignored = false;
}

bool TrapFilter::take_owed_sweep(Micros now) {
  bool owed = false;
  for (auto it = series_.begin(); it != series_.end();) {
    if (now - it->second.last < options_.window) {
      ++it;
      continue;
    }
    if (it->second.ignored) {
      owed = true;
      ++counters_.owed_sweeps;
    }
    it = series_.erase(it);
  }
  return owed;
}

std::optional<Micros> TrapFilter::next_deadline() const {
  std::optional<Micros> t;
  for (const auto& [key, s] : series_)
    if (s.ignored && (!t || s.last + options_.window < *t)) t = s.last + options_.window;
  return t;
}

}  // namespace ibsm
