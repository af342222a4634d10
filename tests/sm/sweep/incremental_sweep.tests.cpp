// The incremental resweep over SimFabric: after a cable pull, its return and
// a switch lost and returned, it reads only the changed region (counted by
// attribute and by the node each SMP was addressed to), leaves the fabric a
// full heavy sweep would find (which then has nothing left to set), and
// every pair is delivered; in doubt it refuses and says why.
#include <algorithm>
#include <ctime>
#include <map>
#include <set>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "mad/wire/smp.h"
#include "sm/fabric/compare.h"
#include "sm/sweep/incremental_sweep.h"
#include "sm/topogen/generators.h"
#include "tests/sm/sweep/sweep_harness.h"

namespace ibsm::test {
namespace {

// Forwards to the simulated port and records each SMP Get sent: by
// attribute, and the node its directed route leads to in the cabling.
class RecordingPort : public Transport {
 public:
  RecordingPort(Transport& inner, const Fabric& cabling, NodeIndex local) : inner_(inner), f_(cabling), local_(local) {}
  Status send(const MadPacket& p) override {
    auto smp = wire::parse_smp(p.data);
    if (smp.ok() && smp->directed() && !smp->is_response()) {
      ++sent_by_attr_[{smp->method(), smp->attr_id()}];
      if (smp->method() == wire::method::get) gets_to_.insert(destination(smp->initial_path()));
    }
    return inner_.send(p);
  }
  std::optional<MadPacket> receive() override { return inner_.receive(); }
  void wait(Micros max_wait) override { inner_.wait(max_wait); }
  LocalPortInfo local_port() const override { return inner_.local_port(); }

  void clear() {
    sent_by_attr_.clear();
    gets_to_.clear();
  }
  uint64_t sent(uint8_t method, uint16_t attr) const {
    auto it = sent_by_attr_.find({method, attr});
    return it == sent_by_attr_.end() ? 0 : it->second;
  }
  uint64_t total() const {
    uint64_t n = 0;
    for (const auto& [k, v] : sent_by_attr_) n += v;
    return n;
  }
  // Names (from the netfile) of the nodes Gets were addressed to.
  std::set<std::string> gets_to() const {
    std::set<std::string> out;
    for (NodeIndex n : gets_to_) out.insert(n.valid() ? f_.node(n).name : "?");
    return out;
  }

 private:
  NodeIndex destination(const DrPath& path) const {
    NodeIndex at = local_;
    for (int h = 1; h <= path.hops(); ++h) {
      const Port& p = f_.node(at).port(path.port(h));
      if (!p.connected()) return NodeIndex{};
      at = p.remote_node;
    }
    return at;
  }

  Transport& inner_;
  const Fabric& f_;
  NodeIndex local_;
  std::map<std::pair<uint8_t, uint16_t>, uint64_t> sent_by_attr_;
  std::set<NodeIndex> gets_to_;
};

Fabric fat_tree(uint32_t k = 4) {
  auto f = topogen::kary_ntree({.k = k, .n = 3});
  REQUIRE(f.ok());
  return std::move(*f);
}

// The SM at the first CA, ftree routing, every SMP recorded.
class Bench {
 public:
  explicit Bench(const std::string& engine = "ftree", Fabric fabric = fat_tree(), SimOptions options = {})
      : sim_(std::move(fabric), options) {
    const PortRef at = SweepHarness::first_ca_port(sim_.topology());
    SimPort& port = sim_.attach(at.node, at.port);
    port.set_is_sm(true);
    rec_ = std::make_unique<RecordingPort>(port, sim_.topology(), at.node);
    d_ = std::make_unique<MadDispatcher>(*rec_, sim_.clock());
    config_.route = SweepHarness::route_function(engine);
  }

