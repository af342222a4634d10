// SimFabric at the size it is meant for: a 3-level fat tree of 64-port
// switches with 49152 endpoints (53248 nodes), built here with the Fabric API.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "mad/wire/linear_forwarding_table.h"
#include "mad/wire/node_info.h"
#include "tests/mad/sim/sim_harness.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

constexpr uint32_t half = 32;  // ports down (and up) per 64-port switch
constexpr uint32_t pods = 48;

struct FatTree {
  Fabric fabric;
  std::vector<NodeIndex> hosts, leaves, aggs, spines;  // leaves/aggs: pod * half + i
};

NodeIndex add(Fabric& f, NodeType type, uint8_t ports, uint64_t guid, std::string name) {
  Node n;
  n.type = type;
  n.num_ports = ports;
  n.node_guid = Guid{guid};
  n.system_guid = Guid{guid};
  n.description = name;
  n.name = std::move(name);
  n.ports.resize(size_t{ports} + 1);
  if (type == NodeType::ca) n.ports[1].guid = Guid{guid + 1};
  auto i = f.add_node(std::move(n));
  REQUIRE(i.ok());
  return *i;
}

void cable(Fabric& f, NodeIndex a, uint32_t pa, NodeIndex b, uint32_t pb) {
  REQUIRE(f.connect({a, static_cast<uint8_t>(pa)}, {b, static_cast<uint8_t>(pb)}).ok());
}

// Leaf ports 1-32 hosts, 33-64 the pod's aggregation switches; aggregation
// ports 1-32 the pod's leaves, 33-64 spines; spine port p+1 pod p.
FatTree build() {
  FatTree t;
  uint64_t guid = 0x0002c90000000000ull;
  for (uint32_t s = 0; s < half * half; ++s)
    t.spines.push_back(add(t.fabric, NodeType::switch_, 64, guid++, "spine-" + std::to_string(s)));
  for (uint32_t p = 0; p < pods; ++p) {
    for (uint32_t i = 0; i < half; ++i)
      t.aggs.push_back(add(t.fabric, NodeType::switch_, 64, guid++, fmt::format("agg-{}-{}", p, i)));
    for (uint32_t i = 0; i < half; ++i) {
      const NodeIndex leaf = add(t.fabric, NodeType::switch_, 64, guid++, fmt::format("leaf-{}-{}", p, i));
      t.leaves.push_back(leaf);
      for (uint32_t h = 0; h < half; ++h) {
        const NodeIndex host = add(t.fabric, NodeType::ca, 1, guid, fmt::format("host-{}", t.hosts.size()));
        guid += 2;
        t.hosts.push_back(host);
        cable(t.fabric, host, 1, leaf, h + 1);
      }
      for (uint32_t a = 0; a < half; ++a) cable(t.fabric, leaf, half + 1 + a, t.aggs[p * half + a], i + 1);
    }
    for (uint32_t a = 0; a < half; ++a)
      for (uint32_t j = 0; j < half; ++j) cable(t.fabric, t.aggs[p * half + a], half + 1 + j, t.spines[a * half + j], p + 1);
  }
  return t;
}

uint64_t rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string key;
  uint64_t kib = 0;
  while (status >> key) {
    if (key == "VmRSS:") {
      status >> kib;
      return kib * 1024;
    }
  }
  return 0;
}

}  // namespace

TEST_CASE("a 48k-endpoint fat tree loads compactly and answers SMPs", "[sim][scale]") {
  FatTree t = build();
  REQUIRE(t.hosts.size() == 49152);
  const Guid far_guid = t.fabric.node(t.hosts.back()).node_guid;
  const Guid far_port_guid = t.fabric.node(t.hosts.back()).port(1).guid;
  const Guid spine_guid = t.fabric.node(t.spines[0]).node_guid;
  const NodeIndex host0 = t.hosts.front();

  SimOptions options;
  options.linear_fdb_cap = 49152;  // as ibsim needs -L for such a fabric
  SimFabric fabric(std::move(t.fabric), options);
  CHECK(fabric.topology().node_count() == 49152 + 4096);
  const uint64_t rss = rss_bytes();
  INFO("resident set " << rss / (1024 * 1024) << " MiB");
  CHECK(rss < (uint64_t{2} << 30));

  Client sm(fabric, host0, 1);
  auto spine = sm.dr_get(wire::smp_attr::node_info, 0, "0,1,33,33");
  REQUIRE(spine.ok());
  CHECK(attribute_of<wire::NodeInfo>(*spine, wire::decode_node_info).node_guid == spine_guid);
  // Up to a spine and down into the last pod, to its last host: 6 hops.
  auto far = sm.dr_get(wire::smp_attr::node_info, 0, "0,1,33,33,48,32,32");
  REQUIRE(far.ok());
  auto ni = attribute_of<wire::NodeInfo>(*far, wire::decode_node_info);
  CHECK(ni.node_guid == far_guid);
  CHECK(ni.port_guid == far_port_guid);
  CHECK(ni.local_port_num == 1);

  // An LFT block near the top of the table grows the spine's LFT to there.
  wire::LinearForwardingTable lft;
  lft.ports.fill(7);
  std::array<uint8_t, wire::lft_block_size> payload{};
  wire::encode(lft, payload);
  auto set = sm.dr_set(wire::smp_attr::linear_forwarding_table, 767, "0,1,33,33", payload);
  REQUIRE(set.ok());
  CHECK(smp_status(*set) == 0);
  CHECK(fabric.counters().dropped_total() == 0);
}
