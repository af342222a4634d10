// The multicast groups the partitions configuration defines, which exist from
// the first snapshot on without anyone joining (OpenSM's osm_prtn.c and
// osm_prtn_config.c, by their observable behaviour):
//  - every partition flagged ipoib: its IPoIB broadcast group, MGID
//    ff1<scope>:401b:<P_Key>::ffff:ffff (RFC 4391 with the full-member P_Key,
//    so the default partition's is ff12:401b:ffff::ffff:ffff), one per scope
//    given (scope 2, link-local, when none is). OpenSM creates no other IPoIB
//    group for a partition (no all-nodes ::1 groups): IPoIB joins those itself.
//  - every mgid= line of a partition: that group, one per scope given
//    (none: the MGID's own scope). Its flags default to the partition's
//    (mtu, rate, sl, Q_Key, FlowLabel, scopes; TClass is not inherited). An
//    IP group (signature 0x401B or 0x601B) gets the partition's full-member
//    P_Key in MGID bytes 4-5 and Q_Key 0x0B1B unless given; one that names
//    another P_Key, or another mtu or rate than the partition's broadcast
//    group, is skipped (and listed in `skipped`), as OpenSM skips it.
//  - no configuration at all: OpenSM's built-in default partition 0x7FFF,
//    ipoib, every port a full member, hence its broadcast group.
// Properties: P_Key with the full-member bit, Q_Key 0x0B1B for IPoIB groups,
// MTU code 4 (2048), Rate code 3 (10 Gb/s) and SL 0 unless given,
// PacketLifeTime the subnet's, HopLimit 0 for link-local scope and 0xFF
// otherwise, selectors "exactly". A MGID listed twice keeps the first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mad/wire/sa/mc_member_record.h"
#include "sm/fabric/partitions_conf.h"

namespace ibsm::sa {

inline constexpr uint32_t ipoib_q_key = 0x0B1B;
inline constexpr uint8_t default_group_mtu = 4;   // 2048 bytes
inline constexpr uint8_t default_group_rate = 3;  // 10 Gb/s
inline constexpr uint8_t link_local_scope = 2;

struct PredefinedGroups {
  std::vector<wire::McMemberRecord> groups;
  std::vector<std::string> skipped;  // why each skipped group line was skipped
};

// `config` nullptr: the built-in default partition. `packet_life_time`: the
// subnet's (SaSnapshot::path_packet_life_time).
PredefinedGroups predefined_groups(const PartitionConfig* config, uint8_t packet_life_time);

// The multicast scope of a MGID (IBA 4.1.1: the low nibble of byte 1).
constexpr uint8_t mgid_scope(const wire::Gid& mgid) { return mgid.raw[1] & 0x0F; }

}  // namespace ibsm::sa
