// Reads OpenSM's partitions.conf, so operators can bring theirs unchanged.
// The result is the file as data; which ports end up in which P_Key table,
// and the multicast groups created from it, are decided by the P_Key manager.
//
// The grammar is OpenSM's (doc/partition-config.txt, the opensm(8) section
// PARTITION CONFIGURATION, and what opensm/osm_prtn_config.c accepts):
//
//   file       := { definition }
//   definition := header ':' properties ';'
//   header     := [name] ['=' pkey] { ',' flag ['=' value] }
//   properties := { member | group } with members separated by ','
//   member     := (ALL | ALL_CAS | ALL_SWITCHES | ALL_ROUTERS | SELF | guid)
//                 ['=' full|limited|both]
//   group      := 'mgid=' gid { ',' group flag }   -- runs to the end of its line
//
//  - '#' starts a comment up to the end of the line. Blanks and line breaks may
//    stand anywhere between items, so a definition may span lines; OpenSM has
//    no line continuation character and neither has this reader. Several
//    definitions may share a line.
//  - The P_Key is a C number (0x.. hex, 0.. octal, else decimal) of at most
//    16 bits. Like OpenSM, the top bit (the membership bit of a P_Key table
//    entry) is dropped, so 0x8001 reads as 0x0001; members get their
//    membership from full/limited/both, never from the file's P_Key. A bare
//    number as header ("0x10 : ALL;") is the P_Key of a nameless partition.
//  - Partition flags: ipoib, indx0, defmember=full|limited|both, and the group
//    flags mtu=, rate=, sl=, scope=, Q_Key=, TClass=, FlowLabel= (the IPoIB
//    broadcast group's). A group line takes the same group flags. mtu and
//    rate take the IBA codes or names (ib_rate_mtu.h); scope may be given
//    more than once, as OpenSM documents (one group per scope).
//  - Membership words may be abbreviated as OpenSM allows ("=limi" in its own
//    example means limited). Keywords and flag names must be spelled out.
//  - "NONE" as a member adds nothing (osm_prtn_config.c skips it), and an
//    empty member list is a partition without ports.
//
//  - Definitions that share a P_Key are joined into one partition, as OpenSM
//    joins them (its split ShareIO example): members and groups added, flags
//    the first left unset taken from the later one.
//
// Stricter than OpenSM, which warns and carries on: an unknown flag, a bad
// flag value, a bad membership word, one P_Key under two names, a flag given
// two values for one P_Key, a name used for two P_Keys, an omitted P_Key
// (OpenSM makes one up) and a P_Key of 0 are errors. Errors name "source:line:" and every error in the
// file is reported, one per line, in one Status; nothing is returned then.
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm {

// A port's membership of a partition (the top bit of its P_Key entry).
// both: a full and a limited entry (OpenSM's allow_both_pkeys).
enum class Membership : uint8_t { limited, full, both };

struct PartitionMember {
  enum class Kind : uint8_t { all, all_cas, all_switches, all_routers, self, guid };
  Kind kind = Kind::guid;
  Guid guid;  // Kind::guid only
  // Unset: the partition's defmember.
  std::optional<Membership> membership;
  int line = 0;
};

// The flags of a multicast group: the partition's IPoIB broadcast group, or a
// group listed with mgid=. Unset means not written in the file: a group line
// inherits the partition's value, else OpenSM's defaults apply (mtu 4, rate 3,
// sl 0, scope 2) -- decided where the groups are made, not here.
struct PartitionGroupFlags {
  std::optional<uint8_t> mtu;   // IBA MTU code 1-5
  std::optional<uint8_t> rate;  // IBA rate code 2-24
  std::optional<uint8_t> sl;    // 0-15
  uint16_t scope_mask = 0;      // bit n: scope n (1-15) given; 0: none given
  std::optional<uint32_t> q_key;
  std::optional<uint8_t> tclass;
  std::optional<uint32_t> flow_label;  // 20 bits
};

struct PartitionGroup {
  std::array<uint8_t, 16> mgid{};  // network order, mgid[0] == 0xff
  PartitionGroupFlags flags;
  int line = 0;
};

struct Partition {
  std::string name;   // may be empty, as in OpenSM
  uint16_t pkey = 0;  // 15 bits, never 0
  bool ipoib = false;
  bool indx0 = false;  // put this P_Key at index 0 of the P_Key table
  PartitionGroupFlags flags;  // the IPoIB broadcast group's
  Membership defmember = Membership::limited;  // OpenSM's default
  std::vector<PartitionMember> members;
  std::vector<PartitionGroup> groups;
  int line = 0;  // where the definition starts
};

struct PartitionConfig {
  std::vector<Partition> partitions;  // in file order
};

// OpenSM's part_enforce: which directions a switch port facing a CA or
// router filters by its P_Key table (PortInfo:PartitionEnforcementInbound/
// Outbound, IBA 14.2.5.6); off leaves both bits clear.
enum class PartEnforce : uint8_t { both, in, out, off };
std::string_view part_enforce_name(PartEnforce e);
std::optional<PartEnforce> parse_part_enforce(std::string_view word);

// How the partitions are applied (OpenSM's option names and defaults).
struct PartitionOptions {
  PartEnforce enforce = PartEnforce::both;
  // allow_both_pkeys: a port may hold a partition's key twice, full and
  // limited (member flag "both"); off, "both" means full.
  bool allow_both_pkeys = false;
};

Result<PartitionConfig> read_partitions_conf(std::istream& in, std::string_view source_name);

}  // namespace ibsm