  SweepReport heavy() { return heavy(state_); }
  SweepReport heavy(SweepState& state) {
    auto r = heavy_sweep(*d_, sim_.clock(), state, config_, null_log_sink());
    INFO((r.ok() ? std::string() : r.status().message()));
    REQUIRE(r.ok());
    return std::move(*r);
  }
  Result<SweepReport> incremental(const SweepReport& last, const std::vector<std::string>& switches) {
    std::vector<Guid> guids;
    for (const std::string& name : switches) guids.push_back(node(name).node_guid);
    return incremental(last, guids);
  }
  Result<SweepReport> incremental(const SweepReport& last, std::vector<Guid> switches) {
    IncrementalInput in{*last.subnet, std::move(switches), &last.routes};
    return incremental_sweep(*d_, sim_.clock(), state_, config_, in, null_log_sink());
  }

  const Node& node(const std::string& name) { return sim_.topology().node(*sim_.topology().find_by_name(name)); }
  NodeIndex index(const std::string& name) { return *sim_.topology().find_by_name(name); }

  // Every CA pair through what the switches hold.
  routing::CheckSummary check_held(const SubnetSnapshot& s) { return test::check_held(sim_, top(s)); }
  static uint16_t top(const SubnetSnapshot& s) {
    uint16_t top = 0;
    for (const auto& si : s.switch_info) top = std::max(top, si.linear_fdb_top);
    return top;
  }

  SimFabric& sim() { return sim_; }
  RecordingPort& rec() { return *rec_; }
  SweepState& state() { return state_; }

