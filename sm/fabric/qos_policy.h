// OpenSM's QoS policy file (qos-policy.conf, `qos_policy_file`), parsed from
// text (the edge reads the file): which QoS level — an SL and optionally MTU,
// rate and packet lifetime limits, P_Keys and path bits — a PathRecord
// between two ports gets (sa/qos_paths.h applies it).
// Sections, each optional, as OpenSM reads them:
//  - port-groups: named sets of ports by port-guid (values, ranges), by
//    port-name ("node description/P<port>", or the node description for
//    every port of the node), by node-type (CA, SWITCH, ROUTER, ALL, SELF)
//    and by partition (a partitions.conf partition's name: its members).
//  - qos-setup: vlarb-tables (vlarb-scope: group, across, vlarb-high,
//    vlarb-low, vl-high-limit) and sl2vl-tables (sl2vl-scope: group,
//    across-from, across-to, from, to, sl2vl-table). OpenSM parses and
//    ignores it; ibsm applies it over the qos_* keys (sm/sweep/vl_programming.h).
//  - qos-levels: name, use, sl (required), mtu-limit, rate-limit,
//    packet-life (IBA codes), pkey and path-bits (values, ranges).
//  - qos-match-rules: use, qos-class, source, destination (port group
//    names), service-id, pkey (values, ranges), qos-level-name.
//  - qos-ulps: "ULP[, KEY VALUE] : SL" lines. default (for what nothing else
//    matched), any (service-id, pkey, target-port-guid), sdp and rds and
//    iser (port-num: their service IDs 0x000000000001PPPP, 0x000000000106PPPP;
//    rds without a port 0x00000000010648CA, iser 0x0000000001060CBC), srp
//    (target-port-guid), ipoib (pkey, 0x7fff without one).
// Matching: the match rules in file order, then the ULP lines in order, then
// the default line, then a qos-level named DEFAULT; the first that matches
// wins. A rule field the request does not carry (a service-id rule and a
// PathRecord without ServiceID in its mask) does not match. P_Keys compare
// without the membership bit.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "sm/fabric/fabric.h"
#include "sm/fabric/partitions_conf.h"
#include "sm/fabric/qos_tables.h"

namespace ibsm {

struct QosRange {
  uint64_t lo = 0;
  uint64_t hi = 0;
  bool contains(uint64_t v) const { return lo <= v && v <= hi; }
};

struct QosPortGroup {
  std::string name;
  std::vector<QosRange> port_guids;
  std::vector<std::string> port_names;  // "desc/P1" or "desc"
  std::vector<std::string> partitions;  // partitions.conf names
  bool ca = false, switch_ = false, router = false, self = false;  // node-type
};

struct QosLevel {
  std::string name;
  uint8_t sl = 0;
  std::optional<uint8_t> mtu_limit;    // MTU code (IBA 15.2.5.16)
  std::optional<uint8_t> rate_limit;   // rate code
  std::optional<uint8_t> packet_life;  // PacketLifeTime code
  // The partitions a path of this level may carry (P_Keys compare without
  // the membership bit), in file order; empty: any.
  std::vector<QosRange> pkeys;
  // Which of a port's 2^LMC LIDs (by offset from its base LID) a path of
  // this level may use; empty: any.
  std::vector<QosRange> path_bits;
};

struct QosMatchRule {
  std::vector<QosRange> qos_class, service_id, pkey, target_port_guid;
  std::vector<size_t> source, destination;  // QosPolicy::port_groups indexes
  size_t level = 0;                         // QosPolicy::levels index
};

// qos-setup's scopes, in file order (a later scope wins where two apply).
// A VLArb scope applies to the ports of its groups (`group`) and to the
// switch ports cabled to them (`across`).
struct QosVlArbScope {
  std::vector<size_t> groups, across;  // port_groups indexes
  std::optional<VlArbTemplate> high, low;
  std::optional<uint8_t> high_limit;
};
// An SL2VL scope: CA ports of its groups get the table; a switch of its
// groups gets it on the (in, out) pairs `from` x `to` allow (empty: every
// port); across-from / across-to: switch pairs whose input / output port is
// cabled to a port of those groups.
struct QosSl2VlScope {
  std::vector<size_t> groups, across_from, across_to;
  std::vector<QosRange> from, to;  // port numbers
  Sl2VlTemplate table{};
};

struct QosPolicy {
  std::vector<QosPortGroup> port_groups;
  std::vector<QosLevel> levels;
  // The match rules, then the ULP lines (each with a level of its own), in
  // file order: the first match wins.
  std::vector<QosMatchRule> rules;
  // qos-ulps' default line, else a level named DEFAULT (QosPolicy::levels index).
  std::optional<size_t> default_level;
  std::vector<QosVlArbScope> vlarb_scopes;
  std::vector<QosSl2VlScope> sl2vl_scopes;
};

// Whether port `port` of `fabric` (a CA port, or a switch's port 0 for the
// switch) is in group `g`: by port GUID, port-name (NodeDescription/P<n>, or
// the description alone), node-type, SELF (`sm_port`) and partition (it
// holds the named partition's key: `holds_pkey`; null, or no `partitions`:
// never).
bool port_in_group(const QosPortGroup& g, const Fabric& fabric, PortRef port, PortRef sm_port,
                   const PartitionConfig* partitions, const std::function<bool(uint16_t pkey)>& holds_pkey);

// What a PathRecord request carries that a rule may match (unset: the
// component is not in the request's mask).
struct QosRequest {
  Guid source;       // port GUIDs
  Guid destination;
  std::optional<uint64_t> service_id;
  std::optional<uint16_t> pkey;
  std::optional<uint8_t> qos_class;
};

// What the matcher needs to know of a port.
struct QosPortFacts {
  // Whether port `guid` is in group `g` beyond its GUID ranges (names,
  // node types, partitions): the SA answers from its snapshot.
  std::function<bool(const QosPortGroup& g, Guid port)> member;
};

// The level of the first rule that matches, else the default; nullptr: no
// policy level (the path keeps its own SL and limits).
const QosLevel* match_qos_level(const QosPolicy& policy, const QosRequest& request, const QosPortFacts& facts);

// Parses a whole file; an error names `source_name`:line and the problem.
Result<QosPolicy> parse_qos_policy(std::istream& in, std::string_view source_name);

}  // namespace ibsm
