#include "sm/fabric/netfile_reader.h"

#include <map>

#include <catch2/catch.hpp>

#include "tests/sm/fabric/fabric_test_util.h"

namespace ibsm {
namespace {

using test::load_fixture;
using test::load_text;
using test::node_named;
using test::parse_error;

const Port& port_of(const Fabric& f, const std::string& name, uint8_t port) { return node_named(f, name).port(port); }

// "Name[port]" of the far end of a port, or "" when the port is free.
std::string peer_of(const Fabric& f, const std::string& name, uint8_t port) {
  const Port& p = port_of(f, name, port);
  if (!p.connected()) return "";
  return f.node(p.remote_node).name + "[" + std::to_string(p.remote_port) + "]";
}

}  // namespace

TEST_CASE("an ibsim netfile: GUIDs, descriptions, links and rates as ibsim assigns them",
          "[fabric][netfile][reader]") {
  const Fabric f = load_fixture("mixed.net");
  REQUIRE(f.node_count() == 7);
  CHECK(f.switch_count() == 3);
  CHECK(f.ca_count() == 4);

  // Switches count up from 0x200000 with one GUID each, on every port.
  const Node& spine = node_named(f, "Spine");
  CHECK(spine.type == NodeType::switch_);
  CHECK(spine.num_ports == 8);
  CHECK(spine.node_guid == Guid{0x200000});
  CHECK(spine.system_guid == Guid{0x200000});
  CHECK(spine.description == "Spine");
  CHECK_FALSE(spine.enhanced_port0);
  for (const Port& p : spine.ports) CHECK(p.guid == Guid{0x200000});
  const Node& leaf = node_named(f, "Leaf");
  CHECK(leaf.node_guid == Guid{0x200001});
  CHECK(leaf.description == "leaf switch");
  CHECK(leaf.enhanced_port0);
  CHECK(leaf.port(0).base_lid == Lid{4});
  CHECK(leaf.port(0).lmc == 1);
  CHECK(node_named(f, "Edge").node_guid == Guid{0x7000});  // switchguid=0x7000

  // CAs count from caguid=; each takes its node GUID and one per port.
  const Node& hca1 = node_named(f, "Hca1");
  CHECK(hca1.type == NodeType::ca);
  CHECK(hca1.node_guid == Guid{0x2c90000001000});
  CHECK(hca1.port(1).guid == Guid{0x2c90000001001});
  CHECK(hca1.port(2).guid == Guid{0x2c90000001002});
  const Node& hca2 = node_named(f, "Hca2");
  CHECK(hca2.node_guid == Guid{0x2c90000001003});
  CHECK(hca2.port(2).guid == Guid{0x2c90000001005});
  CHECK(hca2.description == "host two");
  CHECK(node_named(f, "Hca3").node_guid == Guid{0x2c90000001006});
  // ibsim has no starting GUID for routers: they count from 0.
  const Node& router = node_named(f, "Router1");
  CHECK(router.type == NodeType::router);
  CHECK(router.node_guid == Guid{0});
  CHECK(router.port(1).guid == Guid{1});
  CHECK(router.port(2).guid == Guid{2});

  for (const Node& n : f.nodes()) {
    CHECK(n.vendor_id == 0);
    CHECK(n.device_id == 0);
    CHECK(n.revision == 0xa1);
  }

  CHECK(peer_of(f, "Spine", 1) == "Leaf[7]");
  CHECK(peer_of(f, "Spine", 2) == "Leaf[8]");
  CHECK(peer_of(f, "Spine", 3) == "Router1[1]");
  CHECK(peer_of(f, "Spine", 4) == "Edge[2]");
  CHECK(peer_of(f, "Spine", 8) == "Hca2[2]");
  CHECK(peer_of(f, "Leaf", 1) == "Hca1[1]");
  CHECK(peer_of(f, "Leaf", 2) == "Hca2[1]");
  CHECK(peer_of(f, "Edge", 1) == "Hca3[1]");  // no port after the name: port 1
  CHECK(peer_of(f, "Spine", 5).empty());
  CHECK(peer_of(f, "Hca1", 2).empty());
  CHECK(f.links().size() == 8);

  // s=3 against s=2: DDR; w=9 on both ends: 12x; otherwise ibsim's 4x SDR.
  CHECK(port_of(f, "Spine", 1).speed_active == link_speed::ddr);
  CHECK(port_of(f, "Leaf", 7).speed_active == link_speed::ddr);
  CHECK(port_of(f, "Spine", 1).width_active == link_width::x4);
  CHECK(port_of(f, "Spine", 2).width_active == link_width::x12);
  CHECK(port_of(f, "Leaf", 8).width_active == link_width::x12);
  CHECK(port_of(f, "Spine", 2).speed_active == link_speed::sdr);
  CHECK(port_of(f, "Hca1", 1).width_active == link_width::x4);
  CHECK(port_of(f, "Hca1", 1).speed_ext_active == link_speed_ext::none);

  // Cabled ports come up in Init, free ones Down, a switch's port 0 Active.
  CHECK(port_of(f, "Hca1", 1).state == PortState::init);
  CHECK(port_of(f, "Hca1", 1).phys_state == PhysState::link_up);
  CHECK(port_of(f, "Hca1", 2).state == PortState::down);
  CHECK(port_of(f, "Hca1", 2).phys_state == PhysState::polling);
  CHECK(port_of(f, "Spine", 0).state == PortState::active);
}

TEST_CASE("ibnetdiscover output: listed GUIDs, LIDs, ids and rates", "[fabric][netfile][reader]") {
  const Fabric f = load_fixture("discovered.topo");
  REQUIRE(f.node_count() == 5);
  const Node& core = node_named(f, "S-0002c90300000100");
  CHECK(core.node_guid == Guid{0x2c90300000100});
  CHECK(core.num_ports == 36);
  CHECK(core.description == "MF0;core:SX6036/U1");
  CHECK(core.enhanced_port0);
  CHECK(core.port(0).base_lid == Lid{1});
  CHECK(core.vendor_id == 0x2c9);
  CHECK(core.device_id == 0xc738);
  const Node& edge = node_named(f, "S-0002c90300000200");
  CHECK_FALSE(edge.enhanced_port0);
  CHECK(edge.port(0).base_lid == Lid{6});

  const Node& node02 = node_named(f, "H-0002c90300000020");
  CHECK(node02.node_guid == Guid{0x2c90300000020});
  CHECK(node02.system_guid == Guid{0x2c90300000023});
  CHECK(node02.device_id == 0x1003);
  CHECK(node02.description == "node02 mlx4_0");
  CHECK(node02.port(1).guid == Guid{0x2c90300000021});
  CHECK(node02.port(1).base_lid == Lid{4});
  CHECK(node02.port(2).base_lid == Lid{5});
  CHECK(node_named(f, "H-0002c90300000010").port(1).base_lid == Lid{2});

  // A router: its GUID from rtguid=, its system GUID its own (no sysimgguid=),
  // and no LID or rate read from its port lines.
  const Node& router = node_named(f, "R-0002c90300000030");
  CHECK(router.type == NodeType::router);
  CHECK(router.node_guid == Guid{0x2c90300000030});
  CHECK(router.system_guid == Guid{0x2c90300000030});
  CHECK(router.device_id == 0);
  CHECK(router.vendor_id == 0x2c9);

  CHECK(peer_of(f, "S-0002c90300000100", 3) == "S-0002c90300000200[10]");
  CHECK(peer_of(f, "S-0002c90300000100", 4) == "S-0002c90300000200[11]");
  CHECK(peer_of(f, "S-0002c90300000100", 5) == "H-0002c90300000020[2]");
  CHECK(peer_of(f, "S-0002c90300000200", 1) == "R-0002c90300000030[1]");
  CHECK(f.links().size() == 6);

  // "12xQDR" on both ends; "4xFDR" is QDR plus the FDR extended speed.
  const Port& trunk = port_of(f, "S-0002c90300000200", 10);
  CHECK(trunk.width_active == link_width::x12);
  CHECK(trunk.speed_active == link_speed::qdr);
  CHECK(trunk.speed_ext_active == link_speed_ext::none);
  const Port& host = port_of(f, "H-0002c90300000020", 2);
  CHECK(host.width_active == link_width::x4);
  CHECK(host.speed_active == link_speed::qdr);
  CHECK(host.speed_ext_active == link_speed_ext::fdr);
  const Port& to_router = port_of(f, "S-0002c90300000200", 1);
  CHECK(to_router.width_active == link_width::x4);
  CHECK(to_router.speed_active == link_speed::sdr);
}

TEST_CASE("per-node and running settings", "[fabric][netfile][reader]") {
  SECTION("vendid and sysimgguid apply to one node, devid to all after it") {
    const Fabric f = load_text(
        "vendid=0x2c9\ndevid=0x1234\nsysimgguid=0x99\nHca 1 \"H1\"\n[1] \"H2\"[1]\n\nHca 1 \"H2\"\n[1] \"H1\"[1]\n");
    CHECK(node_named(f, "H1").vendor_id == 0x2c9);
    CHECK(node_named(f, "H1").system_guid == Guid{0x99});
    CHECK(node_named(f, "H1").device_id == 0x1234);
    CHECK(node_named(f, "H2").vendor_id == 0);
    CHECK(node_named(f, "H2").system_guid == Guid{0x100002});
    CHECK(node_named(f, "H2").device_id == 0x1234);
  }
  SECTION("GUID bases are absolute with = and relative to the last one with +") {
    const Fabric f = load_text(
        "caguid=0x1000\nHca 2 \"A\"\n\ncaguid+0x10\nHca 1 \"B\"\n\nHca 1 \"C\"\n\nhcaguids=0x5000\nCa 1 \"D\"\n\n"
        "rtguid=0x700\nRt 1 \"R\"\n\nswitchguid+3\nSwitch 2 \"S\"\n");
    CHECK(node_named(f, "A").node_guid == Guid{0x1000});
    CHECK(node_named(f, "B").node_guid == Guid{0x1010});
    CHECK(node_named(f, "C").node_guid == Guid{0x1012});
    CHECK(node_named(f, "D").node_guid == Guid{0x5000});
    CHECK(node_named(f, "R").node_guid == Guid{0x700});
    CHECK(node_named(f, "S").node_guid == Guid{0x200003});
  }
  SECTION("width=, speed= and extspeed= set the enabled rates of later nodes") {
    const Fabric f = load_text(
        "width=11\nspeed=7\nextspeed=3\nSwitch 4 \"S1\"\n[1] \"H1\"[1]\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n");
    const Port& p = port_of(f, "S1", 1);
    CHECK(p.width_active == link_width::x12);
    CHECK(p.speed_active == link_speed::qdr);
    CHECK(p.speed_ext_active == link_speed_ext::edr);
  }
  SECTION("module prefixes node ids") {
    const Fabric f = load_text("module = \"m1\"\nSwitch 4 \"S1\"\n[1] \"H1\"[1]\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n");
    CHECK(node_named(f, "m1#S1").description == "m1#S1");
    CHECK(peer_of(f, "m1#S1", 1) == "m1#H1[1]");
  }
}

TEST_CASE("LIDs and descriptions are read where ibsim reads them", "[fabric][netfile][reader]") {
  // Measured against ibsim 0.10: a CA port's LID counts only with a rate after the last quote.
  const Fabric f = load_text(
      "Switch 4 \"S1\" lid 5\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"H3\"[1]\n\n"
      "Hca 1 \"H1\"\n[1] \"S1\"[1] # lid 5 lmc 1 \"S1\"\n\n"
      "Hca 1 \"H2\"\n[1] \"S1\"[2] lid 6\n\n"
      "Hca 1 \"H3\"\n[1] \"S1\"[3] # \"solid x\" lid 3 4xSDR\n\n"
      "Switch 2 \"S2\" # top switch lid 7 lmc 2\n\n"
      "Switch 2 \"S3\" # \"\" base port 0 lid 8\n\n"
      "Hca 1 \"H4\" # \"" + std::string(70, 'd') + "\"\n");
  CHECK(port_of(f, "S1", 0).base_lid == Lid{5});
  CHECK(port_of(f, "H1", 1).base_lid == Lid{0});
  CHECK(port_of(f, "H2", 1).base_lid == Lid{6});
  CHECK(port_of(f, "H3", 1).base_lid == Lid{0});  // "lid " first matches inside "solid x"
  CHECK(node_named(f, "S2").description == "top switch");
  CHECK(port_of(f, "S2", 0).base_lid == Lid{7});
  CHECK(port_of(f, "S2", 0).lmc == 2);
  CHECK(node_named(f, "S3").description == "S3");  // empty: the node id
  CHECK(port_of(f, "S3", 0).base_lid == Lid{8});
  CHECK(node_named(f, "H4").description == std::string(63, 'd'));
}

TEST_CASE("record boundaries as ibsim sees them", "[fabric][netfile][reader]") {
  // A header right after a complete port list starts a new record, CRLF is fine.
  const Fabric f = load_text("Hca 1 \"H1\"\r\n[1] \"S1\"[1]\r\nSwitch 4 \"S1\"\r\n[1] \"H1\"[1]\r\n");
  CHECK(peer_of(f, "S1", 1) == "H1[1]");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\nHca 1 \"H1\"\n[1] \"S1\"[1]\n") ==
        "net.bad:3: \"Hca 1 \"H1\"\" ends the port list of \"S1\" and would be ignored by ibsim; "
        "leave a blank line between records");
  CHECK(parse_error("\n[1] \"S1\"[1]\n") == "net.bad:2: port line outside a node record");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\" " + std::string(260, ' ') + "\n") ==
        "net.bad:2: line longer than 254 characters (ibsim splits it)");
}

