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
#include <span>
#include <string>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "routing/trace.h"
#include "sm/fabric/fabric.h"

namespace ibsm::routing {

// Which VL packets travel on. A packet keeps its VL on every cable of its
// path (an SL-to-VL mapping that changes the VL on the way is not modelled).
// Neither function set: every packet on VL 0, as long as no engine assigns SLs.
struct CdgOptions {
  // The VL of packets from `source` (a CA or router port, or a switch's port
  // 0) to `dlid`, 0..15. One call per (source, destination LID) pair: for
  // engines whose SL depends on both ends.
  std::function<uint8_t(PortRef source, Lid dlid)> path_vl;
  // The VL of every packet to `dlid`, 0..15: one call per LID. Ignored when
  // path_vl is set.
  std::function<uint8_t(Lid dlid)> destination_vl;
};

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

  bool acyclic() const { return cycle.empty(); }
  // One line: "channels 96, dependencies 412 on vl 0: acyclic", or
  // "...: cycle on vl 0: <cycle_text>".
  std::string to_string() const;
};

// "vl 0: 0x0002c90300000001 (sw-0) port 3 -> 0x0002c90300000002 (sw-1) port 4
// -> 0x0002c90300000001 (sw-0) port 3": the channels by the switch and port
// they leave, back to the first.
std::string describe_cycle(const Fabric& fabric, std::span<const CdgChannel> cycle);

// Builds the graph of `lfts` (by NodeIndex, as UnicastTables::lfts holds
// them) over `fabric` and looks for a cycle on every VL. Fails when a VL
// function returns a VL above 15.
Result<CdgReport> check_channel_dependencies(const Fabric& fabric, LftSet lfts, const CdgOptions& options = {});

}  // namespace ibsm::routing
