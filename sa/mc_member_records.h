// MCMemberRecord (IBA 15.2.5.17, with the A14 errata's SendOnlyFullMember):
// joining (Set), leaving (Delete) and finding (Get, GetTable) multicast
// groups, over the group database of mc_groups.h. Statuses follow OpenSM
// where it answers the spec's meaning (osm_sa_mcmember_record.c).
//
// Set and Delete:
//  - MGID, PortGID and JoinState must be selected (o15-0.1.x "join"
//    components): else ERR_REQ_INSUFFICIENT_COMPONENTS. A mask bit that names
//    no component, a selected MTU or Rate (with its selector) that is no
//    code: ERR_REQ_INVALID.
//  - PortGID must be a port of the subnet, the requester too: ERR_REQ_INVALID.
//  - A proxy join (PortGID another port than the requester's) needs the SM_Key
//    (SaQuery::trusted): ERR_REQ_INVALID otherwise (OpenSM lets any port of
//    a shared partition do it; the spec leaves who may proxy to the SA, and a
//    stranger adding ports to a group is what the SM_Key is for). The member
//    then carries ProxyJoin.
//  - A stored member is changed by its own port (no ProxyJoin) or by a port
//    of the group's partition (ProxyJoin), o15-0.2.1; trusted requests always.
// Set (join or create, o15-0.2.3/0.2.4):
//  - JoinState 0: ERR_REQ_INVALID. A selected P_Key of partition 0: ERR_REQ_INVALID.
//  - The joining port must hold the group's P_Key (port_has_pkey): ERR_REQ_INVALID.
//  - Existing group: every selected component must be the group's (Q_Key,
//    P_Key, TClass, SL, FlowLabel, HopLimit, Scope, MLID); the MTU, Rate and
//    PacketLifeTime selectors must be met by the group's values; and the
//    port's MTUCap and rate must reach the group's MTU and rate (OpenSM's
//    validate_port_caps): else ERR_REQ_INVALID.
//  - No such group: creating needs FullMember or SendOnlyFullMember in
//    JoinState (ERR_REQ_INVALID) and Q_Key, P_Key, SL, FlowLabel, TClass
//    selected (ERR_REQ_INSUFFICIENT_COMPONENTS, as OpenSM's create mask).
//    A given MGID must be multicast (0xFF) with reserved flag bits 0, and
//    not the SA's signature 0xA01B with link-local scope; IPoIB MGIDs
//    (0x401B, 0x601B) skip the flag check: else ERR_REQ_INVALID. The group's
//    Scope is its MGID's scope nibble, whatever Scope the request selects:
//    OpenSM does not compare the two, and osmtest -f m creates a group with
//    MGID scope 15 and Scope 2 and expects success. A zero MGID asks the SA for
//    one: ff1<scope>:a01b:<subnet prefix>:<counter> (scope from Scope, else
//    link-local, OpenSM's signature). MTU and Rate come from the request's
//    selector against the joining port's MTUCap and rate (largest, or none
//    selected: the port's own), ERR_REQ_INVALID when unrealizable;
//    PacketLifeTime selected "exactly" (or without its selector) is taken,
//    else the subnet's. No MLID free: ERR_NO_RESOURCES. Trap 66 follows.
//  - Answer: the request with the group's properties, selectors "exactly",
//    and the member's JoinState now (the old bits and the new).
// Delete (leave, o15-0.1.14): the group and the member must exist, the
// request's JoinState must be non-zero and within the member's: else
// ERR_REQ_INVALID. The bits are cleared; see mc_groups.h for when the
// member and the group go (trap 67). Answer: as Set's, with the JoinState
// the member has left (0 when it is gone).
//
// Get/GetTable (groups in MGID order, members in port GUID order):
//  - an untrusted requester sees only groups whose P_Key its port holds;
//  - the group's components are matched by value, MTU/Rate/PacketLifeTime
//    by their selectors when selected; PortGID, JoinState and ProxyJoin
//    against the members;
//  - PortGID selected: that member's record. Not selected: trusted, one
//    record per matching member; untrusted, one record per group (every
//    group, members or not, when JoinState and ProxyJoin are not selected;
//    else the groups with a matching member);
//  - untrusted answers carry PortGID, JoinState and ProxyJoin zero (IBA
//    15.2.5.17: "shall be zero, except in the case of a trusted request").
//    This is what OpenSM answers: `saquery -g` and `saquery -m` list one
//    record per group with zero GIDs unless given --smkey.
//
// set_snapshot() removes members whose ports left (which may delete groups,
// trap 67), follows members' PortRefs into the new snapshot, and creates the
// predefined groups (mc_predefined.h) of the partitions configuration. A new
// configuration (set_partitions) adds the groups it defines and lets go of
// those it no longer does (they become ordinary groups: deleted at once
// without full members, else when the last leaves).
//
// import() installs the records another SA answered to a trusted GetTable
// (sa/mirror.h), in place of every group held: each group with its MLID and
// properties, each member whose port is in `snapshot` (others dropped).
// Records of one MGID with other properties than its first, or an MLID taken
// by another MGID, are dropped. Then the predefined groups missing from the
// import are created at free MLIDs (a master's predefined group without
// members has no record to import; with the same configuration and no
// group created before them, both SMs number them alike). No traps.
#pragma once

#include <memory>
#include <vector>

#include "mad/base/log.h"
#include "mad/wire/sa/mc_member_record.h"
#include "sa/mc_groups.h"
#include "sa/query.h"
#include "sa/registrations.h"
#include "sa/snapshot.h"
#include "sm/fabric/partitions_conf.h"

namespace ibsm::sa {

class MulticastRegistry {
 public:
  explicit MulticastRegistry(McGroupsOptions options = {}, LogSink& log = null_log_sink())
      : groups_(options), configured_max_mlid_(options.max_mlid), log_(log) {}

  // Set, Delete, Get and GetTable of MCMemberRecord.
  SaQueryResult handle(const SaSnapshot& snapshot, const SaQuery& query);

  // See the header comment. `config` nullptr: the built-in default partition.
  void set_partitions(std::shared_ptr<const PartitionConfig> config, const SaSnapshot* snapshot);
  void set_snapshot(const SaSnapshot& snapshot);
  ImportResult import(const std::vector<wire::McMemberRecord>& records, const SaSnapshot& snapshot);
  // One record per member of every group, as a trusted GetTable answers
  // them (MLIDs, PortGIDs and JoinStates included), for the cache.
  std::vector<wire::McMemberRecord> records() const;
  // Members of every group.
  size_t member_count() const;

  const McGroups& groups() const { return groups_; }
  std::vector<Lid> take_changes() { return groups_.take_changes(); }
  std::vector<McEvent> take_events() { return groups_.take_events(); }

 private:
  SaQueryResult join(const SaSnapshot& s, const SaQuery& q);
  SaQueryResult leave(const SaSnapshot& s, const SaQuery& q);
  SaQueryResult get(const SaSnapshot& s, const SaQuery& q) const;
  void sync_predefined(const SaSnapshot& s);

  McGroups groups_;
  uint16_t configured_max_mlid_;  // McGroupsOptions::max_mlid; the switches may hold fewer
  LogSink& log_;
  std::shared_ptr<const PartitionConfig> partitions_;
  bool partitions_synced_ = false;  // the predefined groups follow partitions_
  uint32_t mgid_counter_ = 0;       // the last part of SA-assigned MGIDs
};

}  // namespace ibsm::sa
