#include "sm/fabric/fabric.h"

#include <sys/resource.h>

#include <catch2/catch.hpp>

namespace ibsm {
namespace {

Node make_node(NodeType type, uint8_t ports, uint64_t guid, std::string name) {
  Node n;
  n.type = type;
  n.num_ports = ports;
  n.node_guid = Guid{guid};
  n.name = std::move(name);
  n.ports.resize(size_t{ports} + 1);
  for (size_t p = 0; p <= ports; ++p) {
    if (type == NodeType::switch_) n.ports[p].guid = Guid{guid};
    else if (p > 0) n.ports[p].guid = Guid{guid + p};
  }
  return n;
}

NodeIndex add(Fabric& f, Node n) {
  auto r = f.add_node(std::move(n));
  INFO(r.status().message());
  REQUIRE(r.ok());
  return *r;
}

}  // namespace

TEST_CASE("link width and speed names follow ibnetdiscover", "[fabric][names]") {
  CHECK(std::string(link_width_name(link_width::x1)) == "1x");
  CHECK(std::string(link_width_name(link_width::x2)) == "2x");
  CHECK(std::string(link_width_name(link_width::x4)) == "4x");
  CHECK(std::string(link_width_name(link_width::x8)) == "8x");
  CHECK(std::string(link_width_name(link_width::x12)) == "12x");
  CHECK(std::string(link_width_name(3)) == "?");
  CHECK(std::string(link_speed_name(link_speed::sdr, link_speed_ext::none)) == "SDR");
  CHECK(std::string(link_speed_name(link_speed::ddr, link_speed_ext::none)) == "DDR");
  CHECK(std::string(link_speed_name(link_speed::qdr, link_speed_ext::none)) == "QDR");
  CHECK(std::string(link_speed_name(link_speed::qdr, link_speed_ext::fdr)) == "FDR");
  CHECK(std::string(link_speed_name(link_speed::qdr, link_speed_ext::edr)) == "EDR");
  CHECK(std::string(link_speed_name(link_speed::sdr, link_speed_ext::hdr)) == "HDR");
  CHECK(std::string(link_speed_name(link_speed::qdr, link_speed_ext::ndr)) == "NDR");
  CHECK(std::string(link_speed_name(7, link_speed_ext::none)) == "?");
  CHECK(std::string(link_speed_name(link_speed::qdr, 3)) == "?");
}

TEST_CASE("add_node indexes names and GUIDs and pads the port table", "[fabric]") {
  Fabric f;
  Node sw = make_node(NodeType::switch_, 8, 0x200000, "S1");
  sw.ports.resize(2);  // shorter than num_ports + 1: filled up
  for (auto& p : sw.ports) p.guid = Guid{0x200000};
  const NodeIndex s = add(f, std::move(sw));
  const NodeIndex h = add(f, make_node(NodeType::ca, 2, 0x100000, "H1"));
  const NodeIndex r = add(f, make_node(NodeType::router, 1, 0, "R1"));

  CHECK(f.node(s).ports.size() == 9);
  CHECK(f.node_count() == 3);
  CHECK(f.switch_count() == 1);
  CHECK(f.ca_count() == 2);
  CHECK(f.find_by_name("H1") == h);
  CHECK_FALSE(f.find_by_name("nope").has_value());
  CHECK(f.find_by_node_guid(Guid{0x100000}) == h);
  CHECK_FALSE(f.find_by_node_guid(Guid{0}).has_value());  // zero GUIDs are not indexed
  // A switch's port GUID names port 0; a CA's each port.
  CHECK(f.find_by_port_guid(Guid{0x200000}) == PortRef{s, 0});
  CHECK(f.find_by_port_guid(Guid{0x100002}) == PortRef{h, 2});
  CHECK(f.find_by_port_guid(Guid{0x1}) == PortRef{r, 1});
  CHECK_FALSE(f.find_by_port_guid(Guid{0x100000}).has_value());
}

TEST_CASE("add_node refuses duplicates and leaves no trace", "[fabric]") {
  Fabric f;
  add(f, make_node(NodeType::ca, 2, 0x100000, "H1"));

  auto same_name = f.add_node(make_node(NodeType::ca, 1, 0x300000, "H1"));
  REQUIRE_FALSE(same_name.ok());
  CHECK(same_name.status().message() == "duplicate node name \"H1\"");

  auto same_guid = f.add_node(make_node(NodeType::switch_, 4, 0x100000, "S9"));
  REQUIRE_FALSE(same_guid.ok());
  CHECK(same_guid.status().message() ==
        "node \"S9\" has node guid 0x0000000000100000 already used by \"H1\"");

  Node clash = make_node(NodeType::ca, 2, 0x500000, "H2");
  clash.ports[2].guid = Guid{0x100001};  // H1's port 1
  auto same_port_guid = f.add_node(std::move(clash));
  REQUIRE_FALSE(same_port_guid.ok());
  CHECK(same_port_guid.status().message() == "node \"H2\" port 2 has port guid 0x0000000000100001 already in use");

  Node twice = make_node(NodeType::ca, 2, 0x600000, "H3");
  twice.ports[2].guid = twice.ports[1].guid;
  CHECK_FALSE(f.add_node(std::move(twice)).ok());

  Node too_many = make_node(NodeType::ca, 1, 0x700000, "H4");
  too_many.ports.resize(5);
  CHECK_FALSE(f.add_node(std::move(too_many)).ok());

  CHECK(f.node_count() == 1);
  CHECK_FALSE(f.find_by_name("H2").has_value());
  CHECK_FALSE(f.find_by_port_guid(Guid{0x500001}).has_value());
  CHECK(f.find_by_port_guid(Guid{0x100001}) == PortRef{NodeIndex{0}, 1});
  // A switch may share its GUID between node and ports; a CA may reuse its node GUID on a port.
  Node same = make_node(NodeType::ca, 1, 0x800000, "H5");
  same.ports[1].guid = Guid{0x800000};
  add(f, std::move(same));
}

TEST_CASE("connect, disconnect and links", "[fabric]") {
  Fabric f;
  const NodeIndex s1 = add(f, make_node(NodeType::switch_, 4, 0x200000, "S1"));
  const NodeIndex s2 = add(f, make_node(NodeType::switch_, 4, 0x200001, "S2"));
  const NodeIndex h = add(f, make_node(NodeType::ca, 2, 0x100000, "H1"));

  REQUIRE(f.connect({s2, 3}, {s1, 1}).ok());
  REQUIRE(f.connect({s1, 2}, {s2, 4}).ok());  // a parallel link
  REQUIRE(f.connect({h, 1}, {s1, 3}).ok());
  REQUIRE(f.connect({s1, 4}, {s1, 3}).code() == StatusCode::failed_precondition);  // S1[3] is taken

  CHECK(f.node(s1).port(1).remote_node == s2);
  CHECK(f.node(s1).port(1).remote_port == 3);
  CHECK(f.node(s2).port(3).remote_node == s1);

  const std::vector<Link> links = f.links();
  REQUIRE(links.size() == 3);
  // Each once, lower (node, port) end first, in node order.
  CHECK(links[0].a == PortRef{s1, 1});
  CHECK(links[0].b == PortRef{s2, 3});
  CHECK(links[1].a == PortRef{s1, 2});
  CHECK(links[1].b == PortRef{s2, 4});
  CHECK(links[2].a == PortRef{s1, 3});
  CHECK(links[2].b == PortRef{h, 1});

  Status out_of_range = f.connect({h, 3}, {s2, 1});
  CHECK(out_of_range.code() == StatusCode::invalid_argument);
  CHECK(out_of_range.message() == "port 3 out of range for \"H1\" (2 ports)");
  CHECK(f.connect({s2, 0}, {s2, 1}).code() == StatusCode::invalid_argument);
  Status itself = f.connect({s2, 1}, {s2, 1});
  CHECK(itself.message() == "port 1 of \"S2\" cannot be cabled to itself");
  Status taken = f.connect({h, 2}, {s1, 1});
  CHECK(taken.message() == "port 1 of \"S1\" is already cabled to port 3 of \"S2\"");
  CHECK(f.connect({s2, 1}, {s2, 2}).ok());  // a loopback cable between two ports

  f.disconnect({s2, 3});
  CHECK_FALSE(f.node(s1).port(1).connected());
  CHECK_FALSE(f.node(s2).port(3).connected());
  f.disconnect({s2, 3});  // no-op
  CHECK(f.links().size() == 3);
}

TEST_CASE("reindex_port_guids follows GUIDs changed in place", "[fabric]") {
  Fabric f;
  const NodeIndex h = add(f, make_node(NodeType::ca, 2, 0x100000, "H1"));
  f.node(h).port(1).guid = Guid{0xabc};
  f.reindex_port_guids();
  CHECK(f.find_by_port_guid(Guid{0xabc}) == PortRef{h, 1});
  CHECK_FALSE(f.find_by_port_guid(Guid{0x100001}).has_value());
}

// A three-level fat tree with 49152 hosts: 1536 leaves and 1536 middle switches
// of 64 ports in 48 pods, 1024 top switches of 48 ports. The model of a fabric
// this size must stay well under 200 MB.
TEST_CASE("a 48k-endpoint fat tree stays compact", "[fabric][scale]") {
  constexpr unsigned kPods = 48, kLeavesPerPod = 32, kHostsPerLeaf = 32, kTops = 1024;
  Fabric f;
  std::vector<NodeIndex> tops;
  for (unsigned t = 0; t < kTops; ++t) tops.push_back(add(f, make_node(NodeType::switch_, 48, 0x300000 + t, "")));
  uint64_t host_guid = 0x10000000;
  uint64_t switch_guid = 0x400000;
  for (unsigned pod = 0; pod < kPods; ++pod) {
    std::vector<NodeIndex> leaves, mids;
    for (unsigned i = 0; i < kLeavesPerPod; ++i) {
      leaves.push_back(add(f, make_node(NodeType::switch_, 64, switch_guid++, "")));
      mids.push_back(add(f, make_node(NodeType::switch_, 64, switch_guid++, "")));
    }
    for (unsigned l = 0; l < kLeavesPerPod; ++l) {
      for (unsigned h = 0; h < kHostsPerLeaf; ++h) {
        Node host = make_node(NodeType::ca, 1, host_guid, "");
        host.description = "host-" + std::to_string(host_guid) + " mlx5_0";
        host_guid += 2;
        const NodeIndex hi = add(f, std::move(host));
        REQUIRE(f.connect({leaves[l], static_cast<uint8_t>(h + 1)}, {hi, 1}).ok());
      }
      for (unsigned m = 0; m < kLeavesPerPod; ++m) {
        REQUIRE(f.connect({leaves[l], static_cast<uint8_t>(33 + m)}, {mids[m], static_cast<uint8_t>(l + 1)}).ok());
      }
    }
    for (unsigned m = 0; m < kLeavesPerPod; ++m) {
      for (unsigned j = 0; j < 32; ++j) {
        REQUIRE(f.connect({mids[m], static_cast<uint8_t>(33 + j)}, {tops[m * 32 + j], static_cast<uint8_t>(pod + 1)}).ok());
      }
    }
  }
  CHECK(f.ca_count() == 49152);
  CHECK(f.switch_count() == 4096);
  CHECK(f.links().size() == 3 * 49152);

  rusage usage{};
  REQUIRE(getrusage(RUSAGE_SELF, &usage) == 0);
  const long peak_mb = usage.ru_maxrss / 1024;  // kilobytes on Linux
  INFO("peak resident set: " << peak_mb << " MB");
  CHECK(peak_mb < 200);
}

}  // namespace ibsm
