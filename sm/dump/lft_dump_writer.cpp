// The diag-tools LFT dump (format: infiniband-diags ibroute.c,
// dump_unicast_tables, as `ibroute` prints a switch addressed by LID).
#include "sm/dump/lft_dump.h"
#include "sm/dump/opensm_view.h"
#include "sm/dump/text_sink.h"

namespace ibsm {

void write_lft_dump(const Fabric& fabric, LftSet lfts, std::ostream& out) {
  const dump::OpenSmView view(fabric);
  dump::TextSink sink(out);
  const unsigned top = view.max_lid();
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    const Node& node = fabric.node(NodeIndex{n});
    if (!node.is_switch()) continue;
    sink.print("Unicast lids [0x0-0x{:x}] of switch Lid {} guid 0x{:016x} ({}):\n", top, node.port(0).base_lid.value,
               node.node_guid.value, node.description);
    sink.put("  Lid  Out   Destination\n       Port     Info \n");
    unsigned listed = 0;
    for (uint32_t lid = 1; lid <= top; ++lid) {
      const uint8_t port = lfts.port(n, lid);
      if (port > node.num_ports) continue;  // no route
      ++listed;
      sink.print("0x{:04x} {:03} : (", lid, port);
      const auto target = view.port_of_lid(static_cast<uint16_t>(lid));
      if (!target) {
        sink.put("unknown node and type)\n");
        continue;
      }
      const Node& dest = fabric.node(target->node);
      const Lid base = view.lid_of(*target);
      const uint8_t lmc = dest.port(target->port).lmc;
      if (lid == base.value) {
        sink.print("{} portguid 0x{:016x}: '{}')\n", dump::opensm_node_type_name(dest.type),
                   view.port_guid_of(*target).value, dest.description);
      } else {
        sink.print("path #{} out of {}: portguid 0x{:016x})\n", lid - base.value + 1, 1u << lmc,
                   view.port_guid_of(*target).value);
      }
    }
    sink.print("{} valid lids dumped \n", listed);
  }
}

}  // namespace ibsm
