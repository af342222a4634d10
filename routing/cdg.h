// The channel dependency graph (CDG) of a set of forwarding tables over a
// fabric snapshot, and whether it has a cycle: the deadlock check of `ibsm
// check` and of the daemon after every routing. It trusts only the tables
// and the cables, like the route tracer (routing/trace.h), so it judges any
// engine's output and LFTs read back from a live fabric alike.
//
// A channel is a direction of a cable on one VL: both directions of every
// usable switch-to-switch cable, and the injection channel from every CA or
// router port with a LID into its switch. (The last cable into a CA is left
// out: a CA consumes what reaches it, so it never waits on anything.) Channel
// c_in depends on c_out when some packet for some destination LID arrives
// on c_in at a switch whose table sends it out on c_out: with credit-based
// flow control it holds a buffer of c_in while it waits for one of c_out. A
// cycle of such dependencies can deadlock the fabric (Dally and Seitz), an
// acyclic graph cannot.
//
// Traffic comes from every CA and router port with a LID toward every LID a
// port owns (all 2^LMC of them), and from every switch (its port 0) toward
// the CAs' and routers' LIDs. Switches send each other nothing but SMPs,
// which travel on VL15 without flow-control credits and so cannot deadlock:
// switch-to-switch routes are left out (ibdmchk, which traces CA traffic
// only, agrees). The routes toward one LID form an in-forest (one out-port
// per switch), so each destination LID costs one pass over the switches,
// not one trace per pair.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "routing/trace.h"
#include "sm/fabric/fabric.h"

namespace ibsm::routing {

// Which VL packets travel on. Three ways, the first that is set wins:
//  - path_sl and sl2vl: each packet has an SL for its whole path, and each
//    port it leaves maps that SL to a VL (IBA 7.6.6: a switch's SL2VL table
//    is chosen by the packet's input and output port), so the VL may change
//    at every hop; a channel is then (cable, VL of the packets on it). This
//    is how a dateline scheme (torus-2QoS) stays deadlock-free on one SL.
//  - path_vl: a VL per (source, destination LID), kept on every cable;
//  - destination_vl: a VL per destination LID, kept on every cable.
// None set: every packet on VL 0, as long as no engine assigns SLs.
struct CdgOptions {
  // The SL of packets from `source` (a CA or router port, or a switch's port
  // 0) to `dlid`, 0..15. One call per (source, destination LID) pair.
  std::function<uint8_t(PortRef source, Lid dlid)> path_sl;
  // The VL, 0..15, that `node` sends a packet of SL `sl` on out of `out_port`
  // when it came in on `in_port` (a switch: in_port 0 for its own packets;
  // a CA or router port: in_port = out_port = the port). Used with path_sl.
  std::function<uint8_t(NodeIndex node, uint8_t in_port, uint8_t out_port, uint8_t sl)> sl2vl;
  // The VL of packets from `source` (a CA or router port, or a switch's port
  // 0) to `dlid`, 0..15. One call per (source, destination LID) pair: for
  // engines whose SL depends on both ends.
  std::function<uint8_t(PortRef source, Lid dlid)> path_vl;
  // The VL of every packet to `dlid`, 0..15: one call per LID. Ignored when
  // path_vl is set.
  std::function<uint8_t(Lid dlid)> destination_vl;
  // Keep the graph (CdgReport::memory) when every packet is on VL 0 (none of
  // the above set), for checking a route repair later.
  bool keep_graph = false;
};

struct CdgMemory;

struct Sl2VlTable;
// An sl2vl function for CdgOptions from an engine's tables (RoutingEngine::sl2vl):
// the VL of the table for (node, in_port, out_port), or `missing` where no
// table was given for that port pair.
std::function<uint8_t(NodeIndex, uint8_t, uint8_t, uint8_t)> sl2vl_lookup(const Fabric& fabric,
                                                                           std::span<const Sl2VlTable> tables,
                                                                           uint8_t missing = 0);

// One channel: the cable leaving port `from`, on `vl`.
struct CdgChannel {
  PortRef from;
  uint8_t vl = 0;
  constexpr auto operator<=>(const CdgChannel&) const = default;
};

struct CdgVlSummary {
  uint8_t vl = 0;
  uint64_t dependencies = 0;
  bool acyclic = true;
};

struct CdgReport {
  // Directed cables that can carry traffic (a channel per VL in use).
  uint64_t channels = 0;
  // Distinct (c_in, c_out, VL) dependencies, over every VL.
  uint64_t dependencies = 0;
  // The VLs that carry dependencies, ascending.
  std::vector<CdgVlSummary> vls;
  // When a VL has a cycle, one cycle on the lowest such VL: each channel's
  // packets wait for the next channel, the last one's for the first.
  std::vector<CdgChannel> cycle;
  // That cycle, readably (empty when there is none); see describe_cycle.
  std::string cycle_text;
  // With CdgOptions::keep_graph: the graph, for update_cdg_memory
  // (routing/cdg_memory.h); shared, as every copy of the report may hand it
  // on to the next repair.
  std::shared_ptr<CdgMemory> memory;

  bool acyclic() const { return cycle.empty(); }
  // One line: "channels 96, dependencies 412 on vl 0: acyclic", or
  // "...: cycle on vl 0: <cycle_text>".
  std::string to_string() const;
};

// "vl 0: 0x0002c90300000001 (sw-0) port 3 -> 0x0002c90300000002 (sw-1) port 4
// -> 0x0002c90300000001 (sw-0) port 3": the channels by the switch and port
// they leave, back to the first. A cycle over several VLs (SL2VL mode) names
// each channel's VL: "vls: ... port 3 vl 0 -> ... port 4 vl 1 -> ...".
std::string describe_cycle(const Fabric& fabric, std::span<const CdgChannel> cycle);

// Builds the graph of `lfts` (by NodeIndex, as UnicastTables::lfts holds
// them) over `fabric` and looks for a cycle on every VL (in SL2VL mode, one
// graph over every (cable, VL), since a dependency may lead from one VL to
// another). Fails when a VL or SL function returns a value above 15.
Result<CdgReport> check_channel_dependencies(const Fabric& fabric, LftSet lfts, const CdgOptions& options = {});

}  // namespace ibsm::routing
