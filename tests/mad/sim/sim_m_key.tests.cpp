// The SMAs' M_Key check (IBA 14.2.4): what a host without the key may read
// and set at each protection level, M_KeyViolations, trap 256 to the master
// SM, and the lease timer in virtual time.
#include <catch2/catch.hpp>

#include "mad/wire/notice.h"
#include "tests/mad/sim/sim_subnet_setup.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

constexpr uint64_t kKey = 0x00000000c0ffee01ULL;
constexpr const char* kS2FromH1 = "0,1,2";
constexpr const char* kS2FromH2 = "0,1,1";  // H2[1] -> S3[2], S3[1] -> S2

struct Fixture {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric{topo};
  Client sm{fabric, node_named(topo, "H1"), 1};
  Client host{fabric, node_named(topo, "H2"), 1};  // a host that does not know the key
  std::vector<MadPacket> traps;

  Fixture() {
    sm.dispatcher().set_request_handler([this](const MadPacket& in) { traps.push_back(in); });
    configure_chain(topo, sm);
  }

  // The SM gives S2 (its port 0 holds the switch's one M_Key) a key,
  // asking with the key it may already hold.
  void protect_s2(uint8_t level, uint16_t lease_s) {
    wire::PortInfo pi = s2_as_sm_sees_it();
    pi.port_state = PortState::no_change;
    pi.port_phys_state = PhysState::no_change;
    pi.m_key = kKey;
    pi.m_key_protect_bits = level;
    pi.m_key_lease_period = lease_s;
    std::array<uint8_t, wire::port_info_size> payload{};
    wire::encode(pi, payload);
    auto r = sm.run(
        with_key(Client::dr_request(wire::method::set, wire::smp_attr::port_info, 0, path(kS2FromH1), payload), kKey));
    REQUIRE(r.ok());
    REQUIRE(smp_status(*r) == 0);
  }

  static MadPacket with_key(MadPacket p, uint64_t key) {
    wire::set_field(p.data, wire::smp_fields::m_key, key);
    return p;
  }
  Result<MadPacket> host_get(uint64_t key) {
    return host.run(with_key(Client::dr_request(wire::method::get, wire::smp_attr::port_info, 0, path(kS2FromH2)), key));
  }
  Result<MadPacket> host_set_lid(uint64_t key, uint16_t lid) {
    wire::PortInfo pi = s2_as_sm_sees_it();
    pi.lid = Lid{lid};
    pi.port_state = PortState::no_change;
    pi.port_phys_state = PhysState::no_change;
    std::array<uint8_t, wire::port_info_size> payload{};
    wire::encode(pi, payload);
    return host.run(
        with_key(Client::dr_request(wire::method::set, wire::smp_attr::port_info, 0, path(kS2FromH2), payload), key));
  }
  wire::PortInfo s2_as_sm_sees_it() {
    auto r = sm.run(with_key(Client::dr_request(wire::method::get, wire::smp_attr::port_info, 0, path(kS2FromH1)), kKey));
    REQUIRE(r.ok());
    return port_info_of(*r);
  }
  uint16_t violations() { return s2_as_sm_sees_it().m_key_violations; }
  uint16_t s2_lid() const { return fabric.state().port(node_named(topo, "S2").value, 0).lid; }
  void collect_traps() {
    sm.port().wait(100);
    sm.dispatcher().poll();
  }
};

}  // namespace

TEST_CASE("without the M_Key a host cannot Set a port at any protection level", "[sim][mkey]") {
  const uint8_t level = GENERATE(uint8_t{0}, uint8_t{1}, uint8_t{2}, uint8_t{3});
  INFO("protection level " << int{level});
  Fixture f;
  f.protect_s2(level, 0);
  CHECK(f.host_set_lid(0, 42).status().code() == StatusCode::timeout);
  CHECK(f.host_set_lid(kKey + 1, 42).status().code() == StatusCode::timeout);
  CHECK(f.s2_lid() == 3);
  CHECK(f.fabric.counters().dropped_for(DropReason::m_key) == 2);
  CHECK(f.violations() == 2);
  // With the key it can.
  auto ok = f.host_set_lid(kKey, 42);
  REQUIRE(ok.ok());
  CHECK(smp_status(*ok) == 0);
  CHECK(f.s2_lid() == 42);
}

TEST_CASE("what a Get without the M_Key reads depends on the protection level", "[sim][mkey]") {
  Fixture f;
  SECTION("level 0: answered, the key readable") {
    f.protect_s2(0, 0);
    auto r = f.host_get(0);
    REQUIRE(r.ok());
    CHECK(port_info_of(*r).m_key == kKey);
    CHECK(f.violations() == 0);
  }
  SECTION("level 1: answered, the key reads 0") {
    f.protect_s2(1, 0);
    auto r = f.host_get(0);
    REQUIRE(r.ok());
    CHECK(port_info_of(*r).m_key == 0);
    CHECK(port_info_of(*r).m_key_protect_bits == 1);
    CHECK(port_info_of(*r).lid == Lid{3});
    CHECK(f.violations() == 0);
    // With the key it reads back.
    auto keyed = f.host_get(kKey);
    REQUIRE(keyed.ok());
    CHECK(port_info_of(*keyed).m_key == kKey);
  }
  // Other attributes are guarded the same way at level 2.
  SECTION("level 2 guards every attribute, NodeInfo too") {
    f.protect_s2(2, 0);
    CHECK(f.host.dr_get(wire::smp_attr::node_info, 0, kS2FromH2).status().code() == StatusCode::timeout);
    CHECK(f.host.dr_get(wire::smp_attr::node_info, 0, "0,1").ok());  // S3 has no key
  }
}

