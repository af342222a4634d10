#include "sm/status_page/fabric_picture.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sm/status_page/fabric_layout.h"
#include "sm/status_page/html_escape.h"
#include "sm/status_page/load_colour.h"

namespace ibsm::status {

namespace {

// The cables between two switches, drawn as one line.
struct Connection {
  NodeIndex a, b;  // a < b
  uint32_t cables = 0;
  uint64_t routes = 0;  // the most loaded direction of any of its cables
  uint64_t errors = 0;  // at both ends of every cable
};

struct Geometry {
  double box_w, box_h, pitch;
  bool labels;
};

// How far an arc between two boxes of one line rises above them: less than
// the gap between rows (70), so it stays clear of the row above.
constexpr double kMaxLift = 60;

struct Place {
  double x = 0, y = 0;  // the box's centre
};

// At most `max` bytes of `text`, not cutting a UTF-8 sequence, with an
// ellipsis when cut.
std::string shorten(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end) + "\u2026";
}

class PictureWriter {
 public:
  PictureWriter(const Fabric& fabric, std::span<const routing::PortRoutes> port_routes,
                const std::map<PortRef, uint64_t>& port_errors, const PictureOptions& options)
      : fabric_(fabric), errors_(port_errors), options_(options) {
    routes_.resize(fabric.node_count());
    for (const routing::PortRoutes& r : port_routes) {
      if (!r.port.node.valid() || r.port.node.value >= fabric.node_count()) continue;
      auto& ports = routes_[r.port.node.value];
      if (ports.size() <= r.port.port) ports.resize(r.port.port + 1u, 0);
      ports[r.port.port] = r.routes;
      picture_.max_routes = std::max(picture_.max_routes, r.routes);
    }
  }

  Picture draw() {
    const FabricLayout layout = layout_fabric(fabric_);
    size_t switches = 0;
    for (const auto& row : layout.rows) switches += row.size();
    geometry_ = switches <= options_.labelled_switches ? Geometry{96, 24, 108, true} : Geometry{12, 12, 16, false};
    const size_t per_line =
        std::max<size_t>(geometry_.labels ? options_.switches_per_line : options_.small_switches_per_line, 1);

    // The CAs by the switch port they are cabled to.
    size_t endpoints = 0, loose_endpoints = 0;
    for (uint32_t n = 0; n < fabric_.node_count(); ++n) {
      const Node& node = fabric_.node(NodeIndex{n});
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const Port& port = node.port(static_cast<uint8_t>(p));
        if (node.is_switch()) {
          if (port.connected() && !fabric_.node(port.remote_node).is_switch()) ++endpoints;
        } else if (!port.connected() || !fabric_.node(port.remote_node).is_switch()) {
          ++loose_endpoints;
        }
      }
    }
    picture_.endpoints_aggregated = endpoints > options_.max_endpoint_marks;

    // Lines of boxes, the top row first.
    size_t widest = 1;
    for (const auto& row : layout.rows) widest = std::max(widest, std::min(row.size(), per_line));
    const double margin = 20;
    const double width = margin * 2 + static_cast<double>(widest) * geometry_.pitch;
    const double endpoint_space = geometry_.labels ? 60 : 34;
    place_.resize(fabric_.node_count());
    // Cables within a row are arcs above it: room for them above the top row.
    bool arcs = false;
    for (const Link& link : fabric_.links()) {
      const uint32_t a = layout.row_of[link.a.node.value], b = layout.row_of[link.b.node.value];
      arcs = arcs || (a != kNoRow && a == b);
    }
    double y = margin + geometry_.box_h / 2 + (arcs ? kMaxLift : 0);
    for (size_t r = layout.rows.size(); r-- > 0;) {
      const auto& row = layout.rows[r];
      for (size_t first = 0; first < row.size(); first += per_line) {
        const size_t count = std::min(per_line, row.size() - first);
        const double left = margin + static_cast<double>(widest - count) * geometry_.pitch / 2;
        for (size_t i = 0; i < count; ++i) {
          place_[row[first + i].value] = {left + (static_cast<double>(i) + 0.5) * geometry_.pitch, y};
        }
        y += geometry_.box_h + (r == 0 ? endpoint_space : 0) + (first + per_line < row.size() ? 24 : 70);
      }
    }
    const double height = y - 70 + margin + geometry_.box_h / 2;

    std::string body;
    draw_connections(body);
    draw_endpoints(body);
    draw_switches(body, layout);
    picture_.svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"fabric\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
        "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" aria-label=\"the fabric: {2} switches, {3} CA ports\">\n{4}"
        "</svg>\n",
        width, std::max(height, 2 * margin), switches, endpoints, body);

