#include "sa/mc_groups.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "mad/wire/notice.h"

namespace ibsm::sa {

size_t McGroup::full_members() const {
  return static_cast<size_t>(
      std::count_if(members.begin(), members.end(), [](const auto& m) { return is_full_join(m.second.join_state); }));
}

std::optional<uint16_t> McGroups::allocate_mlid() {
  if (!released_.empty()) {
    const uint16_t mlid = *released_.begin();
    if (mlid > options_.max_mlid) return std::nullopt;
    released_.erase(released_.begin());
    return mlid;
  }
  if (next_mlid_ > options_.max_mlid) return std::nullopt;
  return static_cast<uint16_t>(next_mlid_++);
}

void McGroups::release_mlid(uint16_t mlid) {
  if (mlid + 1u == next_mlid_) {
    // The top one: lower the mark, and with it every free MLID just below.
    --next_mlid_;
    while (!released_.empty() && *released_.rbegin() + 1u == next_mlid_) {
      released_.erase(std::prev(released_.end()));
      --next_mlid_;
    }
  } else {
    released_.insert(mlid);
  }
}

McGroup* McGroups::create(const wire::McMemberRecord& properties, bool predefined) {
  if (groups_.count(properties.mgid.raw) != 0) return nullptr;
  const auto mlid = allocate_mlid();
  if (!mlid) return nullptr;
  McGroup g;
  g.properties = properties;
  g.properties.mlid = Lid{*mlid};
  g.predefined = predefined;
  auto [it, inserted] = groups_.emplace(properties.mgid.raw, std::move(g));
  by_mlid_.emplace(*mlid, properties.mgid.raw);
  changed_.insert(*mlid);
  events_.push_back({wire::trap_number::mcast_group_created, properties.mgid});
  return &it->second;
}

McGroup* McGroups::create_at(const wire::McMemberRecord& properties, Lid mlid, bool predefined) {
  if (mlid.value < first_mlid || mlid.value > options_.max_mlid) return nullptr;
  if (groups_.count(properties.mgid.raw) != 0 || by_mlid_.count(mlid.value) != 0) return nullptr;
  // Take `mlid` out of the free MLIDs: below the mark it is in released_;
  // at or above, the ones between the mark and it become released.
  if (mlid.value < next_mlid_) {
    released_.erase(mlid.value);
  } else {
    for (uint32_t m = next_mlid_; m < mlid.value; ++m) released_.insert(static_cast<uint16_t>(m));
    next_mlid_ = mlid.value + 1u;
  }
  McGroup g;
  g.properties = properties;
  g.properties.mlid = mlid;
  g.predefined = predefined;
  auto [it, inserted] = groups_.emplace(properties.mgid.raw, std::move(g));
  by_mlid_.emplace(mlid.value, properties.mgid.raw);
  changed_.insert(mlid.value);
  events_.push_back({wire::trap_number::mcast_group_created, properties.mgid});
  return &it->second;
}

McGroup* McGroups::find(const wire::Gid& mgid) {
  auto it = groups_.find(mgid.raw);
  return it == groups_.end() ? nullptr : &it->second;
}

const McGroup* McGroups::find(const wire::Gid& mgid) const {
  auto it = groups_.find(mgid.raw);
  return it == groups_.end() ? nullptr : &it->second;
}

const McGroup* McGroups::by_mlid(Lid mlid) const {
  auto it = by_mlid_.find(mlid.value);
  return it == by_mlid_.end() ? nullptr : find(wire::Gid{it->second});
}

void McGroups::join(McGroup& g, const McMember& member) {
  auto [it, inserted] = g.members.emplace(member.port_gid.interface_id(), member);
  if (!inserted) {
    const uint8_t before = it->second.join_state;
    it->second.join_state |= member.join_state;
    if (it->second.join_state == before) return;
  }
  changed_.insert(g.properties.mlid.value);
}

bool McGroups::leave(McGroup& g, uint64_t port_guid, uint8_t join_state) {
  auto it = g.members.find(port_guid);
  if (it == g.members.end()) return false;
  const bool was_full = is_full_join(it->second.join_state);
  it->second.join_state &= static_cast<uint8_t>(~join_state);
  if (it->second.join_state == 0) g.members.erase(it);
  changed_.insert(g.properties.mlid.value);
  if (was_full && g.full_members() == 0) return cleanup(g);
  return false;
}

bool McGroups::cleanup(McGroup& g) {
  if (g.full_members() != 0) return false;
  if (!g.members.empty()) changed_.insert(g.properties.mlid.value);
  g.members.clear();
  if (g.predefined) return false;
  erase(g);
  return true;
}

void McGroups::erase(McGroup& g) {
  const uint16_t mlid = g.properties.mlid.value;
  const wire::Gid mgid = g.properties.mgid;
  by_mlid_.erase(mlid);
  groups_.erase(mgid.raw);  // `g` is gone from here on
  release_mlid(mlid);
  changed_.insert(mlid);
  events_.push_back({wire::trap_number::mcast_group_deleted, mgid});
}

void McGroups::clear() {
  while (!groups_.empty()) erase(groups_.begin()->second);
}

std::vector<PortRef> McGroups::members(Lid mlid) const {
  std::vector<PortRef> out;
  if (const McGroup* g = by_mlid(mlid)) {
    out.reserve(g->members.size());
    for (const auto& [guid, m] : g->members) out.push_back(m.port);
  }
  return out;
}

std::vector<Lid> McGroups::take_changes() {
  std::vector<Lid> out;
  out.reserve(changed_.size());
  for (uint16_t m : changed_) out.push_back(Lid{m});
  changed_.clear();
  return out;
}

std::vector<McEvent> McGroups::take_events() { return std::exchange(events_, {}); }

}  // namespace ibsm::sa
