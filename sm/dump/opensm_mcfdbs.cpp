// opensm.mcfdbs (format: OpenSM 3.3 osm_dump.c, dump_mcast_routes).
#include <map>
#include <set>

#include "sm/dump/opensm_dump.h"
#include "sm/dump/opensm_view.h"
#include "sm/dump/text_sink.h"

namespace ibsm {

void write_opensm_mcfdbs(const Fabric& fabric, const std::vector<std::vector<MulticastDumpEntry>>& mfts,
                         std::ostream& out) {
  const dump::OpenSmView view(fabric);
  dump::TextSink sink(out);
  for (NodeIndex sw : view.switches()) {
    if (sw.value >= mfts.size()) continue;
    // The switch's MFT holds one port mask per MLID: entries for the same
    // MLID merge, and each port is listed once, in increasing order.
    std::map<uint16_t, std::set<uint8_t>> table;
    for (const MulticastDumpEntry& entry : mfts[sw.value]) {
      if (!entry.ports.empty()) table[entry.mlid.value].insert(entry.ports.begin(), entry.ports.end());
    }
    if (table.empty()) continue;
    sink.print("\nSwitch 0x{:016x}\nLID    : Out Port(s)\n", fabric.node(sw).node_guid.value);
    for (const auto& [mlid, ports] : table) {
      sink.print("0x{:04X} :", mlid);
      for (uint8_t port : ports) sink.print(" 0x{:03X} ", port);
      sink.put("\n");
    }
  }
}

void write_opensm_mcfdbs(const Fabric& fabric, const MulticastTables& tables, std::ostream& out) {
  std::vector<std::vector<MulticastDumpEntry>> mfts(fabric.node_count());
  for (uint32_t n = 0; n < fabric.node_count(); ++n) {
    for (const auto& [mlid, ports] : tables.of(NodeIndex{n})) {
      MulticastDumpEntry entry{Lid{mlid}, {}};
      for_each_port(ports, [&](uint8_t p) { entry.ports.push_back(p); });
      mfts[n].push_back(std::move(entry));
    }
  }
  write_opensm_mcfdbs(fabric, mfts, out);
}

void write_opensm_mcfdbs(const Fabric& fabric, std::ostream& out) {
  write_opensm_mcfdbs(fabric, std::vector<std::vector<MulticastDumpEntry>>{}, out);
}

}  // namespace ibsm