    std::vector<std::string> notes;
    if (picture_.endpoints_aggregated) {
      notes.push_back(fmt::format("{} CA ports (more than {}) are drawn as one mark per switch with their number",
                                  endpoints, options_.max_endpoint_marks));
    }
    if (picture_.connections_drawn < picture_.connections) {
      notes.push_back(fmt::format(
          "only the {} most loaded of {} switch-to-switch connections are drawn (those with errors first)",
          picture_.connections_drawn, picture_.connections));
    }
    if (loose_endpoints > 0) notes.push_back(fmt::format("{} CA ports cabled to no switch are not drawn", loose_endpoints));
    for (const std::string& n : notes) picture_.note += (picture_.note.empty() ? "" : "; ") + n;
    return std::move(picture_);
  }

 private:
  uint64_t routes_at(NodeIndex n, uint8_t port) const {
    const auto& ports = routes_[n.value];
    return port < ports.size() ? ports[port] : 0;
  }
  uint64_t errors_at(PortRef p) const {
    const auto it = errors_.find(p);
    return it == errors_.end() ? 0 : it->second;
  }
  const char* colour(uint64_t routes, uint64_t errors) const {
    return errors > 0 ? kErrorColour : load_colour(routes, picture_.max_routes);
  }

  void draw_connections(std::string& out) {
    std::map<std::pair<uint32_t, uint32_t>, Connection> by_pair;
    for (uint32_t n = 0; n < fabric_.node_count(); ++n) {
      const Node& node = fabric_.node(NodeIndex{n});
      if (!node.is_switch()) continue;
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const Port& port = node.port(static_cast<uint8_t>(p));
        if (!port.connected() || !fabric_.node(port.remote_node).is_switch()) continue;
        const PortRef here{NodeIndex{n}, static_cast<uint8_t>(p)};
        const PortRef there{port.remote_node, port.remote_port};
        if (there < here) continue;  // each cable once, from its lower end
        Connection& c = by_pair[{std::min(n, there.node.value), std::max(n, there.node.value)}];
        c.a = NodeIndex{std::min(n, there.node.value)};
        c.b = NodeIndex{std::max(n, there.node.value)};
        ++c.cables;
        c.routes = std::max({c.routes, routes_at(here.node, here.port), routes_at(there.node, there.port)});
        c.errors += errors_at(here) + errors_at(there);
      }
    }
    std::vector<Connection> all;
    all.reserve(by_pair.size());
    for (const auto& [key, c] : by_pair) all.push_back(c);
    picture_.connections = all.size();
    if (all.size() > options_.max_connections) {
      const auto first = [](const Connection& x, const Connection& y) {
        if ((x.errors > 0) != (y.errors > 0)) return x.errors > 0;
        return x.routes > y.routes;
      };
      std::nth_element(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(options_.max_connections), all.end(),
                       first);
      all.resize(options_.max_connections);
    }
    picture_.connections_drawn = all.size();
    // Least loaded first, so the loaded lines are on top where they cross.
    std::sort(all.begin(), all.end(), [](const Connection& x, const Connection& y) {
      return std::pair{x.errors > 0, x.routes} < std::pair{y.errors > 0, y.routes};
    });
    for (const Connection& c : all) {
      const Place pa = place_[c.a.value], pb = place_[c.b.value];
      const double stroke = (geometry_.labels ? 2.0 : 1.0) + (c.cables > 1 ? 1.0 : 0.0) + (c.errors > 0 ? 1.0 : 0.0);
      const std::string title = fmt::format(
          "{} \u2014 {}: {} cable{}, routes {}{}", html_escape(node_label(fabric_.node(c.a))),
          html_escape(node_label(fabric_.node(c.b))), c.cables, c.cables > 1 ? "s" : "", c.routes,
          c.errors > 0 ? fmt::format(", errors {}", c.errors) : std::string());
      if (pa.y == pb.y) {
        // The same line of boxes (a torus, a ring): an arc above it.
        const double lift = std::min(geometry_.box_h / 2 + 10 + std::abs(pb.x - pa.x) * 0.12, kMaxLift);
        out += fmt::format(
            "<path class=\"link\" d=\"M{:.1f} {:.1f} Q{:.1f} {:.1f} {:.1f} {:.1f}\" fill=\"none\" stroke=\"{}\" "
            "stroke-width=\"{:.0f}\"><title>{}</title></path>\n",
            pa.x, pa.y - geometry_.box_h / 2, (pa.x + pb.x) / 2, pa.y - lift, pb.x, pb.y - geometry_.box_h / 2,
            colour(c.routes, c.errors), stroke, title);
      } else {
        const Place& top = pa.y < pb.y ? pa : pb;
        const Place& bottom = pa.y < pb.y ? pb : pa;
        out += fmt::format(
            "<line class=\"link\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
            "stroke-width=\"{:.0f}\"><title>{}</title></line>\n",
            top.x, top.y + geometry_.box_h / 2, bottom.x, bottom.y - geometry_.box_h / 2,
            colour(c.routes, c.errors), stroke, title);
      }
    }
  }

  void draw_endpoints(std::string& out) {
    const double drop = geometry_.labels ? 34 : 18;
    for (uint32_t n = 0; n < fabric_.node_count(); ++n) {
      const Node& node = fabric_.node(NodeIndex{n});
      if (!node.is_switch()) continue;
      std::vector<uint8_t> ports;
      for (unsigned p = 1; p <= node.num_ports; ++p) {
        const Port& port = node.port(static_cast<uint8_t>(p));
        if (port.connected() && !fabric_.node(port.remote_node).is_switch()) ports.push_back(static_cast<uint8_t>(p));
      }
      if (ports.empty()) continue;
      const Place at = place_[n];
      const double top = at.y + geometry_.box_h / 2;
      const double span = geometry_.pitch - 10;
      const bool one_mark = picture_.endpoints_aggregated || (ports.size() - 1) * 5.0 > span;
      if (one_mark) {
        uint64_t routes = 0, errors = 0;
        for (const uint8_t p : ports) {
          const Port& port = node.port(p);
          routes = std::max(routes, routes_at(NodeIndex{n}, p));
          errors += errors_at(PortRef{NodeIndex{n}, p}) + errors_at(PortRef{port.remote_node, port.remote_port});
        }
        const double w = std::min(geometry_.box_w, 24.0);
        out += fmt::format(
            "<g class=\"cas\"><title>{} CA port{} on {}: routes in max {}{}</title>"
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\"/>"
            "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"8\" fill=\"{}\"/>",
            ports.size(), ports.size() > 1 ? "s" : "", html_escape(node_label(node)), routes,
            errors > 0 ? fmt::format(", errors {}", errors) : std::string(), at.x, top, at.x, top + drop,
            colour(routes, errors), geometry_.labels ? 2 : 1, at.x - w / 2, top + drop, w, kEndpointFill);
        if (geometry_.labels) {
          out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"count\">{}</text>", at.x, top + drop + 20,
                             ports.size());
        }
        out += "</g>\n";
        continue;
      }
      const double step = ports.size() > 1 ? std::min(12.0, span / static_cast<double>(ports.size() - 1)) : 0;
      for (size_t i = 0; i < ports.size(); ++i) {
        const uint8_t p = ports[i];
        const Port& port = node.port(p);
        const Node& ca = fabric_.node(port.remote_node);
        const Port& ca_port = ca.port(port.remote_port);
        const uint64_t routes = routes_at(NodeIndex{n}, p);
        const uint64_t errors =
            errors_at(PortRef{NodeIndex{n}, p}) + errors_at(PortRef{port.remote_node, port.remote_port});
        const double x = at.x + (static_cast<double>(i) - static_cast<double>(ports.size() - 1) / 2) * step;
        out += fmt::format(
            "<g class=\"ca\"><title>{} port {} (lid {}) on {} port {}: routes in {}{}</title>"
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\"/>"
            "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"/></g>\n",
            html_escape(node_label(ca)), port.remote_port, ca_port.base_lid.value, html_escape(node_label(node)), p,
            routes, errors > 0 ? fmt::format(", errors {}", errors) : std::string(), x, top, x, top + drop,
            colour(routes, errors), geometry_.labels ? 2 : 1, x, top + drop + 3, 3, kEndpointFill);
      }
    }
  }

  void draw_switches(std::string& out, const FabricLayout& layout) {
    for (const auto& row : layout.rows) {
      for (const NodeIndex n : row) {
        const Node& node = fabric_.node(n);
        const Place at = place_[n.value];
        const std::string label = node_label(node);
        out += fmt::format(
            "<g class=\"switch\"><title>{} ({}, lid {})</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" "
            "height=\"{:.0f}\" rx=\"3\" fill=\"{}\" stroke=\"#333\"/>",
            html_escape(label), node.node_guid, node.port(0).base_lid.value, at.x - geometry_.box_w / 2,
            at.y - geometry_.box_h / 2, geometry_.box_w, geometry_.box_h, kSwitchFill);
        if (geometry_.labels) {
          out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>", at.x, at.y + 4,
                             html_escape(shorten(label, 14)));
        }
        out += "</g>\n";
      }
    }
  }

  const Fabric& fabric_;
  const std::map<PortRef, uint64_t>& errors_;
  const PictureOptions& options_;
  std::vector<std::vector<uint64_t>> routes_;  // by node, then port
  std::vector<Place> place_;                   // by node: switches only
  Geometry geometry_{};
  Picture picture_;
};

}  // namespace

std::string node_label(const Node& node) {
  if (!node.description.empty()) return node.description;
  if (!node.name.empty()) return node.name;
  return fmt::format("{}", node.node_guid);
}

Picture draw_fabric(const Fabric& fabric, std::span<const routing::PortRoutes> port_routes,
                    const std::map<PortRef, uint64_t>& port_errors, const PictureOptions& options) {
  return PictureWriter(fabric, port_routes, port_errors, options).draw();
}

}  // namespace ibsm::status
