// opensm-subnet.lst (format: OpenSM 3.3 osm_dump.c, dump_topology_node).
#include <string_view>

#include "sm/dump/opensm_dump.h"
#include "sm/dump/opensm_view.h"
#include "sm/dump/text_sink.h"

namespace ibsm {
namespace {

using dump::OpenSmView;
using dump::TextSink;

std::string_view type_tag(NodeType type) {
  switch (type) {
    case NodeType::switch_: return "SW";
    case NodeType::ca: return "CA";
    case NodeType::router: return "Rt";
    default: return "**";
  }
}

// PortInfo:LinkWidthActive (IBA 14.2.5.6) as OpenSM prints it; 2x is "??".
std::string_view width_text(uint8_t width) {
  switch (width) {
    case link_width::x1: return "1x";
    case link_width::x4: return "4x";
    case link_width::x8: return "8x";
    case link_width::x12: return "12x";
    default: return "??";
  }
}

std::string_view state_text(PortState state) {
  switch (state) {
    case PortState::active: return "ACT";
    case PortState::armed: return "ARM";
    case PortState::init: return "INI";
    default: return "DWN";
  }
}

// Gb/s per lane: LinkSpeedActive, overridden by LinkSpeedExtActive when a
// port has one (OpenSM 3.3 knows FDR and EDR only).
std::string_view speed_text(const Port& port) {
  switch (port.speed_ext_active) {
    case link_speed_ext::none: break;
    case link_speed_ext::fdr: return "14";
    case link_speed_ext::edr: return "25";
    default: return "??";
  }
  switch (port.speed_active) {
    case link_speed::sdr: return "2.5";
    case link_speed::ddr: return "5";
    case link_speed::qdr: return "10";
    default: return "??";
  }
}

class SubnetLstWriter {
 public:
  SubnetLstWriter(const Fabric& fabric, std::ostream& out, const SubnetLstOptions& options)
      : view_(fabric), sink_(out), options_(options) {}

  void write() {
    const Fabric& fabric = view_.fabric();
    for (NodeIndex n : view_.nodes()) {
      const Node& node = fabric.node(n);
      for (size_t p = 1; p <= node.num_ports && p < node.ports.size(); ++p) {
        const Port& port = node.ports[p];
        if (!port.connected()) continue;
        const uint8_t num = static_cast<uint8_t>(p);
        write_end(PortRef{n, num}, /*peer=*/false);
        write_end(PortRef{port.remote_node, port.remote_port}, /*peer=*/true);
        sink_.print("PHY={} LOG={} SPD={}\n", width_text(port.width_active), state_text(port.state), speed_text(port));
      }
    }
  }

 private:
  // "{ SW-SM Ports:08 SystemGUID:... LID:0001 PN:03 } "
  void write_end(PortRef ref, bool peer) {
    const Node& node = view_.fabric().node(ref.node);
    const Lid lid = view_.lid_of(ref);
    const bool sm = options_.sm_lid.value != 0 && lid == options_.sm_lid;
    sink_.print("{{ {}{} Ports:{:02X} SystemGUID:{:016x} NodeGUID:{:016x} PortGUID:{:016x} ", type_tag(node.type),
                sm ? "-SM" : "", node.num_ports, node.system_guid.value, node.node_guid.value,
                node.port(ref.port).guid.value);
    // OpenSM prints the peer's vendor id with 8 digits and its device id
    // shifted into the upper half of a 32-bit word (a byte-order slip that
    // ibdmchk compensates for); kept so the files match.
    if (peer) {
      sink_.print("VenID:{:08X} DevID:{:04X} ", node.vendor_id, uint32_t{node.device_id} << 16);
    } else {
      sink_.print("VenID:{:06X} DevID:{:04X} ", node.vendor_id, node.device_id);
    }
    sink_.print("Rev:{:08X} {{{}}} LID:{:04X} PN:{:02X} }} ", node.revision, node.description, lid.value, ref.port);
  }

  OpenSmView view_;
  TextSink sink_;
  SubnetLstOptions options_;
};

}  // namespace

void write_opensm_subnet_lst(const Fabric& fabric, std::ostream& out, const SubnetLstOptions& options) {
  SubnetLstWriter(fabric, out, options).write();
}

}  // namespace ibsm
