// Knobs of the simulated fabric. The defaults reproduce ibsim 0.10 (the
// reference the SM is also run against), except where noted.
#pragma once

#include <cstdint>

#include "mad/base/clock.h"

namespace ibsm {

struct SimOptions {
  // Virtual time a MAD takes to cross one link, and an SMA to answer. A
  // response arrives (hops out + hops back) * hop_latency + sma_latency after
  // its request was sent. Nothing else depends on them.
  Micros hop_latency = 1;
  Micros sma_latency = 1;

  // SwitchInfo capacities. ibsim's defaults (its -L and -M options): 30720
  // unicast LIDs and 1024 multicast LIDs. A 48k-endpoint fabric needs a larger
  // linear cap, as it does on ibsim (real switches have 49152).
  uint16_t linear_fdb_cap = 30720;
  uint16_t multicast_fdb_cap = 1024;
  // SwitchInfo:MulticastFDBTop (IBA 1.2.1, 14.2.5.4): ibsim has none (the
  // capability bit is clear and the field reads 0). Set this for switches
  // that announce it in port 0's CapabilityMask (IsMulticastFDBTopSupported),
  // start at 0xBFFF (no entry in use) and keep what an SM sets.
  bool multicast_fdb_top = false;

  // IBA 7.2: ports in Init and Armed pass SMPs (VL15) but not data. ibsim
  // forwards LID-routed SMPs only through Active ports; set this to reproduce
  // that (an SM that works with it set does not depend on the difference).
  bool lid_routed_smps_need_active = false;

  // Switches send trap 128 (link state change) to their MasterSMLID when a
  // link goes down or up through set_link(), and ports trap 144 (capability
  // mask change) when a client starts or stops being an SM there, once and
  // without waiting for a TrapRepress, as ibsim does.
  bool send_traps = true;

  // An SMA need not keep every PortInfo field an SM writes: ibsim 0.10 keeps
  // neither SubnetTimeout nor GidPrefix nor NeighborMTU (they read back as
  // they were). Clear this to reproduce that; the SM must then not rewrite
  // them on every sweep.
  bool sma_keeps_all_port_fields = true;

  // The kernel's MAD layer hands a request back with a timeout status when no
  // response came within its response_timeout_ms. ibsim (umad2sim) never does;
  // set this to exercise the dispatcher's handling of it: a request the fabric
  // dropped comes back to its sender marked send_timed_out.
  bool report_send_timeouts = false;
};

}  // namespace ibsm
