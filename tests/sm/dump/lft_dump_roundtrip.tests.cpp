// write_opensm_lfts_dump -> parse_lft_dump gives back the tables, GUIDs, LIDs
// and descriptions, on the fixture and on a generated fabric with random tables.
#include <random>

#include <catch2/catch.hpp>

#include "sm/dump/lft_dump.h"
#include "sm/dump/opensm_dump.h"
#include "sm/topogen/generators.h"
#include "tests/sm/dump/dump_test_util.h"

namespace ibsm {
namespace {

// What the dump can carry of a table: entries from LID 0 to the top LID that
// name a port of the switch.
std::vector<uint8_t> dumpable(const std::vector<uint8_t>& lft, const Node& node, uint16_t top) {
  std::vector<uint8_t> out(size_t{top} + 1, 0xFF);
  for (size_t lid = 0; lid < out.size() && lid < lft.size(); ++lid) {
    if (lft[lid] <= node.num_ports) out[lid] = lft[lid];
  }
  return out;
}

void check_round_trip(const Fabric& f, const std::vector<std::vector<uint8_t>>& lfts, uint16_t top) {
  const std::string text = test::written([&](std::ostream& out) { write_opensm_lfts_dump(f, lfts, out); });
  const LftDump dump = test::parse_ok(text, "opensm-lfts.dump");
  CHECK(dump.format == LftDumpFormat::opensm);
  CHECK(dump.switches.size() == f.switch_count());
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    if (!node.is_switch()) continue;
    const LftDumpSwitch* sw = dump.find(node.node_guid);
    INFO(node.name);
    REQUIRE(sw != nullptr);
    CHECK(sw->lid == node.port(0).base_lid);
    CHECK(sw->description == node.description);
    CHECK(sw->last_lid == top);
    CHECK(sw->table() == dumpable(lfts[i], node, top));
    for (const LftDumpEntry& e : sw->entries) {
      // Every LID some port has names that port's GUID.
      if (auto owner = f.find_by_port_guid(e.port_guid.value_or(Guid{}))) {
        const Node& dest = f.node(owner->node);
        const Port& p = dest.port(dest.is_switch() ? 0 : owner->port);
        CHECK(e.lid.value >= p.base_lid.value);
        CHECK(e.lid.value < p.base_lid.value + (1 << p.lmc));
      } else {
        CHECK_FALSE(e.port_guid.has_value());
      }
    }
  }
}

}  // namespace

TEST_CASE("round trip on the two-switch fixture", "[dump][roundtrip]") {
  const Fabric f = test::two_switch_fabric();
  check_round_trip(f, test::two_switch_lfts(f), 4);
}

TEST_CASE("round trip on a leaf/spine fabric at LMC 2 with random tables", "[dump][roundtrip]") {
  Result<Fabric> built = topogen::leaf_spine({.leaves = 6, .spines = 3, .hosts_per_leaf = 5, .links_per_pair = 2});
  REQUIRE(built.ok());
  Fabric f = std::move(built).value();
  // LIDs: switches one each, CA ports four each (LMC 2), with a gap.
  uint16_t next = 1;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    Node& n = f.node(NodeIndex{i});
    if (n.is_switch()) {
      n.port(0).base_lid = Lid{next++};
    } else {
      next = static_cast<uint16_t>((next + 3) & ~3u);
      n.port(1).base_lid = Lid{next};
      n.port(1).lmc = 2;
      next = static_cast<uint16_t>(next + 4);
    }
    for (Port& p : n.ports) {
      if (p.connected()) p.state = PortState::active;
    }
  }
  const uint16_t top = static_cast<uint16_t>(next - 1);

  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> lfts(f.node_count());
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    if (!n.is_switch()) continue;
    // Some tables stop early, some run past the top; entries include 0xFF and
    // ports past the last one, which the dump leaves out.
    std::vector<uint8_t>& lft = lfts[i];
    lft.resize(std::uniform_int_distribution<size_t>(top / 2, size_t{top} + 10)(rng));
    std::uniform_int_distribution<int> port(0, n.num_ports + 3);
    for (uint8_t& e : lft) {
      const int p = port(rng);
      e = p > n.num_ports + 1 ? uint8_t{0xFF} : static_cast<uint8_t>(p);
    }
  }
  check_round_trip(f, lfts, top);
}

}  // namespace ibsm