 private:
  SimFabric sim_;
  std::unique_ptr<RecordingPort> rec_;
  std::unique_ptr<MadDispatcher> d_;
  SweepState state_;
  SweepConfig config_;
};

// The fabric, LIDs, port states, rates and VLCaps of `a` are those of `b`
// (matched by GUID).
void same_subnet(const SubnetSnapshot& a, const SubnetSnapshot& b) {
  std::string why;
  INFO(why);
  REQUIRE(same_topology(a.fabric, b.fabric, &why));
  for (const Node& na : a.fabric.nodes()) {
    const Node& nb = b.fabric.node(*b.fabric.find_by_node_guid(na.node_guid));
    for (uint8_t p = 0; p <= na.num_ports; ++p) {
      INFO(fmt::format("{} {} port {}", na.description, na.node_guid, p));
      CHECK(na.port(p).base_lid == nb.port(p).base_lid);
      CHECK(na.port(p).lmc == nb.port(p).lmc);
      if (p == 0 || !na.port(p).connected()) continue;
      CHECK(na.port(p).state == nb.port(p).state);
      CHECK(na.port(p).width_active == nb.port(p).width_active);
      CHECK(na.port(p).speed_active == nb.port(p).speed_active);
      CHECK(na.port(p).vl_cap == nb.port(p).vl_cap);  // what VL programming reads
    }
  }
}

// After an incremental sweep, a full one on the same fabric (with the SM's
// memory as the incremental one left it) finds the same subnet and has
// nothing to set.
void full_sweep_agrees(Bench& b, const SweepReport& incremental) {
  SweepState copy = b.state();
  SweepReport full = b.heavy(copy);
  same_subnet(*incremental.subnet, *full.subnet);
  CHECK(full.lft_blocks_sent == 0);
  CHECK(full.port_info_sets == 0);
  CHECK(full.switch_info_sets == 0);
  CHECK(full.ports_armed == 0);
}

// A cable between a leaf and an aggregation switch away from the SM's leaf.
std::pair<PortRef, PortRef> leaf_uplink(Bench& b, const std::string& leaf) {
  const NodeIndex l = b.index(leaf);
  const Node& n = b.sim().topology().node(l);
  for (uint8_t p = 1; p <= n.num_ports; ++p) {
    const Port& port = n.port(p);
    if (port.connected() && b.sim().topology().node(port.remote_node).is_switch())
      return {PortRef{l, p}, PortRef{port.remote_node, port.remote_port}};
  }
  FAIL("no uplink");
  return {};
}

// Every cable of switch `sw` brought up or down; the switches at their far
// ends, by name.
std::vector<std::string> set_cables(Bench& b, NodeIndex sw, bool up) {
  const Node& node = b.sim().topology().node(sw);
  std::vector<std::string> neighbours;
  for (uint8_t p = 1; p <= node.num_ports; ++p) {
    if (!node.port(p).connected()) continue;
    neighbours.push_back(b.sim().topology().node(node.port(p).remote_node).name);
    REQUIRE(b.sim().set_link(PortRef{sw, p}, up).ok());
  }
  return neighbours;
}

TEST_CASE("a cable pulled and put back: only the region is read, the subnet is what a full sweep finds",
          "[sweep][incremental]") {
  Bench b;
  b.rec().clear();
  SweepReport first = b.heavy();
  REQUIRE(first.subnet_up);
  const uint64_t heavy_mads = b.rec().total();
  const uint64_t heavy_gets = b.rec().sent(wire::method::get, wire::smp_attr::port_info);

  const std::string leaf = "leaf-3";
  auto [down, far] = leaf_uplink(b, leaf);
  const std::string agg = b.sim().topology().node(far.node).name;
  REQUIRE(b.sim().set_link(down, false).ok());

  SECTION("pulled") {
    b.rec().clear();
    auto pulled = b.incremental(first, {leaf});
    INFO((pulled.ok() ? std::string() : pulled.status().message()));
    REQUIRE(pulled.ok());
    CHECK(pulled->subnet_up);
    // Read: the switch named and the far end of its cable, nothing else.
    CHECK(b.rec().gets_to() == std::set<std::string>{leaf, agg});
    CHECK(b.rec().sent(wire::method::get, wire::smp_attr::node_info) == 0);
    // The leaf's path may cross the cable: then one SwitchInfo Get is lost
    // (no retry) before the aggregation switch shows the cable gone.
    CHECK(b.rec().sent(wire::method::get, wire::smp_attr::switch_info) <= 3);
    CHECK(b.rec().sent(wire::method::get, wire::smp_attr::port_info) == 2u * (b.node(leaf).num_ports + 1));
    CHECK(b.rec().total() * 5 < heavy_mads);
    CHECK(b.rec().sent(wire::method::get, wire::smp_attr::port_info) * 10 < heavy_gets);
    CHECK(b.check_held(*pulled->subnet).all_delivered());
    full_sweep_agrees(b, *pulled);

    SECTION("and put back") {
      REQUIRE(b.sim().set_link(down, true).ok());
      b.rec().clear();
      auto back = b.incremental(*pulled, {agg});
      INFO((back.ok() ? std::string() : back.status().message()));
      REQUIRE(back.ok());
      CHECK(back->subnet_up);
      CHECK(b.rec().gets_to() == std::set<std::string>{leaf, agg});
      CHECK(b.rec().sent(wire::method::get, wire::smp_attr::node_info) == 1);  // who is at the port that came up
      // The two ends of the cable are configured and brought up, nothing else.
      // (their settings survive the link going down: only the state changes)
      CHECK(back->port_info_sets <= 2);
      CHECK(back->ports_armed == 2);
      CHECK(back->ports_activated == 2);
      CHECK(b.rec().total() * 5 < heavy_mads);
      CHECK(b.sim().port_state(down) == PortState::active);
      CHECK(b.check_held(*back->subnet).all_delivered());
      full_sweep_agrees(b, *back);
    }
  }
}

TEST_CASE("a repair copies only the rows it changes: the others stay shared with the last snapshot",
          "[sweep][incremental]") {
  // At 42k LIDs a copy of every row is 148 MB of fresh memory per event;
  // one cable changes a few switches' rows (sm/fabric/lfts.h).
  Bench b("minhop");
  SweepReport first = b.heavy();
  REQUIRE(first.subnet_up);
  const std::vector<LftRow> first_rows = first.subnet->lfts.rows();
  const std::string leaf = "leaf-3";
  REQUIRE(b.sim().set_link(leaf_uplink(b, leaf).first, false).ok());
  auto pulled = b.incremental(first, {leaf});
  INFO((pulled.ok() ? std::string() : pulled.status().message()));
  REQUIRE(pulled.ok());
  CHECK(pulled->subnet_up);
  CHECK(b.check_held(*pulled->subnet).all_delivered());
  // The first snapshot is as it was; each switch whose table stayed the
  // same shares its row with it, and the repair's rows are new.
  CHECK(first.subnet->lfts == first_rows);
  size_t shared = 0, changed = 0;
  for (uint32_t i = 0; i < first.subnet->fabric.node_count(); ++i) {
    const Node& sw = first.subnet->fabric.node(NodeIndex{i});
    if (!sw.is_switch()) continue;
    auto now = pulled->subnet->fabric.find_by_node_guid(sw.node_guid);
    REQUIRE(now);
    INFO(sw.name);
    const bool same = pulled->subnet->lfts[now->value] == first_rows[i];
    CHECK(pulled->subnet->lfts.same_row(now->value, first.subnet->lfts, i) == same);
    ++(same ? shared : changed);
  }
  CHECK(shared > 0);
  CHECK(changed > 0);
}

TEST_CASE("a switch lost and returned: its neighbours' regions are read, it is found anew",
          "[sweep][incremental]") {
  Bench b;
  SweepReport first = b.heavy();
  REQUIRE(first.subnet_up);
  const size_t nodes = first.subnet->fabric.node_count();
  // An aggregation switch: every cable of it pulled.
  const NodeIndex lost = b.index("agg-5");
  const Node& node = b.sim().topology().node(lost);
  const std::vector<std::string> neighbours = set_cables(b, lost, false);
  auto gone = b.incremental(first, neighbours);
  INFO((gone.ok() ? std::string() : gone.status().message()));
  REQUIRE(gone.ok());
  CHECK(gone->subnet_up);
  CHECK(gone->subnet->fabric.node_count() == nodes - 1);
  CHECK_FALSE(gone->subnet->fabric.find_by_node_guid(node.node_guid));
  CHECK(b.check_held(*gone->subnet).all_delivered());
  full_sweep_agrees(b, *gone);

  set_cables(b, lost, true);
  b.rec().clear();
  auto back = b.incremental(*gone, {neighbours.front()});
  INFO((back.ok() ? std::string() : back.status().message()));
  REQUIRE(back.ok());
  CHECK(back->subnet_up);
  CHECK(back->subnet->fabric.node_count() == nodes);
  CHECK(b.check_held(*back->subnet).all_delivered());
  full_sweep_agrees(b, *back);
}

TEST_CASE("a switch lost and returned: min-hop's tables are mended, not routed afresh", "[sweep][incremental]") {
  // The repair needs the same switches before and after: the one lost (or
  // come) is given to the other side uncabled (with_same_switches). On the
  // k=34 fat tree under ibsim a lost aggregation switch took 26 s routed
  // afresh.
  Bench b("minhop");
  SweepReport first = b.heavy();
  REQUIRE(first.subnet_up);
  const NodeIndex lost = b.index("agg-5");
  const Node& node = b.sim().topology().node(lost);
  const std::vector<std::string> neighbours = set_cables(b, lost, false);
  auto gone = b.incremental(first, neighbours);
  INFO((gone.ok() ? std::string() : gone.status().message()));
  REQUIRE(gone.ok());
  CHECK(gone->subnet_up);
  CHECK_FALSE(gone->subnet->fabric.find_by_node_guid(node.node_guid));
  INFO(gone->routes.check);
  CHECK(gone->routes.check.find("repaired") != std::string::npos);
  CHECK(gone->routes.check_ok);
  CHECK(gone->subnet->lfts.size() == gone->subnet->fabric.node_count());
  CHECK(b.check_held(*gone->subnet).all_delivered());
  CHECK(b.check_held(*gone->subnet).longer_than_shortest == 0);

  set_cables(b, lost, true);
  auto back = b.incremental(*gone, {neighbours.front()});
  INFO((back.ok() ? std::string() : back.status().message()));
  REQUIRE(back.ok());
  CHECK(back->subnet_up);
  REQUIRE(back->subnet->fabric.find_by_node_guid(node.node_guid));
  INFO(back->routes.check);
  CHECK(back->routes.check.find("repaired") != std::string::npos);
  CHECK(back->routes.check_ok);
  const routing::CheckSummary held = b.check_held(*back->subnet);
  CHECK(held.all_delivered());
  CHECK(held.longer_than_shortest == 0);
  // The switch that came back carries routes again: it is a switch of the
  // fabric's shortest paths, and the repair spreads LIDs onto its cables.
  const NodeIndex at = *back->subnet->fabric.find_by_node_guid(node.node_guid);
  const LftRow& row = back->subnet->lfts[at.value];
  CHECK(std::count(row.begin(), row.end(), kNoRoute) < static_cast<std::ptrdiff_t>(row.size()) / 2);
}

TEST_CASE("in doubt the incremental pass refuses and says why", "[sweep][incremental]") {
  Bench b;
  SweepReport first = b.heavy();
  REQUIRE(first.subnet_up);
  SECTION("a switch's lid changed behind the sm's back") {
    REQUIRE(b.sim().set_port_lid(PortRef{b.index("leaf-2"), 0}, Lid{300}).ok());
    auto r = b.incremental(first, {"leaf-2"});
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("behind the sm's back"));
  }
  SECTION("a switch that does not answer") {
    b.sim().set_unresponsive(b.index("leaf-2"));
    auto r = b.incremental(first, {"leaf-2"});
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("does not answer"));
  }
  SECTION("a switch the subnet does not have") {
    auto r = b.incremental(first, std::vector<Guid>{Guid{0x1234}});
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.status().message(), Catch::Contains("none of the 1 switches named is in the subnet"));
  }
}

