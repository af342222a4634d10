// The master with M_Keys over SimFabric: a host without the key is refused,
// the port's trap 256 is counted and described by port and requester, and
// it starts no sweep.
#include <catch2/catch.hpp>

#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "sm/manager/bad_m_key_trap.h"
#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

constexpr uint64_t kKey = 0x5eed5eed5eed5eedULL;

TEST_CASE("a host without the M_Key is refused; the trap 256 is counted, described and not swept for",
          "[manager][mkey]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2})));
  SmConfig config = b.config(1);
  config.m_key = kKey;
  config.m_key_protection_level = 2;
  SubnetManager& m = start_master(b, config);
  const std::vector<PortRef> cas = ca_ports(b.sim().topology());
  // Every end port and switch port 0 holds the key.
  const Fabric& f = b.sim().topology();
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    const uint8_t port = n.is_switch() ? 0 : 1;
    INFO(n.name);
    CHECK(b.sim().state().port(i, port).m_key == kKey);
    CHECK(b.sim().state().port(i, port).m_key_protect_bits == 2);
  }

  // A host at another CA tries to take its leaf switch's LID.
  const PortRef host = cas.back();
  SimPort& port = b.sim().attach(host.node, host.port);
  MadDispatcher intruder(port, b.sim().clock());
  wire::PortInfo pi;
  pi.lid = Lid{99};
  std::array<uint8_t, wire::port_info_size> payload{};
  wire::encode(pi, payload);
  DrPath to_leaf;
  REQUIRE(DrPath::parse("0,1", to_leaf));
  MadPacket set;
  set.data = wire::build_dr_smp(wire::method::set, wire::smp_attr::port_info, 0, 0, to_leaf, payload, 0x1234);
  std::optional<bool> answered;
  intruder.submit(set, [&](Result<MadPacket> r) { answered = r.ok(); }, RequestOptions{.retries = 0, .timeout = 10'000});
  const uint64_t sweeps = m.counters().heavy_sweeps;
  intruder.run_until_idle();
  REQUIRE(answered);
  CHECK_FALSE(*answered);
  const NodeIndex leaf = f.node(host.node).port(host.port).remote_node;
  CHECK(b.sim().port_lid({leaf, 0}) != Lid{99});
  REQUIRE(b.run_until_true([&] { return m.sm_agent().counters().traps_by_number.count(256) != 0; }, 1'000'000));
  CHECK(m.sm_agent().counters().traps_by_number.at(256) == 1);
  // Two seconds of light sweeps later: no heavy sweep came of it.
  b.run_until_true([] { return false; }, 2'000'000);
  CHECK(m.counters().heavy_sweeps == sweeps);

  // How the manager logs it: the switch by GUID, the host by LID and port.
  wire::Notice n;
  n.type = wire::notice_type::security;
  n.producer_type = wire::producer_type::switch_;
  n.trap_number = wire::trap_number::bad_m_key;
  n.issuer_lid = b.sim().port_lid({leaf, 0});
  std::array<uint8_t, wire::notice_size_without_gid> data{};
  wire::encode(n, data);
  namespace nf = wire::notice_fields;
  wire::set_field(data, nf::trap256_lid, b.sim().port_lid(host).value);
  wire::set_field(data, nf::trap256_method, wire::method::set);
  wire::set_field(data, nf::trap256_attribute_id, wire::smp_attr::port_info);
  wire::set_field(data, nf::trap256_m_key, 0x1234);
  wire::set_field(data, nf::trap256_dr_slid, 0xFFFF);
  wire::set_field(data, nf::trap256_dr_notice, 1);
  wire::set_field(data, nf::trap256_dr_hop_count, 1);
  data[nf::trap256_dr_return_path.bit_offset / 8] = static_cast<uint8_t>(f.node(host.node).port(host.port).remote_port);
  auto decoded = wire::decode_notice(data);
  REQUIRE(decoded.ok());
  const std::string line = describe_bad_m_key(*decoded, m.subnet().get());
  INFO(line);
  CHECK(line.find(fmt::format("at switch {} (lid {})", f.node(leaf).node_guid, n.issuer_lid.value)) !=
        std::string::npos);
  CHECK(line.find(fmt::format("lid {} tried Set (method 0x02) attribute 0x0015", b.sim().port_lid(host).value)) !=
        std::string::npos);
  CHECK(line.find("with m_key 0x0000000000001234") != std::string::npos);
  CHECK(line.find(fmt::format("(from ca {} port 1)", f.node(host.node).node_guid)) != std::string::npos);
  CHECK(line.find(fmt::format("directed route (drslid 65535) back {}", f.node(host.node).port(host.port).remote_port)) !=
        std::string::npos);
  CHECK(describe_bad_m_key(*decoded, nullptr).find("at (lid") != std::string::npos);
}

}  // namespace
}  // namespace ibsm::test
