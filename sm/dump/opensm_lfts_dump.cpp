// opensm-lfts.dump (format: OpenSM 3.3 osm_dump.c, dump_ucast_lfts).
#include "sm/dump/opensm_dump.h"
#include "sm/dump/opensm_view.h"
#include "sm/dump/text_sink.h"

namespace ibsm {

void write_opensm_lfts_dump(const Fabric& fabric, LftSet lfts, std::ostream& out) {
  const dump::OpenSmView view(fabric);
  dump::TextSink sink(out);
  const unsigned top = view.max_lid();
  for (NodeIndex sw : view.switches()) {
    const Node& node = fabric.node(sw);
    sink.print("Unicast lids [0-{}] of switch Lid {} guid 0x{:016x} ('{}'):\n", top, node.port(0).base_lid.value,
               node.node_guid.value, node.description);
    for (uint32_t lid = 0; lid <= top; ++lid) {
      // OpenSM lists only entries that name a port of the switch; 0xFF and
      // anything past the last port are "no route".
      const uint8_t port = lfts.port(sw.value, lid);
      if (port > node.num_ports) continue;
      sink.print("0x{:04x} {:03} # ", lid, port);
      if (const auto target = view.port_of_lid(static_cast<uint16_t>(lid))) {
        const Node& dest = fabric.node(target->node);
        sink.print("{} portguid 0x{:016x}: '{}'\n", dump::opensm_node_type_name(dest.type),
                   view.port_guid_of(*target).value, dest.description);
      } else {
        sink.put("unknown node and type\n");
      }
    }
    sink.print("{} lids dumped\n", top);
  }
}

}  // namespace ibsm
