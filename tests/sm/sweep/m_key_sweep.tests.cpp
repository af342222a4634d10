// The sweep and M_Keys over SimFabric, which enforces them (IBA 14.2.4):
// the keys it sets, the keys it talks with (also after a restart and a key
// change), a port whose key it does not know, and the lease it renews.
#include <fstream>

#include <catch2/catch.hpp>

#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "sm/fabric/netfile_reader.h"
#include "tests/sm/sweep/sweep_harness.h"

using namespace ibsm;
using namespace ibsm::test;

namespace {

constexpr uint64_t kKey = 0x1122334455667788ULL;

Fabric chain() {
  std::ifstream in(std::string(IBSM_TEST_DATA) + "/netfiles/sim_chain.net");
  REQUIRE(in.good());
  return must(read_netfile(in, "sim_chain.net"));
}

// Every end port and switch port 0 holds (key, level, lease); switch
// external ports hold none.
void require_keys(SweepHarness& h, uint64_t key, uint8_t level, uint16_t lease) {
  const Fabric& f = h.sim().topology();
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    for (uint8_t p = n.is_switch() ? 0 : 1; p <= n.num_ports; ++p) {
      INFO(n.name << " port " << int{p});
      const auto& rec = h.sim().state().port(i, p);
      const bool guarded = !n.is_switch() || p == 0;
      CHECK(rec.m_key == (guarded ? key : 0));
      CHECK(rec.m_key_protect_bits == (guarded ? level : 0));
      if (guarded) CHECK(rec.m_key_lease_period == lease);
    }
  }
}

void require_up(const SweepReport& r) {
  INFO(fmt::format("problems: {}", fmt::join(r.problems, "; ")));
  REQUIRE(r.subnet_up);
}

// A client at H2 that does not know the key.
struct Intruder {
  SimPort& port;
  MadDispatcher d;
  Intruder(SweepHarness& h) : port(h.sim().attach(*h.sim().topology().find_by_name("H2"), 1)), d(port, h.sim().clock()) {}
  // PortInfo Get of S2 (H2[1] -> S3, S3[1] -> S2) with `key`: answered?
  bool reads_s2(uint64_t key) {
    DrPath path;
    REQUIRE(DrPath::parse("0,1,1", path));
    MadPacket p;
    p.data = wire::build_dr_smp(wire::method::get, wire::smp_attr::port_info, 0, 0, path, {}, key);
    std::optional<bool> answered;
    d.submit(p, [&](Result<MadPacket> r) { answered = r.ok(); }, RequestOptions{.retries = 0, .timeout = 1000});
    d.run_until_idle();
    REQUIRE(answered);
    return *answered;
  }
};

}  // namespace

TEST_CASE("with m_key configured the sweep sets the key everywhere and talks with it", "[sweep][mkey]") {
  const uint8_t level = GENERATE(uint8_t{0}, uint8_t{1}, uint8_t{2}, uint8_t{3});
  INFO("protection level " << int{level});
  SweepHarness h(chain());
  h.config().subnet.m_key = kKey;
  h.config().subnet.m_key_protect_bits = level;
  h.config().subnet.m_key_lease_period = 60;
  SweepReport r = h.heavy();
  require_up(r);
  require_keys(h, kKey, level, 60);
  CHECK(h.sim().counters().dropped_for(DropReason::m_key) == 0);
  // Remembered by port GUID (what the cache's guid2mkey holds).
  CHECK(h.state().m_keys.size() == 7);  // 3 switches, 4 CA ports
  for (const auto& [guid, key] : h.state().m_keys) CHECK(key == kKey);

  // Every later SMP carries the keys: nothing refused, nothing set again.
  SweepReport again = h.heavy();
  require_up(again);
  CHECK(again.port_info_sets == 0);
  CHECK_FALSE(h.light(again).changed);
  CHECK(h.sim().counters().dropped_for(DropReason::m_key) == 0);
}

TEST_CASE("after a restart the sweep talks to each port with the key guid2mkey lists, and can change it",
          "[sweep][mkey]") {
  SweepHarness h(chain());
  h.config().subnet.m_key = kKey;
  h.config().subnet.m_key_protect_bits = 2;
  require_up(h.heavy());
  const Guid2MKey cached = h.state().m_keys;

  // A new SM (no memory but the cache) with a new key: it reaches every port
  // (the new key first, refused; then the cached one) and rekeys it.
  h.state() = SweepState{};
  h.state().m_keys = cached;
  h.config().subnet.m_key = kKey + 1;
  SweepReport r = h.heavy();
  require_up(r);
  require_keys(h, kKey + 1, 2, 0);
  for (const auto& [guid, key] : h.state().m_keys) CHECK(key == kKey + 1);

  // Without the cache, and the old key configured, it cannot: at level 2
  // a port with another key drops every Get, the SM's own port's first.
  h.state() = SweepState{};
  h.config().subnet.m_key = kKey;
  auto lost = heavy_sweep(h.dispatcher(), h.sim().clock(), h.state(), h.config(), null_log_sink());
  CHECK_FALSE(lost.ok());  // the local port does not answer NodeInfo
}

