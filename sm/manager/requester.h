// Who sent a request to the SM port: the port it came from, found in what
// discovery read, and the PortInfo Get that asks that port itself. The SM
// tells SMs from tools by it (an SM port has IsSM).
#pragma once

#include <optional>

#include "mad/transport.h"
#include "sm/discovery/discovery.h"

namespace ibsm {

// By the request's source LID, or for a directed-route SMP by walking its
// return path back from our port (each hop's ReturnPath entry is the port
// it came in by, IBA 14.2.2.2); a switch's port 0 for a switch. nullopt: not
// a port of `discovery`.
std::optional<PortRef> requester_port(const DiscoveryResult& discovery, const MadPacket& request);

// A PortInfo Get to the port `request` came from, over the reverse of its
// directed route or LID-routed to its source LID; nullopt for a request
// from our own port or one that is no SMP.
// It carries `m_key` (a port at M_Key protection level 2 or 3 answers no Get
// without its key).
std::optional<MadPacket> port_info_probe(const MadPacket& request, uint64_t m_key = 0);

}  // namespace ibsm