// Not a test: the CPU time of a cable pulled and put back, then an
// aggregation switch lost and returned, on the k=34 fat tree (42,772 LIDs, min-hop), the incremental sweep alone, in process, for
// profiling (`perf record ... sm_sweep_tests '[k34-events]'`). Under ibsim
// bench/reroute.sh --k34 measures the daemon.
TEST_CASE("k=34: a cable pulled and put back, timed", "[.][k34-events]") {
  // CPU time of this thread: other work on the machine moves it less than
  // the wall clock.
  struct Cpu {
    static double now() {
      timespec t{};
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
    }
  };
  const auto ms = [](double t0) { return Cpu::now() - t0; };
  Bench b("minhop", fat_tree(34), SimOptions{.linear_fdb_cap = 49152});
  auto t0 = Cpu::now();
  SweepReport last = b.heavy();
  REQUIRE(last.subnet_up);
  fmt::print("cold bring-up: {:.0f} ms of cpu\n", ms(t0));
  auto [down, far] = leaf_uplink(b, "leaf-5");
  const std::string agg = b.sim().topology().node(far.node).name;
  for (int round = 0; round < 2; ++round) {
    for (const bool up : {false, true}) {
      REQUIRE(b.sim().set_link(down, up).ok());
      t0 = Cpu::now();
      auto r = b.incremental(last, {up ? agg : std::string("leaf-5")});
      const double took = ms(t0);
      INFO((r.ok() ? std::string() : r.status().message()));
      REQUIRE(r.ok());
      REQUIRE(r->subnet_up);
      fmt::print("{}: {:.0f} ms of cpu; {}\n", up ? "put back" : "pull", took, r->routes.check);
      last = std::move(*r);
    }
  }
  const NodeIndex lost = b.index("agg-5");
  for (const bool up : {false, true}) {
    const std::vector<std::string> neighbours = set_cables(b, lost, up);
    t0 = Cpu::now();
    auto r = b.incremental(last, {neighbours.front()});
    const double took = ms(t0);
    INFO((r.ok() ? std::string() : r.status().message()));
    REQUIRE(r.ok());
    REQUIRE(r->subnet_up);
    fmt::print("{}: {:.0f} ms of cpu; {}\n", up ? "switch back" : "switch lost", took, r->routes.check);
    last = std::move(*r);
  }
}

}  // namespace
}  // namespace ibsm::test
