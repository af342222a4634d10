// Generated fabrics survive the netfile: written as ibnetdiscover text and read
// back (as ibsim would load them), they are the same topology with the same
// names, descriptions and rates.
#include <sstream>

#include <catch2/catch.hpp>

#include "sm/fabric/compare.h"
#include "sm/fabric/netfile_reader.h"
#include "sm/fabric/netfile_writer.h"
#include "sm/topogen/catalog.h"
#include "sm/topogen/fail_links.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

namespace {

void check_roundtrip(const Fabric& generated) {
  std::ostringstream text;
  write_ibnetdiscover(generated, text);
  std::istringstream in(text.str());
  const Fabric loaded = value_of(read_netfile(in, "generated"));
  std::string why;
  CHECK(same_topology(generated, loaded, &why));
  INFO(why);
  REQUIRE(loaded.node_count() == generated.node_count());
  for (const Node& n : generated.nodes()) {
    INFO(n.name);
    const auto at = loaded.find_by_node_guid(n.node_guid);
    REQUIRE(at.has_value());
    const Node& m = loaded.node(*at);
    CHECK(m.name == n.name);
    CHECK(m.description == n.description);
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      const Port& a = n.port(static_cast<uint8_t>(p));
      const Port& b = m.port(static_cast<uint8_t>(p));
      CHECK(a.connected() == b.connected());
      if (!a.connected()) continue;
      CHECK(b.width_active == a.width_active);
      CHECK(b.speed_active == a.speed_active);
      CHECK(b.speed_ext_active == a.speed_ext_active);
    }
  }
}

}  // namespace

TEST_CASE("every kind round-trips through the ibnetdiscover writer and reader", "[topogen][netfile]") {
  for (const KindSpec& kind : kinds()) {
    INFO(kind.name);
    check_roundtrip(value_of(generate(kind.name, {})));
  }
}

TEST_CASE("rates and failed links round-trip too", "[topogen][netfile]") {
  Fabric f = value_of(generate("dragonfly", {{"width", "12x"}, {"speed", "DDR"}}));
  REQUIRE(value_of(fail_links(f, {5, 3, true})).size() == 5);
  check_roundtrip(f);
  check_roundtrip(value_of(generate("torus", {{"dims", "2,3"}, {"speed", "EDR"}})));
}