TEST_CASE("a port whose M_Key the SM does not know is m_key_refused; the rest is configured", "[sweep][mkey]") {
  SweepHarness h(chain());
  h.config().subnet.m_key = kKey;
  h.config().subnet.m_key_protect_bits = 1;
  require_up(h.heavy());
  // Someone else rekeys S2; the SM restarts without a cache.
  const NodeIndex s2 = *h.sim().topology().find_by_name("S2");
  {
    DrPath path;
    REQUIRE(DrPath::parse("0,1,2", path));
    wire::PortInfo pi;
    // Read it first (the SM's key), change only the key.
    MadPacket get;
    get.data = wire::build_dr_smp(wire::method::get, wire::smp_attr::port_info, 0, 0, path, {}, kKey);
    std::optional<wire::PortInfo> read;
    h.dispatcher().submit(get, [&](Result<MadPacket> a) {
      REQUIRE(a.ok());
      read = *wire::decode_port_info(wire::smp_data(a->data));
    });
    h.dispatcher().run_until_idle();
    REQUIRE(read);
    pi = *read;
    pi.port_state = PortState::no_change;
    pi.port_phys_state = PhysState::no_change;
    pi.m_key = 0xBAD;
    std::array<uint8_t, wire::port_info_size> payload{};
    wire::encode(pi, payload);
    MadPacket set;
    set.data = wire::build_dr_smp(wire::method::set, wire::smp_attr::port_info, 0, 0, path, payload, kKey);
    h.dispatcher().submit(set, [](Result<MadPacket> a) { REQUIRE(a.ok()); });
    h.dispatcher().run_until_idle();
    REQUIRE(h.sim().state().port(s2.value, 0).m_key == 0xBAD);
  }
  h.state() = SweepState{};
  // Take S3's and H2's link down and up, so the sweep has something to do there.
  REQUIRE(h.sim().set_link({*h.sim().topology().find_by_name("H2"), 1}, false).ok());
  REQUIRE(h.sim().set_link({*h.sim().topology().find_by_name("H2"), 1}, true).ok());
  const uint64_t drops_before = h.sim().counters().dropped_for(DropReason::m_key);
  SweepReport r = h.heavy();
  CHECK_FALSE(r.subnet_up);
  REQUIRE(count_problems(r.problems, SweepProblemKind::m_key_refused) == 1);
  const SweepProblem* refused = nullptr;
  for (const SweepProblem& p : r.problems)
    if (p.kind == SweepProblemKind::m_key_refused) refused = &p;
  CHECK(refused->node == h.sim().topology().node(s2).node_guid);
  CHECK(refused->text.find("m_key refused") != std::string::npos);
  // Nothing was sent to S2 that it would refuse (its Gets pass at level 1).
  CHECK(h.sim().counters().dropped_for(DropReason::m_key) == drops_before);
  CHECK(h.sim().state().port(s2.value, 0).m_key == 0xBAD);
  // The rest is configured: H2 beyond S2 came back Active.
  CHECK(h.sim().port_state({*h.sim().topology().find_by_name("H2"), 1}) == PortState::active);
  CHECK(h.sim().state().port(h.sim().topology().find_by_name("S3")->value, 0).m_key == kKey);
}

TEST_CASE("the SM's sweeps renew the M_Key lease a refused request started", "[sweep][mkey][lease]") {
  SweepHarness h(chain());
  h.config().subnet.m_key = kKey;
  h.config().subnet.m_key_protect_bits = 2;
  h.config().subnet.m_key_lease_period = 10;
  SweepReport r = h.heavy();
  require_up(r);
  Intruder bad(h);
  CHECK_FALSE(bad.reads_s2(0));  // refused: the 10 s lease starts
  SECTION("a light sweep within the lease stops the timer") {
    h.sim().advance(5'000'000);
    CHECK_FALSE(h.light(r).changed);
    h.sim().advance(20'000'000);
    CHECK_FALSE(bad.reads_s2(0));
  }
  SECTION("without the SM the protection falls to 0 after the lease") {
    h.sim().advance(11'000'000);
    CHECK(bad.reads_s2(0));
    // The next sweep puts it back.
    SweepReport again = h.heavy();
    require_up(again);
    CHECK(h.sim().state().port(h.sim().topology().find_by_name("S2")->value, 0).m_key_protect_bits == 2);
    CHECK_FALSE(bad.reads_s2(0));
  }
}