TEST_CASE("errors name the source, the line and the problem", "[fabric][netfile][reader]") {
  CHECK(parse_error("Switch 8 \"Switch1\"\n[1] \"Hca1\"[1]\n[9] \"Hca1\"[2]\n") ==
        "net.bad:3: port 9 out of range for \"Switch1\" (8 ports)");
  CHECK(parse_error("Switch 8 \"Switch1\"\n[1] \"Hca1\"[3]\n\nHca 2 \"Hca1\"\n[1] \"Switch1\"[1]\n") ==
        "net.bad:2: port 3 out of range for \"Hca1\" (2 ports)");
  CHECK(parse_error("Switch 4 \"S1\"\n[0] \"H1\"[1]\n") == "net.bad:2: port 0 out of range for \"S1\" (4 ports)");
  CHECK(parse_error("# a comment\nSwich 8 \"S\"\n") ==
        "net.bad:2: unknown node type \"Swich\" (expected Switch, Hca, Ca or Rt)");
  CHECK(parse_error("Router 2 \"R\"\n") == "net.bad:1: unknown node type \"Router\" (expected Switch, Hca, Ca or Rt)");
  CHECK(parse_error("Switchx 8 \"S\"\n") == "net.bad:1: unknown node type \"Switchx\" (expected Switch, Hca, Ca or Rt)");
  CHECK(parse_error("  Switch 8 \"S\"\n") == "net.bad:1: a node header must start at the beginning of the line");
  CHECK(parse_error("Hca 0 \"H\"\n") == "net.bad:1: \"H\" has 0 ports; a node has 1 to 254");
  CHECK(parse_error("Switch \"S\"\n") == "net.bad:1: bad port count \"\" for \"S\"");
  CHECK(parse_error("Switch 8 \"S#1\"\n") == "net.bad:1: bad node name \"S#1\": '#' and '@' are reserved");
  CHECK(parse_error("Switch 8 \"S1\"\n[1] \"H9\"[1]\n") == "net.bad:2: link to undefined node \"H9\"");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n") ==
        "net.bad:3: \"S1\"[2] is linked to \"H2\"[1], which does not list it (ibsim needs both ends)");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\n\nSwitch 4 \"S2\"\n[1] \"H1\"[1]\n\nHca 1 \"H1\"\n[1] \"S2\"[1]\n") ==
        "net.bad:2: conflicting links: \"S1\"[1] is linked to \"H1\"[1], but \"H1\"[1] to \"S2\"[1] (net.bad:8)");
  CHECK(parse_error("Switch 4 \"S1\"\n\nSwitch 4 \"S1\"\n") == "net.bad:3: duplicate node name \"S1\" (first at net.bad:1)");
  CHECK(parse_error("switchguid=0x10\nSwitch 4 \"S1\"\n\nswitchguid=0x10\nSwitch 4 \"S2\"\n") ==
        "net.bad:5: node guid 0x0000000000000010 of \"S2\" is already used by \"S1\"");
  CHECK(parse_error("Rt 1 \"R1\"\n\nrtguid=0\nRt 1 \"R2\"\n") ==
        "net.bad:4: node guid 0x0000000000000000 of \"R2\" is already used by \"R1\"");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\"[1] w=1\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n") ==
        "net.bad:2: no common link width for \"S1\"[1] and \"H1\"[1] (enabled 0x1 and 0x2)");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\"[1] s=2\n\nHca 1 \"H1\"\n[1] \"S1\"[1]\n") ==
        "net.bad:2: no common link speed for \"S1\"[1] and \"H1\"[1] (enabled 0x2 and 0x1)");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\"[1] w=40\n") == "net.bad:2: bad port option w=40 (1..31)");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\"[1]\n[1] \"H2\"[1]\n") ==
        "net.bad:3: port 1 of \"S1\" listed twice (first at net.bad:2)");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H1\" [2]\n") ==
        "net.bad:2: the remote port must follow the name directly (\"H1\"[n]); ibsim would use port 1");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"S1\"[1]\n") == "net.bad:2: port 1 of \"S1\" is linked to itself");
  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"@a\"[1]\n") == "net.bad:2: port aliases ('@') are not supported");
  CHECK(parse_error("Switch 4 \"S1\"\n[x] \"H1\"[1]\n") == "net.bad:2: bad port line \"[x] \"H1\"[1]\"");
  CHECK(parse_error("width=0\n") == "net.bad:1: bad enabled width 0 (1..31)");
  CHECK(parse_error("Switch 4 \"S1\"\n\n\ninclude \"more.net\"\n") ==
        "net.bad:4: include \"more.net\": no include resolver");
}

