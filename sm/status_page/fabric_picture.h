// The picture of the fabric on the status page: an inline SVG with the
// switches as boxes in rows (fabric_layout.h), the CAs as small marks under
// the switch they hang off, and every cable coloured by its routed load
// (load_colour.h) or red when a port at either end counts errors.
//
// It stays small on any fabric: past a cap, the CAs become one mark per
// switch with their number, cables between the same two switches are one
// line, and only the most loaded connections (those with errors first) are
// drawn. The note says what was left out, and the page prints it.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "routing/port_routes.h"
#include "sm/fabric/fabric.h"

namespace ibsm::status {

struct PictureOptions {
  size_t max_endpoint_marks = 256;  // beyond: one mark per switch for its CAs
  size_t max_connections = 2000;    // switch pairs drawn, most loaded first
  size_t labelled_switches = 64;    // up to this many switches, boxes carry their name
  // A longer row wraps: labelled boxes, small boxes. The page scales the
  // picture to the window, so a line is as long as stays legible.
  size_t switches_per_line = 24;
  size_t small_switches_per_line = 64;
};

struct Picture {
  std::string svg;
  std::string note;         // what was aggregated or left out; empty when everything is drawn
  uint64_t max_routes = 0;  // the top of the colour scale
  size_t connections = 0;   // switch pairs cabled
  size_t connections_drawn = 0;
  bool endpoints_aggregated = false;
};

// `port_routes`: the routed load per switch port (routing::CheckSummary);
// empty when the fabric is not routed. `port_errors`: error counts by port
// (either end of a cable), may be empty.
Picture draw_fabric(const Fabric& fabric, std::span<const routing::PortRoutes> port_routes,
                    const std::map<PortRef, uint64_t>& port_errors, const PictureOptions& options = {});

// What the page calls a node: its description, else its name, else its GUID.
std::string node_label(const Node& node);

}  // namespace ibsm::status