TEST_CASE("at levels 2 and 3 a Get without the M_Key gets no answer", "[sim][mkey]") {
  const uint8_t level = GENERATE(uint8_t{2}, uint8_t{3});
  Fixture f;
  f.protect_s2(level, 0);
  CHECK(f.host_get(0).status().code() == StatusCode::timeout);
  CHECK(f.violations() == 1);
  auto keyed = f.host_get(kKey);
  REQUIRE(keyed.ok());
  CHECK(port_info_of(*keyed).m_key == kKey);
}

TEST_CASE("a refused SMP sends trap 256 to the master SM naming the requester", "[sim][mkey][trap]") {
  Fixture f;
  f.protect_s2(2, 0);
  f.traps.clear();
  REQUIRE(f.host_set_lid(0x1234, 42).status().code() == StatusCode::timeout);
  f.collect_traps();
  REQUIRE(f.traps.size() == 1);
  const MadPacket& trap = f.traps[0];
  auto smp = wire::parse_smp(trap.data);
  REQUIRE(smp.ok());
  CHECK(smp->mgmt_class() == wire::mgmt_class::subn_lid_routed);
  CHECK(smp->method() == wire::method::trap);
  CHECK(trap.address.lid == Lid{3});  // from S2
  auto notice = attribute_of<wire::Notice>(trap, wire::decode_notice);
  CHECK(notice.is_generic);
  CHECK(notice.type == wire::notice_type::security);
  CHECK(notice.producer_type == wire::producer_type::switch_);
  CHECK(notice.trap_number == wire::trap_number::bad_m_key);
  CHECK(notice.issuer_lid == Lid{3});
  namespace nf = wire::notice_fields;
  auto d = smp->data();
  CHECK(wire::get_field(d, nf::trap256_lid) == 7);  // H2, the requester
  CHECK(wire::get_field(d, nf::trap256_method) == wire::method::set);
  CHECK(wire::get_field(d, nf::trap256_attribute_id) == wire::smp_attr::port_info);
  CHECK(wire::get_field(d, nf::trap256_attribute_modifier) == 0);
  CHECK(wire::get_field(d, nf::trap256_m_key) == 0x1234);
  CHECK(wire::get_field(d, nf::trap256_dr_slid) == wire::permissive_lid);
  CHECK(wire::get_field(d, nf::trap256_dr_notice) == 1);
  CHECK(wire::get_field(d, nf::trap256_dr_path_truncated) == 0);
  CHECK(wire::get_field(d, nf::trap256_dr_hop_count) == 2);
  // The way back to H2: out of S2 port 2 to S3, out of S3 port 2 to H2.
  CHECK(d[wire::notice_fields::trap256_dr_return_path.bit_offset / 8] == 2);
  CHECK(d[wire::notice_fields::trap256_dr_return_path.bit_offset / 8 + 1] == 2);
  // A Get that level 1 lets through is no violation and sends no trap.
  f.protect_s2(1, 0);
  f.traps.clear();
  REQUIRE(f.host_get(0).ok());
  f.collect_traps();
  CHECK(f.traps.empty());
}

TEST_CASE("the M_Key lease: protection falls to 0 when nobody with the key answers in time", "[sim][mkey][lease]") {
  Fixture f;
  f.protect_s2(2, 10);
  REQUIRE(f.host_get(0).status().code() == StatusCode::timeout);  // starts the 10 s lease
  SECTION("the SM does not come: the protection bits are cleared after the lease") {
    f.fabric.advance(9'000'000);
    CHECK(f.host_get(0).status().code() == StatusCode::timeout);  // still protected (the timer keeps running)
    f.fabric.advance(1'000'000);
    auto r = f.host_get(0);
    REQUIRE(r.ok());
    CHECK(port_info_of(*r).m_key_protect_bits == 0);
    CHECK(port_info_of(*r).m_key == kKey);  // readable: the fabric can be recovered
    CHECK(port_info_of(*r).m_key_violations == 2);
  }
  SECTION("a request with the key stops the timer") {
    f.fabric.advance(5'000'000);
    CHECK(f.s2_as_sm_sees_it().m_key_protect_bits == 2);
    f.fabric.advance(20'000'000);
    CHECK(f.host_get(0).status().code() == StatusCode::timeout);
    CHECK(f.s2_as_sm_sees_it().m_key_protect_bits == 2);
  }
  SECTION("a lease period of 0 never runs out") {
    f.protect_s2(2, 0);
    REQUIRE(f.host_get(0).status().code() == StatusCode::timeout);
    f.fabric.advance(3'600'000'000);
    CHECK(f.host_get(0).status().code() == StatusCode::timeout);
  }
}

TEST_CASE("a CA port guards itself; a switch's external ports carry no M_Key", "[sim][mkey]") {
  Fixture f;
  // H3 port 1 from H1: H1[1] S1[2] S2[3].
  MadPacket r = modify_port_info(f.sm, "0,1,2,3", 1, [&](wire::PortInfo& pi) {
    pi.m_key = kKey;
    pi.m_key_protect_bits = 2;
  });
  REQUIRE(smp_status(r) == 0);
  CHECK(f.host.dr_get(wire::smp_attr::port_info, 1, "0,1,1,3").status().code() == StatusCode::timeout);
  CHECK(f.host.dr_get(wire::smp_attr::port_info, 2, "0,1,1,4").ok());  // its other port has no key
  // An M_Key written to a switch's external port is not kept (reserved).
  MadPacket ext = modify_port_info(f.sm, kS2FromH1, 2, [&](wire::PortInfo& pi) {
    pi.m_key = kKey;
    pi.m_key_protect_bits = 2;
  });
  CHECK(port_info_of(ext).m_key == 0);
  CHECK(port_info_of(ext).m_key_protect_bits == 0);
  CHECK(f.host.dr_get(wire::smp_attr::port_info, 0, kS2FromH2).ok());
}
