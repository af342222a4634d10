#include "sm/status_page/fabric_layout.h"

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "status_fixtures.h"

namespace ibsm::status {
namespace {

using testing::must;

TEST_CASE("layout: a fat tree in rows by hop distance from the CAs", "[status][layout]") {
  const Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  const FabricLayout l = layout_fabric(f);
  REQUIRE(l.rows.size() == 3);
  for (const auto& row : l.rows) CHECK(row.size() == 16);
  for (const NodeIndex n : l.rows[0]) {
    const Node& node = f.node(n);
    bool has_ca = false;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(static_cast<uint8_t>(p));
      has_ca = has_ca || (port.connected() && !f.node(port.remote_node).is_switch());
    }
    CHECK(has_ca);
  }
  // Every cable between switches joins neighbouring rows.
  for (const Link& link : f.links()) {
    if (!f.node(link.a.node).is_switch() || !f.node(link.b.node).is_switch()) continue;
    const uint32_t a = l.row_of[link.a.node.value], b = l.row_of[link.b.node.value];
    CHECK((a + 1 == b || b + 1 == a));
  }
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    if (!f.node(NodeIndex{n}).is_switch()) CHECK(l.row_of[n] == kNoRow);
  }
}

TEST_CASE("layout: leaf and spine, spines ordered by their leaves", "[status][layout]") {
  const Fabric f = must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2}));
  const FabricLayout l = layout_fabric(f);
  REQUIRE(l.rows.size() == 2);
  CHECK(l.rows[0].size() == 4);
  CHECK(l.rows[1].size() == 2);
  for (size_t p = 0; p < l.rows[1].size(); ++p) CHECK(l.position_of[l.rows[1][p].value] == p);
}

TEST_CASE("layout: a torus with CAs everywhere is one row; an island without CAs a row of its own",
          "[status][layout]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 1}));
  FabricLayout l = layout_fabric(f);
  REQUIRE(l.rows.size() == 1);
  CHECK(l.rows[0].size() == 16);

  Node lone;
  lone.type = NodeType::switch_;
  lone.num_ports = 4;
  lone.node_guid = Guid{0xabcdef};
  lone.name = "island";
  const NodeIndex island = must(f.add_node(lone));
  l = layout_fabric(f);
  REQUIRE(l.rows.size() == 2);
  CHECK(l.rows[1] == std::vector<NodeIndex>{island});
}

TEST_CASE("layout: switches without any CA are all one row", "[status][layout]") {
  Fabric f = must(topogen::mesh({.dims = {3}, .torus = true, .hosts_per_switch = 0}));
  const FabricLayout l = layout_fabric(f);
  REQUIRE(l.rows.size() == 1);
  CHECK(l.rows[0].size() == 3);
}

}  // namespace
}  // namespace ibsm::status
