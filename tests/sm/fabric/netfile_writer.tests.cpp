#include "sm/fabric/netfile_writer.h"

#include <cctype>
#include <sstream>

#include <catch2/catch.hpp>

#include "sm/fabric/compare.h"
#include "tests/sm/fabric/fabric_test_util.h"

namespace ibsm {
namespace {

using test::load_fixture;
using test::load_text;
using test::node_named;

std::string ibnetdiscover_text(const Fabric& f) {
  std::ostringstream out;
  write_ibnetdiscover(f, out);
  return out.str();
}

// What same_topology leaves out but a written file must also carry over.
void check_same_details(const Fabric& a, const Fabric& b) {
  std::string why;
  const bool same = same_topology(a, b, &why);
  INFO(why);
  REQUIRE(same);
  for (const Node& na : a.nodes()) {
    const auto ib = b.find_by_node_guid(na.node_guid);
    const Node& nb = ib ? b.node(*ib) : b.node(*b.find_by_name(na.name));  // a zero GUID: by name
    INFO("node " << na.name);
    CHECK(na.name == nb.name);
    CHECK(na.system_guid == nb.system_guid);
    CHECK(na.vendor_id == nb.vendor_id);
    CHECK(na.device_id == nb.device_id);
    CHECK(na.enhanced_port0 == nb.enhanced_port0);
    for (size_t p = 0; p < na.ports.size(); ++p) {
      INFO("port " << p);
      const Port& pa = na.ports[p];
      const Port& pb = nb.ports[p];
      CHECK(pa.guid == pb.guid);
      CHECK(pa.state == pb.state);
      CHECK(pa.width_active == pb.width_active);
      CHECK(pa.speed_ext_active == pb.speed_ext_active);
      // Under an extended speed ibnetdiscover prints only that ("FDR"), which
      // ibsim reads as enabling SDR..QDR too: the base speed is not carried.
      if (pa.speed_ext_active == link_speed_ext::none) CHECK(pa.speed_active == pb.speed_active);
      // ibsim reads no LIDs on router port lines, and a free CA port has no line.
      if (na.type != NodeType::router && (pa.connected() || na.is_switch())) {
        CHECK(pa.base_lid == pb.base_lid);
        CHECK(pa.lmc == pb.lmc);
      }
    }
  }
}

Fabric round_trip(const Fabric& f) { return load_text(ibnetdiscover_text(f), "written.topo"); }

// A strict JSON syntax check, enough to know the writer's output parses.
class JsonChecker {
 public:
  explicit JsonChecker(std::string_view text) : s_(text) {}
  bool valid() {
    if (!value()) return false;
    space();
    return i_ == s_.size();
  }