TEST_CASE("include resolves through the caller, do lines and unknown lines become notes",
          "[fabric][netfile][reader]") {
  std::map<std::string, std::string> files{
      {"hosts.net", "Hca 1 \"H1\"\n[1] \"S1\"[1]\n"},
      {"bad.net", "\nHca 2 \"H2\"\n[3] \"S1\"[1]\n"},
      {"self.net", "include \"self.net\"\n"},
  };
  std::vector<std::string> notes;
  NetfileOptions options;
  options.include_resolver = [&](std::string_view name) -> Result<std::string> {
    auto it = files.find(std::string(name));
    if (it == files.end()) return not_found_error("no such file");
    return it->second;
  };
  options.on_note = [&](const std::string& note) { notes.push_back(note); };

  const Fabric f = load_text(
      "Switch 4 \"S1\"\n[1] \"H1\"[1]\n\ninclude \"hosts.net\"\ndo Wait 3\nChassis 1 (guid 0x1)\n", "main.net", options);
  CHECK(node_named(f, "H1").node_guid == Guid{0x100000});
  CHECK(peer_of(f, "S1", 1) == "H1[1]");
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] == "main.net:5: skipped ibsim command \"Wait 3\"");
  CHECK(notes[1] == "main.net:6: ignored line \"Chassis 1 (guid 0x1)\"");

  CHECK(parse_error("Switch 4 \"S1\"\n[1] \"H2\"[1]\n\ninclude \"bad.net\"\n", options) ==
        "bad.net:3: port 3 out of range for \"H2\" (2 ports)");
  CHECK(parse_error("include \"missing.net\"\n", options) == "net.bad:1: include \"missing.net\": no such file");
  CHECK(parse_error("include \"self.net\"\n", options) == "self.net:1: includes nested deeper than 9");
}

