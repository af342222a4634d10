#include "routing/file_engine.h"

#include <cassert>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "routing/minhop.h"

namespace ibsm::routing {

namespace {

// Where a port's LIDs are now, by port GUID.
struct CurrentBlock {
  Lid base;
  uint8_t lmc = 0;
};

}  // namespace

Result<UnicastTables> FileEngine::compute(const RoutingInput& input) {
  minhop_lids_ = 0;
  const RoutingGraph& graph = input.graph;
  const Fabric& fabric = input.fabric();
  const std::string source = source_.empty() ? std::string("the lft file") : source_;
  if (!dump_) return failed_precondition_error("no lft file given (lfts_file, -U)");
  if (graph.switch_count() == 0) return failed_precondition_error("the fabric has no switch");

  // The dump's view: each port GUID's lowest LID (its old base).
  std::unordered_map<uint64_t, uint16_t> old_base;
  for (const LftDumpSwitch& sw : dump_->switches) {
    for (const LftDumpEntry& e : sw.entries) {
      if (!e.port_guid) continue;
      auto [it, fresh] = old_base.emplace(e.port_guid->value, e.lid.value);
      if (!fresh && e.lid.value < it->second) it->second = e.lid.value;
    }
  }
  // The fabric's view: where each LID-owning port's block is now.
  std::unordered_map<uint64_t, CurrentBlock> now;
  for (const Destination& d : graph.destinations()) {
    const Node& node = fabric.node(d.owner.node);
    now.emplace(node.port(d.owner.port).guid.value, CurrentBlock{d.base, d.lmc});
  }

  UnicastTables tables = UnicastTables::unrouted(graph);
  const uint16_t top = graph.max_lid();
  std::vector<bool> has_entry(size_t{top} + 1, false);
  for (SwitchId s = 0; s < graph.switch_count(); ++s) {
    const NodeIndex n = graph.node_of(s);
    const Node& node = fabric.node(n);
    const LftDumpSwitch* sw = dump_->find(node.node_guid);
    if (!sw) {
      return failed_precondition_error(
          fmt::format("switch {} ('{}') has no table in {}", node.node_guid, node.description, source));
    }
    std::vector<uint8_t>& lft = tables.lfts[n.value];
    for (const LftDumpEntry& e : sw->entries) {
      if (e.port == kNoRoute) continue;  // listed by `dump_lfts -a`: no route
      if (e.port > node.num_ports) {
        return failed_precondition_error(fmt::format("{}:{}: lid {} leaves switch {} ('{}') by port {}, it has {}",
                                                     source, e.line, e.lid, node.node_guid, node.description, e.port,
                                                     node.num_ports));
      }
      uint32_t lid = e.lid.value;
      if (e.port_guid) {
        const auto block = now.find(e.port_guid->value);
        if (block == now.end()) continue;  // the port is gone
        const auto base = old_base.find(e.port_guid->value);
        assert(base != old_base.end());  // every port GUID of the dump has its base
        if (base == old_base.end()) continue;  // (without asserts: never read past the map)
        const uint32_t offset = lid - base->second;
        if (offset >= (1u << block->second.lmc)) continue;  // beyond its block now
        lid = block->second.base.value + offset;
      }
      if (lid == 0 || lid > top) continue;
      // A switch's own LIDs stay on port 0 whatever the file says.
      has_entry[lid] = true;
      if (lft[lid] == 0 && graph.owner_of(Lid{static_cast<uint16_t>(lid)}).node == n) continue;
      lft[lid] = e.port;
    }
  }

  // LIDs the file knows nothing about get min-hop's whole in-tree.
  std::vector<uint16_t> missing;
  for (const Destination& d : graph.destinations()) {
    for (uint32_t k = 0; k < d.lid_count(); ++k) {
      const uint16_t lid = static_cast<uint16_t>(d.base.value + k);
      if (!has_entry[lid]) missing.push_back(lid);
    }
  }
  if (!missing.empty()) {
    MinHopEngine minhop;
    Result<UnicastTables> fill = minhop.compute(input);
    if (!fill.ok()) return fill.status();
    for (SwitchId s = 0; s < graph.switch_count(); ++s) {
      const uint32_t n = graph.node_of(s).value;
      for (uint16_t lid : missing) tables.lfts[n][lid] = fill->lfts[n][lid];
    }
    minhop_lids_ = missing.size();
    log(input.log, LogLevel::info, Subsystem::routing, "file: {} lids have no entry in {}: routed by min-hop",
        missing.size(), source);
  }
  return tables;
}

}  // namespace ibsm::routing
