// The SA's multicast group database (IBA 15.2.5.17 MCMemberRecord): groups by
// MGID with their properties and MLID, and their members by port GUID with
// JoinState and ProxyJoin. The rules of who may join or leave, and how, live
// in mc_member_records.h; this is the bookkeeping they share with the SM.
//
// MLIDs are the multicast LIDs 0xC000 up to max_mlid (0xFFFF is the
// permissive LID, never a group's, IBA 4.1.2). A new group takes the lowest
// free one; a deleted group's MLID is free again at once, so the count of
// MLIDs in use is always the count of groups (no leak, whatever the order of
// joins and leaves: OpenSM's PR #43 leaked one per send-only full member
// that left partially).
//
// Life of a group (IBA 15.2.5.17, o15-0.1.9 and the SendOnlyFullMember
// errata of IBA 1.3; OpenSM's full_members count since "send only full
// member multicast joins"): it is kept alive by its full members, where a
// member with JoinState FullMember or SendOnlyFullMember counts as full.
// When the last of them leaves (a leave, or its port leaving the subnet),
// the members that remain (non-members, send-only non-members) are removed
// with it, and the group is deleted, unless it is predefined (the partitions'
// groups, which live as long as their configuration; OpenSM's "well known").
//
// What the SM needs (DESIGN.md: the SA declares it, the manager drives it):
//  - take_changes(): the MLIDs whose group was created or deleted, or whose
//    members or their JoinStates changed, since the last call, ascending;
//  - members(mlid): the ports of every member, every JoinState included (a
//    send-only member sends into the tree, so the tree must reach it too).
// And for the SA's traps: take_events() the creations (66) and deletions (67).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "mad/base/types.h"
#include "mad/wire/sa/mc_member_record.h"
#include "sm/fabric/fabric.h"

namespace ibsm::sa {

inline constexpr uint16_t first_mlid = 0xC000;
inline constexpr uint16_t last_mlid = 0xFFFE;

struct McGroupsOptions {
  // The highest MLID handed out (a fabric whose switches hold fewer MFT
  // entries wants less). Beyond it a new group gets ERR_NO_RESOURCES.
  uint16_t max_mlid = last_mlid;
};

// True for the JoinStates that keep a group alive (see the header comment).
constexpr bool is_full_join(uint8_t join_state) {
  return (join_state & (wire::mc_join_state::full_member | wire::mc_join_state::send_only_full_member)) != 0;
}

struct McMember {
  wire::Gid port_gid;
  PortRef port;            // in the snapshot the member was last seen in
  uint8_t join_state = 0;  // wire::mc_join_state bits, never 0 while a member
  bool proxy_join = false;
};

struct McGroup {
  // The group's properties as every record of it answers them: MGID, MLID,
  // Q_Key, P_Key, MTU, Rate, PacketLifeTime (selectors "exactly"), TClass,
  // SL, FlowLabel, HopLimit, Scope. PortGID, JoinState, ProxyJoin are zero.
  wire::McMemberRecord properties;
  bool predefined = false;
  std::map<uint64_t, McMember> members;  // by port GUID (OpenSM's order)

  size_t full_members() const;
};

// A group created (trap 66) or deleted (trap 67), in the order they happened.
struct McEvent {
  uint16_t trap = 0;
  wire::Gid mgid;
  bool operator==(const McEvent&) const = default;
};

class McGroups {
 public:
  using Mgid = std::array<uint8_t, 16>;

  explicit McGroups(McGroupsOptions options = {}) : options_(options) {}

  // A new group with `properties` (its MLID ignored), at the lowest free
  // MLID; nullptr when the MGID is taken or no MLID is free.
  McGroup* create(const wire::McMemberRecord& properties, bool predefined);
  // The same at exactly `mlid` (an import): nullptr when the MGID or the MLID
  // is taken or the MLID is no multicast LID of this database.
  McGroup* create_at(const wire::McMemberRecord& properties, Lid mlid, bool predefined);

  McGroup* find(const wire::Gid& mgid);
  const McGroup* find(const wire::Gid& mgid) const;
  const McGroup* by_mlid(Lid mlid) const;

  // Adds the member or ORs `join_state` into its JoinState.
  void join(McGroup& g, const McMember& member);
  // Clears `join_state` bits of the member with `port_guid`, removing it when
  // none remain, and deletes the group when that took its last full member
  // (see the header comment). Returns true when the group was deleted; `g`
  // is then gone.
  bool leave(McGroup& g, uint64_t port_guid, uint8_t join_state);
  // Removes a group with all its members.
  void erase(McGroup& g);
  // A group that lost its last full member: its other members go, and so
  // does the group unless it is predefined. True when it was deleted.
  bool cleanup(McGroup& g);

  // Every group, ascending MGID.
  const std::map<Mgid, McGroup>& groups() const { return groups_; }
  std::map<Mgid, McGroup>& groups() { return groups_; }
  size_t size() const { return groups_.size(); }
  size_t mlids_in_use() const { return by_mlid_.size(); }
  void clear();

  // The ports of every member of the group at `mlid` (none for no group).
  std::vector<PortRef> members(Lid mlid) const;
  std::vector<Lid> take_changes();
  std::vector<McEvent> take_events();
  // The highest MLID new groups may take from now on (groups above it stay).
  void set_max_mlid(uint16_t max_mlid) { options_.max_mlid = max_mlid; }
  uint16_t max_mlid() const { return options_.max_mlid; }
  // Marks a group's MLID changed (its members' ports moved, say).
  void touch(const McGroup& g) { changed_.insert(g.properties.mlid.value); }

 private:
  std::optional<uint16_t> allocate_mlid();
  void release_mlid(uint16_t mlid);

  McGroupsOptions options_;
  std::map<Mgid, McGroup> groups_;
  std::map<uint16_t, Mgid> by_mlid_;
  // Free MLIDs below next_mlid_; every MLID from next_mlid_ up is free.
  std::set<uint16_t> released_;
  uint32_t next_mlid_ = first_mlid;
  std::set<uint16_t> changed_;
  std::vector<McEvent> events_;
};

}  // namespace ibsm::sa