 private:
  void space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  bool literal(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  bool string() {
    if (!eat('"')) return false;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (static_cast<unsigned char>(s_[i_]) < 0x20) return false;
      if (s_[i_] == '\\') ++i_;
      ++i_;
    }
    return eat('"');
  }
  bool number() {
    const size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && (std::isdigit(static_cast<unsigned char>(s_[i_])) || s_[i_] == '.')) ++i_;
    return i_ > start;
  }
  bool value() {
    space();
    if (i_ >= s_.size()) return false;
    const char c = s_[i_];
    if (c == '{') return container('}', true);
    if (c == '[') return container(']', false);
    if (c == '"') return string();
    if (c == 't') return literal("true");
    if (c == 'f') return literal("false");
    if (c == 'n') return literal("null");
    return number();
  }
  bool container(char close, bool object) {
    ++i_;
    if (eat(close)) return true;
    do {
      if (object && !(string() && eat(':'))) return false;
      if (!value()) return false;
    } while (eat(','));
    return eat(close);
  }
  std::string_view s_;
  size_t i_ = 0;
};

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("write_ibnetdiscover prints what ibnetdiscover prints", "[fabric][netfile][writer]") {
  const Fabric f = load_text(
      "Switch 4 \"S1\" # \"switch one\" enhanced port 0 lid 1 lmc 0\n"
      "[1] \"H1\"[1] # \"h\" lid 2 12xQDR\n"
      "[2] \"H1\"[2]\n\n"
      "Hca 2 \"H1\" # \"host one\"\n"
      "[1] \"S1\"[1] # lid 2 lmc 0 \"S1\" lid 1 12xQDR\n"
      "[2] \"S1\"[2]\n");
  CHECK(ibnetdiscover_text(f) ==
        "#\n# Topology file: written by ibsm in ibnetdiscover's format\n#\n"
        "\nvendid=0x0\ndevid=0x0\nsysimgguid=0x200000\nswitchguid=0x200000(200000)\n"
        "Switch\t4 \"S1\"\t\t# \"switch one\" enhanced port 0 lid 1 lmc 0\n"
        "[1]\t\"H1\"[1](100001) \t\t# \"host one\" lid 2 12xQDR\n"
        "[2]\t\"H1\"[2](100002) \t\t# \"host one\" lid 0 4xSDR\n"
        "\nvendid=0x0\ndevid=0x0\nsysimgguid=0x100000\ncaguid=0x100000\n"
        "Ca\t2 \"H1\"\t\t# \"host one\"\n"
        "[1](100001) \t\"S1\"[1]\t\t# lid 2 lmc 0 \"switch one\" lid 1 12xQDR\n"
        "[2](100002) \t\"S1\"[2]\t\t# lid 0 lmc 0 \"switch one\" lid 1 4xSDR\n");
}

TEST_CASE("written topology files read back to the same fabric", "[fabric][netfile][writer]") {
  SECTION("the ibsim-format fixture") {
    const Fabric f = load_fixture("mixed.net");
    check_same_details(f, round_trip(f));
  }
  SECTION("the ibnetdiscover-format fixture") {
    const Fabric f = load_fixture("discovered.topo");
    const std::string text = ibnetdiscover_text(f);
    CHECK(text.find("rtguid=0x2c90300000030\nRt\t2 \"R-0002c90300000030\"\t\t# \"router0\"\n") != std::string::npos);
    check_same_details(f, round_trip(f));
  }
  SECTION("CA to CA links, EDR and 8x, LIDs and a second write that changes nothing") {
    const Fabric f = load_text(
        "Hca 2 \"A\"\n[1] \"B\"[2] # lid 7 lmc 2 \"B\" lid 9 8xEDR\n[2] \"B\"[1] e=1\n\n"
        "Hca 2 \"B\"\n[2] \"A\"[1] # lid 9 lmc 0 \"A\" lid 7 8xEDR\n[1] \"A\"[2] e=3\n");
    CHECK(node_named(f, "A").port(1).width_active == link_width::x8);
    CHECK(node_named(f, "A").port(1).speed_ext_active == link_speed_ext::edr);
    CHECK(node_named(f, "A").port(2).speed_ext_active == link_speed_ext::fdr);
    const Fabric back = round_trip(f);
    check_same_details(f, back);
    CHECK(ibnetdiscover_text(back) == ibnetdiscover_text(f));
  }
}

TEST_CASE("a router's link rate survives through port options", "[fabric][netfile][writer]") {
  const Fabric f = load_text(
      "Switch 4 \"S1\"\n[1] \"R1\"[2] # \"R1\" lid 0 12xDDR\n\n"
      "Rt 2 \"R1\"\n[2] \"S1\"[1] w=9 s=3 e=1 # lid 0 lmc 0 \"S1\" lid 0 4xSDR\n");
  const Port& p = node_named(f, "R1").port(2);
  CHECK(p.width_active == link_width::x12);  // 12x enables 1x|4x|12x; w=9 is 1x|12x
  CHECK(p.speed_active == link_speed::ddr);  // the router's 4xSDR text is not read
  CHECK(p.speed_ext_active == link_speed_ext::none);  // the switch enables no extended speed
  const std::string text = ibnetdiscover_text(f);
  CHECK(text.find("# lid 0 lmc 0 \"S1\" lid 0 12xDDR s=2 w=8\n") != std::string::npos);
  check_same_details(f, round_trip(f));
}

TEST_CASE("nodes without a usable name get ibnetdiscover's names", "[fabric][netfile][writer]") {
  Fabric f;
  Node sw;
  sw.type = NodeType::switch_;
  sw.num_ports = 2;
  sw.node_guid = Guid{0x2c9000000aa00};
  sw.description = "a \"quoted\" switch";
  sw.ports.resize(3);
  for (Port& p : sw.ports) p.guid = sw.node_guid;
  Node ca;
  ca.type = NodeType::ca;
  ca.num_ports = 1;
  ca.node_guid = Guid{0x2c9000000bb00};
  ca.name = "bad#name";
  ca.description = "host";
  ca.ports.resize(2);
  ca.ports[1].guid = Guid{0x2c9000000bb01};
  const NodeIndex s = *f.add_node(std::move(sw));
  const NodeIndex h = *f.add_node(std::move(ca));
  REQUIRE(f.connect({s, 2}, {h, 1}).ok());

  const std::string text = ibnetdiscover_text(f);
  CHECK(text.find("Switch\t2 \"S-0002c9000000aa00\"\t\t# \"a 'quoted' switch\"") != std::string::npos);
  CHECK(text.find("Ca\t1 \"H-0002c9000000bb00\"") != std::string::npos);
  const Fabric back = load_text(text, "written.topo");
  CHECK(node_named(back, "S-0002c9000000aa00").description == "a 'quoted' switch");
  CHECK(node_named(back, "H-0002c9000000bb00").port(1).remote_port == 2);
}

TEST_CASE("write_json describes nodes, ports and links", "[fabric][writer][json]") {
  const Fabric f = load_fixture("mixed.net");
  std::ostringstream out;
  write_json(f, out);
  const std::string json = out.str();
  CHECK(JsonChecker(json).valid());
  CHECK(count_of(json, "\"type\": \"Switch\"") == 3);
  CHECK(count_of(json, "\"type\": \"Ca\"") == 3);
  CHECK(count_of(json, "\"type\": \"Router\"") == 1);
  CHECK(json.find("\"name\": \"Leaf\", \"description\": \"leaf switch\", \"node_guid\": \"0x0000000000200001\"") !=
        std::string::npos);
  CHECK(json.find("{\"num\": 0, \"guid\": \"0x0000000000200001\", \"lid\": 4, \"lmc\": 1, \"state\": \"Active\", "
                  "\"phys_state\": \"LinkUp\"") != std::string::npos);
  CHECK(json.find("{\"num\": 2, \"guid\": \"0x0002c90000001002\", \"lid\": 0, \"lmc\": 0, \"state\": \"Down\", "
                  "\"phys_state\": \"Polling\", \"width\": \"4x\", \"speed\": \"SDR\"}") != std::string::npos);
  CHECK(json.find("\"a\": {\"node_guid\": \"0x0000000000200000\", \"name\": \"Spine\", \"port\": 2}, "
                  "\"b\": {\"node_guid\": \"0x0000000000200001\", \"name\": \"Leaf\", \"port\": 8}, "
                  "\"width\": \"12x\", \"speed\": \"SDR\"") != std::string::npos);
  const size_t links_at = json.find("\"links\"");
  REQUIRE(links_at != std::string::npos);
  CHECK(count_of(json.substr(links_at), "\"a\":") == f.links().size());

  Fabric odd;
  Node n;
  n.type = NodeType::ca;
  n.num_ports = 1;
  n.name = "tab\there \"q\" back\\slash";
  REQUIRE(odd.add_node(std::move(n)).ok());
  std::ostringstream odd_out;
  write_json(odd, odd_out);
  CHECK(JsonChecker(odd_out.str()).valid());
  CHECK(odd_out.str().find(R"("tab\there \"q\" back\\slash")") != std::string::npos);
  CHECK_FALSE(JsonChecker("{\"a\": [1, 2,]}").valid());  // the checker can say no
}

TEST_CASE("write_dot draws one labelled edge per link", "[fabric][writer][dot]") {
  const Fabric f = load_fixture("mixed.net");
  std::ostringstream out;
  write_dot(f, out);
  const std::string dot = out.str();
  CHECK(dot.starts_with("graph fabric {\n"));
  CHECK(dot.ends_with("}\n"));
  CHECK(count_of(dot, " -- ") == f.links().size());
  CHECK(count_of(dot, "shape=box") == 3);
  CHECK(count_of(dot, "shape=ellipse") == 3);
  CHECK(count_of(dot, "shape=diamond") == 1);
  CHECK(dot.find("  n1 [shape=box, label=\"leaf switch\\n0x0000000000200001\"];\n") != std::string::npos);
  // Spine[2] -- Leaf[8], the second of the parallel links.
  CHECK(dot.find("  n0 -- n1 [taillabel=\"2\", headlabel=\"8\"];\n") != std::string::npos);
  CHECK(dot.find("  n0 -- n1 [taillabel=\"1\", headlabel=\"7\"];\n") != std::string::npos);
}

}  // namespace ibsm