TEST_CASE("port GUIDs listed in ibnetdiscover output", "[fabric][netfile][reader]") {
  const std::string text =
      "Switch 4 \"S1\"\n[1] \"H-1\"[1](55) \t\t# \"h\" lid 3 4xSDR\n\n"
      "caguid=0x50\nCa 1 \"H-1\" # \"h\"\n[1](55) \t\"S1\"[1] # lid 3 lmc 0 \"S1\" lid 0 4xSDR\n";
  std::vector<std::string> notes;
  NetfileOptions options;
  options.on_note = [&](const std::string& note) { notes.push_back(note); };
  const Fabric like_ibsim = load_text(text, "net.test", options);
  CHECK(port_of(like_ibsim, "H-1", 1).guid == Guid{0x51});
  CHECK(port_of(like_ibsim, "H-1", 1).base_lid == Lid{3});
  REQUIRE(notes.size() == 1);
  CHECK(notes[0] == "net.test:6: \"H-1\" port 1 is listed with guid 0x0000000000000055; ibsim uses 0x0000000000000051");

  options.keep_listed_port_guids = true;
  const Fabric as_listed = load_text(text, "net.test", options);
  CHECK(port_of(as_listed, "H-1", 1).guid == Guid{0x55});
  CHECK(as_listed.find_by_port_guid(Guid{0x55}).has_value());
  CHECK_FALSE(as_listed.find_by_port_guid(Guid{0x51}).has_value());
}

}  // namespace ibsm
