// Writers for a fabric: ibnetdiscover's topology text, JSON and Graphviz.
#pragma once

#include <ostream>
#include <string>

#include "sm/fabric/fabric.h"

namespace ibsm {

// Writes the fabric as `ibnetdiscover` prints it: switches, then CAs, then
// routers, each after its vendid/devid/sysimgguid/<type>guid lines, with LIDs
// and "4xSDR"-style rates in the comments. ibsim and read_netfile load it back
// to the same GUIDs, port numbers, links, names, descriptions, LIDs, widths and
// speeds. Node names are kept when a netfile can carry them; otherwise the
// node is named as ibnetdiscover names it ("S-0002c90300001234"). A router's
// port lines also carry "s=N w=N" (as `ibnetdiscover -f` prints them) and "e=N"
// for an extended speed, the only rate ibsim reads there. What does not survive:
// a router port's LID (ibsim reads none), a CA port GUID other than node GUID +
// port number (ibsim derives them), the base speed under an extended speed, and
// LIDs of free CA ports (ibnetdiscover lists cabled ports only).
void write_ibnetdiscover(const Fabric& fabric, std::ostream& out);

// One JSON object: "nodes" (type, name, description, GUIDs as "0x.." strings,
// vendor and device ids, ports with GUID, LID, LMC, state, physical state,
// width, speed and peer) and "links" (each cable once, with its rate).
void write_json(const Fabric& fabric, std::ostream& out);

// An undirected Graphviz graph: switches as boxes, CAs as ellipses, routers as
// diamonds, one edge per link with the port number at each end.
void write_dot(const Fabric& fabric, std::ostream& out);

// The name a node gets in ibnetdiscover output: "S-", "H-" or "R-" and its GUID.
std::string ibnetdiscover_name(const Node& node);

}  // namespace ibsm
