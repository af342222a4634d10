// Reads a topology file: the ibsim netfile format and the output of
// ibnetdiscover, which ibsim also loads. The result is the fabric ibsim would
// simulate from the same file: the same node and port GUIDs, descriptions,
// LIDs, link widths and speeds, and the same files refused.
//
// What ibsim does (ibsim 0.10, sim_net.c), and therefore what this reader does:
//  - GUIDs come from three counters, one per node type, starting at 0x200000
//    (switches), 0x100000 (CAs, "Hca" or "Ca") and 0 (routers, "Rt"). A switch
//    takes one GUID, shared by all its ports; a CA or router with N ports takes
//    N + 1: the node GUID, then node GUID + i for port i. `switchguid=`,
//    `caguid=`/`hcaguids=` and `rtguid=` lines set a counter (`=value`) or move
//    it relative to the last value set (`+offset`); ibnetdiscover writes one
//    before every node, so its output keeps its GUIDs. Port GUIDs listed in the
//    file ("[1](100001)") and the port GUID after `switchguid=0x..(..)` are ignored.
//  - `sysimgguid=` and `vendid=` apply to the next node only (default: the node
//    GUID and 0); `devid=` applies to every node after it (default 0).
//  - NodeDescription is the quoted text after '#' on the header line, else the
//    node's name; at most 63 characters are kept.
//  - A switch's LID and LMC come from its header ("lid 3 lmc 0"), "enhanced
//    port 0" sets EnhancedPort0; a CA port's LID from its port line. Router
//    ports keep LID 0.
//  - Each port's enabled width and speed start from the `width=`, `speed=`,
//    `extspeed=` defaults (4x, SDR, none), are changed by `w=`, `s=`, `e=`
//    options on the port line, and on Ca and Switch port lines by the last
//    "lid N <width>x<speed>" after the last quote ("4x" enables 1x|4x, "12x"
//    1x|4x|12x, "QDR" SDR|DDR|QDR, "EDR" FDR|EDR ...). A link's active width and
//    speed are the best ones both ends enable; none in common is an error.
//  - A link must be listed by both of its ends; a link listed on one side only
//    and two ends that disagree are errors. Cabled ports start in Init/LinkUp,
//    free ports Down/Polling, switch port 0 Active.
//  - A record lists at most as many ports as the node has; a port line must
//    start in column 1; '#' lines are comments; unknown lines are ignored.
// Where ibsim silently drops or misreads a line (a header glued to the port
// lines before it, a port line outside a record, a remote port written after a
// space), this reader refuses the file instead. Aliases ('@') are not supported.
#pragma once

#include <functional>
#include <istream>
#include <string>
#include <string_view>

#include "mad/base/status.h"
#include "sm/fabric/fabric.h"

namespace ibsm {

struct NetfileOptions {
  // Returns the text of the file named by an `include "name"` line. The core
  // opens no files: without a resolver an include line is an error.
  std::function<Result<std::string>(std::string_view name)> include_resolver;
  // Receives remarks that are not errors: skipped `do` lines, ignored lines,
  // listed port GUIDs that ibsim replaces. Messages are "source:line: text".
  std::function<void(const std::string& note)> on_note;
  // ibsim gives CA and router port i the GUID node GUID + i whatever the file
  // lists. Set this to keep the port GUIDs ibnetdiscover listed instead (a dump
  // of a real fabric, where they may differ); the fabric then differs from ibsim's.
  bool keep_listed_port_guids = false;
};

// Errors are "source:line: problem", e.g.
// `net.bad:12: port 9 out of range for "Switch1" (8 ports)`.
Result<Fabric> read_netfile(std::istream& in, std::string_view source_name, const NetfileOptions& options = {});

}  // namespace ibsm
