// MulticastForwarding makes the routing graph and the roots its trees need
// only once a group has members: a bring-up, whose groups have none yet,
// pays for neither.
#include "sm/multicast/multicast_forwarding.h"

#include <memory>

#include <catch2/catch.hpp>

#include "sm/topogen/generators.h"
#include "tests/routing/routing_fixtures.h"

using namespace ibsm;

namespace {

// No routing of its own: it counts how often the roots are asked for.
class CountingRoots final : public routing::RoutingEngine {
 public:
  std::string_view name() const override { return "counting"; }
  Result<routing::UnicastTables> compute(const routing::RoutingInput&) override {
    return internal_error("not a routing engine");
  }
  std::vector<routing::SwitchId> multicast_roots(const routing::RoutingInput& input) const override {
    ++asked;
    return {input.graph.switch_count() - 1};  // the last switch
  }
  mutable int asked = 0;
};

}  // namespace

TEST_CASE("multicast trees are rooted only once a group has members, and once for every group after",
          "[multicast][forwarding]") {
  auto fabric = topogen::kary_ntree({.k = 4, .n = 2});
  REQUIRE(fabric.ok());
  auto snapshot = std::make_shared<SubnetSnapshot>();
  snapshot->fabric = std::move(*fabric);
  routing::testing::assign_lids(snapshot->fabric);  // the graph needs them
  std::vector<PortRef> cas;
  for (uint32_t i = 0; i < snapshot->fabric.node_count(); ++i)
    if (!snapshot->fabric.node(NodeIndex{i}).is_switch()) cas.push_back({NodeIndex{i}, 1});
  auto engine = std::make_shared<CountingRoots>();
  auto forwarding = MulticastForwarding::create(snapshot, engine);
  REQUIRE(forwarding.ok());

  const Lid mlid{0xC001};
  REQUIRE(forwarding->update(std::vector<MulticastGroupMembers>{{mlid, {}}}).ok());
  CHECK(engine->asked == 0);

  REQUIRE(forwarding->update(std::vector<MulticastGroupMembers>{{mlid, {cas[0], cas[1]}}}).ok());
  CHECK(engine->asked == 1);
  const Lid other{0xC002};
  REQUIRE(forwarding->update(std::vector<MulticastGroupMembers>{{other, {cas[2], cas.back()}}}).ok());
  CHECK(engine->asked == 1);
  CHECK(forwarding->groups().size() == 2);
}
