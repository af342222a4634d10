#include "sm/fabric/compare.h"

#include <catch2/catch.hpp>

#include "tests/sm/fabric/fabric_test_util.h"

namespace ibsm {
namespace {

using test::load_fixture;
using test::load_text;

const char* const kBase =
    "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"S2\"[2]\n\n"
    "Switch 4 \"S2\"\n[2] \"S1\"[2]\n\n"
    "Hca 2 \"H1\"\n[1] \"S1\"[1]\n";

std::string difference(const Fabric& a, const Fabric& b) {
  std::string why = "unchanged";
  CHECK_FALSE(same_topology(a, b, &why));
  return why;
}

}  // namespace

TEST_CASE("same_topology pairs nodes by GUID, not by name or order", "[fabric][compare]") {
  const Fabric a = load_text(kBase);
  // The same fabric listed in another order, under other names, with other LIDs.
  const Fabric b = load_text(
      "Hca 2 \"host\" # \"H1\"\n[1] \"sw1\"[1] lid 9\n\n"
      "switchguid=0x200001\nSwitch 4 \"sw2\" # \"S2\"\n[2] \"sw1\"[2]\n\n"
      "switchguid=0x200000\nSwitch 4 \"sw1\" # \"S1\" lid 3\n[1] \"host\"[1]\n[2] \"sw2\"[2]\n");
  std::string why = "untouched";
  CHECK(same_topology(a, b, &why));
  CHECK(why.empty());
  CHECK(same_topology(b, a));
  CHECK(same_topology(load_fixture("mixed.net"), load_fixture("mixed.net")));
}

TEST_CASE("same_topology reports the first difference", "[fabric][compare]") {
  const Fabric a = load_text(kBase);
  SECTION("a missing link") {
    const Fabric b = load_text("Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nSwitch 4 \"S2\"\n\nHca 2 \"H1\"\n[1] \"S1\"[1]\n");
    CHECK(difference(a, b) ==
          "node 0x0000000000200000 (\"S1\"): port 2 is cabled to 0x0000000000200001[2] in a but free in b");
  }
  SECTION("a link to another port") {
    const Fabric b = load_text(
        "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"S2\"[3]\n\nSwitch 4 \"S2\"\n[3] \"S1\"[2]\n\nHca 2 \"H1\"\n[1] \"S1\"[1]\n");
    CHECK(difference(a, b) == "node 0x0000000000200000 (\"S1\"): port 2 is cabled to 0x0000000000200001[2] in a "
                              "but cabled to 0x0000000000200001[3] in b");
  }
  SECTION("a description") {
    const Fabric b = load_text(
        "Switch 4 \"S1\" # \"other\"\n[1] \"H1\"[1]\n[2] \"S2\"[2]\n\nSwitch 4 \"S2\"\n[2] \"S1\"[2]\n\n"
        "Hca 2 \"H1\"\n[1] \"S1\"[1]\n");
    CHECK(difference(a, b) == "node 0x0000000000200000 (\"S1\"): description \"S1\" in a, \"other\" in b");
  }
  SECTION("a port count") {
    const Fabric b = load_text(
        "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"S2\"[2]\n\nSwitch 4 \"S2\"\n[2] \"S1\"[2]\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n");
    CHECK(difference(a, b) == "node 0x0000000000100000 (\"H1\"): 2 ports in a, 1 in b");
  }
  SECTION("a node type") {
    const Fabric b = load_text(
        "Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"S2\"[2]\n\nSwitch 4 \"S2\"\n[2] \"S1\"[2]\n\n"
        "rtguid=0x100000\nRt 2 \"H1\"\n[1] \"S1\"[1]\n");
    CHECK(difference(a, b) == "node 0x0000000000100000 (\"H1\"): type Ca in a, Router in b");
  }
  SECTION("a port GUID") {
    Fabric b = load_text(kBase);
    b.node(*b.find_by_name("H1")).port(2).guid = Guid{0x42};
    CHECK(difference(a, b) ==
          "node 0x0000000000100000 (\"H1\"): port 2 guid 0x0000000000100002 in a, 0x0000000000000042 in b");
  }
  SECTION("a node only on one side") {
    const Fabric b = load_text(std::string(kBase) + "\nHca 1 \"H2\"\n");
    CHECK(difference(a, b) == "node 0x0000000000100003 (\"H2\") is in b but not in a");
    CHECK(difference(b, a) == "node 0x0000000000100003 (\"H2\") is in a but not in b");
  }
}

}  // namespace ibsm
