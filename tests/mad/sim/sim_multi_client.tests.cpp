// Several clients on one SimFabric in one thread and one virtual time, the way
// SMs failing over run in a test: one blocks in run_until_idle() while the
// others answer through their services; freeze, kill (detach) and restart; trap
// 144 when a port starts or stops being an SM; SMInfo Get and Set to an SM
// client and its answer back, directed-route and LID-routed.
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/wire/notice.h"
#include "mad/wire/port_info.h"
#include "mad/wire/response.h"
#include "mad/wire/sm_info.h"
#include "tests/mad/sim/sim_subnet_setup.h"

using namespace ibsm;
using namespace ibsm::sim_test;

namespace {

// Directed routes from H1 in sim_chain.net (and the LIDs configure_chain gives).
constexpr std::string_view to_h2 = "0,1,2,2,2";  // H2 port 1, LID 7: 4 hops
constexpr std::string_view to_s2 = "0,1,2";      // S2 port 0, LID 3: 2 hops
constexpr std::string_view to_h3 = "0,1,2,3";    // H3 port 1, LID 5: 3 hops
constexpr std::string_view to_h3_port2 = "0,1,2,4";  // H3 port 2, LID 6

// ibsim 0.10's CapabilityMask of a cabled CA port (sma_port_info.cpp), which
// says IsCapabilityMaskNoticeSupported (bit 22) and IsTrapSupported (bit 3).
constexpr uint32_t cabled_ca_mask = 0x50C048;

Micros hops(int n) { return n * SimOptions{}.hop_latency; }

// A client that answers SMInfo Gets and Sets the way an SM does (GetResp with
// its own SMInfo), from its dispatcher's request handler, and keeps every
// request that reached it.
class SmClient {
 public:
  SmClient(SimFabric& fabric, NodeIndex node, uint8_t port, uint8_t priority)
      : client_(fabric, node, port), guid_(client_.port().local_port().port_guid), priority_(priority) {
    client_.port().set_is_sm(true);
    client_.dispatcher().set_request_handler([this](const MadPacket& in) { handle(in); });
  }
  SmClient(const SmClient&) = delete;
  SmClient& operator=(const SmClient&) = delete;

  // What an SM's harness installs: answer whatever has arrived.
  void serve() { port().set_service([this] { client_.dispatcher().poll(); }); }

  Client& client() { return client_; }
  SimPort& port() { return client_.port(); }
  Guid guid() const { return guid_; }
  const std::vector<MadPacket>& requests() const { return requests_; }
  // Runs before the answer is sent.
  std::function<void(const MadPacket&)> before_answer;

 private:
  void handle(const MadPacket& in) {
    requests_.push_back(in);
    auto smp = wire::parse_smp(in.data);
    REQUIRE(smp.ok());
    if (smp->attr_id() != wire::smp_attr::sm_info) return;
    if (before_answer) before_answer(in);
    MadPacket out;
    out.data = wire::make_response(in.data);  // GetResp, for a Set too
    wire::SmInfo info;
    info.guid = guid_;
    info.priority = priority_;
    info.sm_state = wire::sm_state::standby;
    wire::encode(info, wire::smp_data(out.data));
    out.address = in.address;
    REQUIRE(client_.dispatcher().send_now(out).ok());
  }

  Client client_;
  Guid guid_;
  uint8_t priority_;
  std::vector<MadPacket> requests_;
};

MadPacket sm_info_get(std::string_view dr) {
  return Client::dr_request(wire::method::get, wire::smp_attr::sm_info, 0, path(dr));
}

wire::SmInfo sm_info_of(const MadPacket& p) { return attribute_of<wire::SmInfo>(p, wire::decode_sm_info); }

uint32_t capability_mask_at(Client& reader, std::string_view dr, uint8_t port) {
  auto r = reader.dr_get(wire::smp_attr::port_info, port, dr);
  REQUIRE(r.ok());
  return port_info_of(*r).capability_mask;
}

}  // namespace

TEST_CASE("a client blocked in run_until_idle is answered through the other client's service", "[sim][multi]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client a(fabric, node_named(topo, "H1"), 1);
  SmClient b(fabric, node_named(topo, "H2"), 1, 7);

  SECTION("with B's service installed the Get completes") {
    b.serve();
    auto r = a.run(sm_info_get(to_h2));
    REQUIRE(r.ok());
    CHECK(sm_info_of(*r).guid == b.guid());
    CHECK(sm_info_of(*r).priority == 7);
    // B answered at the instant the Get reached it: 4 hops there, 4 back.
    CHECK(fabric.now() == hops(8));
    CHECK(b.requests().size() == 1);
    CHECK(a.dispatcher().stats().responses == 1);
    CHECK(fabric.counters().dropped_total() == 0);
  }
  SECTION("without it nobody reads B's inbox and A times out") {
    CHECK(a.run(sm_info_get(to_h2)).status().code() == StatusCode::timeout);
    CHECK(b.requests().empty());
    CHECK(b.port().pending() == 1);
    CHECK(fabric.now() == Client::quick().timeout);
    CHECK(a.dispatcher().stats().timeouts == 1);
  }
  SECTION("with B frozen, likewise") {
    b.serve();
    b.port().set_frozen(true);
    CHECK(b.port().frozen());
    CHECK(a.run(sm_info_get(to_h2)).status().code() == StatusCode::timeout);
    CHECK(b.requests().empty());
    CHECK(b.port().pending() == 1);
    CHECK(fabric.now() == Client::quick().timeout);
  }
}

TEST_CASE("a harness that only steps the fabric drives every client through its service", "[sim][multi]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client a(fabric, node_named(topo, "H1"), 1);
  SmClient b(fabric, node_named(topo, "H2"), 1, 7);
  a.port().set_service([&] { a.dispatcher().poll(); });
  b.serve();
  std::optional<Result<MadPacket>> result;
  a.dispatcher().submit(sm_info_get(to_h2), [&](Result<MadPacket> r) { result = std::move(r); });
  a.dispatcher().poll();  // sent
  std::vector<Micros> steps;
  while (!result && steps.size() < 10) {
    fabric.step(1000);
    steps.push_back(fabric.now());
  }
  REQUIRE(result.has_value());
  REQUIRE(result->ok());
  CHECK(sm_info_of(result->value()).guid == b.guid());
  // To the Get's arrival at B, to B's answer at A, and one more step for A's
  // service to read it.
  CHECK(steps == std::vector<Micros>{hops(4), hops(8), 1000 + hops(8)});

  SECTION("a frozen client's MADs do not stop the clock") {
    b.port().set_frozen(true);
    result.reset();
    a.dispatcher().submit(sm_info_get(to_h2), [&](Result<MadPacket> r) { result = std::move(r); });
    // Services run only for MADs that arrived: new work is the harness's to
    // start (an SM's poll).
    const Micros start = fabric.now();
    fabric.step(1000);
    CHECK(fabric.now() == start + 1000);
    CHECK(a.dispatcher().in_flight() == 0);
    a.dispatcher().poll();
    fabric.step(1000);  // to its arrival at B
    fabric.step(1000);  // B does not answer: on by the whole step
    CHECK(fabric.now() == start + 1000 + hops(4) + 1000);
    CHECK(b.port().pending() == 1);
    CHECK_FALSE(result.has_value());
  }
}

TEST_CASE("a frozen client reads what arrived once it is unfrozen", "[sim][multi]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client a(fabric, node_named(topo, "H1"), 1);
  SmClient b(fabric, node_named(topo, "H2"), 1, 7);
  b.serve();
  b.port().set_frozen(true);

  SECTION("after A gave up: B's late answer is unmatched") {
    CHECK(a.run(sm_info_get(to_h2)).status().code() == StatusCode::timeout);
    const Micros gave_up = fabric.now();
    CHECK(b.requests().empty());
    b.port().set_frozen(false);
    CHECK_FALSE(b.port().frozen());
    a.port().wait(10'000);  // B's service runs first, then the clock stops at its answer
    CHECK(b.requests().size() == 1);
    CHECK(fabric.now() == gave_up + hops(4));
    a.dispatcher().poll();
    CHECK(a.dispatcher().stats().unmatched == 1);
    CHECK(a.dispatcher().stats().responses == 0);
    CHECK(a.dispatcher().stats().timeouts == 1);
  }
  SECTION("before A gives up: the answer is late but in time") {
    std::optional<Result<MadPacket>> result;
    a.dispatcher().submit(sm_info_get(to_h2), [&](Result<MadPacket> r) { result = std::move(r); });
    a.dispatcher().poll();
    a.port().wait(100);
    CHECK(fabric.now() == hops(4));  // the Get reached B's inbox
    a.port().wait(100);              // B stopped: nobody answers meanwhile
    CHECK(fabric.now() == hops(4) + 100);
    CHECK(b.requests().empty());
    b.port().set_frozen(false);
    a.dispatcher().run_until_idle();
    REQUIRE(result.has_value());
    REQUIRE(result->ok());
    CHECK(sm_info_of(result->value()).guid == b.guid());
    CHECK(fabric.now() == hops(4) + 100 + hops(4));
  }
}

TEST_CASE("SMInfo Get and Set reach the SM client at the destination and its answer comes back", "[sim][multi][sminfo]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client a(fabric, node_named(topo, "H1"), 1);
  configure_chain(topo, a);
  const Guid a_guid = a.port().local_port().port_guid;

  SmClient h2(fabric, node_named(topo, "H2"), 1, 2);
  SmClient s2(fabric, node_named(topo, "S2"), 0, 3);  // an SM on a switch's port 0
  SmClient h3(fabric, node_named(topo, "H3"), 2, 4);  // on a CA's second port
  struct Target {
    SmClient* sm;
    std::string_view dr;
    uint16_t lid;
  };
  const std::vector<Target> targets{{&h2, to_h2, 7}, {&s2, to_s2, 3}, {&h3, to_h3_port2, 6}};
  for (const Target& t : targets) t.sm->serve();

  wire::SmInfo mine;
  mine.guid = a_guid;
  mine.priority = 1;
  mine.sm_state = wire::sm_state::master;
  std::array<uint8_t, wire::sm_info_size> payload{};
  wire::encode(mine, payload);

  for (const Target& t : targets) {
    for (bool directed : {true, false}) {
      for (uint8_t method : {wire::method::get, wire::method::set}) {
        INFO("lid " << t.lid << (directed ? " directed" : " lid-routed") << " method " << int{method});
        const uint32_t mod = method == wire::method::set ? wire::sm_info_control::standby : 0;
        const std::span<const uint8_t> data =
            method == wire::method::set ? std::span<const uint8_t>(payload) : std::span<const uint8_t>();
        MadPacket request = directed ? Client::dr_request(method, wire::smp_attr::sm_info, mod, path(t.dr), data)
                                     : Client::lid_request(method, wire::smp_attr::sm_info, mod, Lid{t.lid}, data);
        const size_t seen = t.sm->requests().size();
        auto r = a.run(request);
        REQUIRE(r.ok());

        // What the SM client got.
        REQUIRE(t.sm->requests().size() == seen + 1);
        const MadPacket& in = t.sm->requests().back();
        auto got = wire::parse_smp(in.data);
        REQUIRE(got.ok());
        CHECK(got->directed() == directed);
        CHECK(got->method() == method);
        CHECK(got->attr_mod() == mod);
        CHECK(in.address.lid == (directed ? Lid{wire::permissive_lid} : Lid{1}));
        if (method == wire::method::set) CHECK(sm_info_of(in) == mine);

        // What came back to A.
        auto answer = wire::parse_smp(r->data);
        REQUIRE(answer.ok());
        CHECK(answer->directed() == directed);
        CHECK(answer->method() == wire::method::get_resp);
        CHECK(answer->attr_mod() == mod);
        CHECK(r->address.lid == (directed ? Lid{wire::permissive_lid} : Lid{t.lid}));
        CHECK(sm_info_of(*r).guid == t.sm->guid());
      }
    }
  }
  CHECK(h2.requests().size() == 4);
  CHECK(s2.requests().size() == 4);
  CHECK(h3.requests().size() == 4);
  CHECK(fabric.counters().dropped_total() == 0);
}

TEST_CASE("detach kills a client; its port loses IsSM, traps 144 and can be attached again", "[sim][multi][trap]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client a(fabric, node_named(topo, "H1"), 1);
  SmClient b(fabric, node_named(topo, "H2"), 1, 7);  // IsSM before it has a LID: no trap
  Client master(fabric, node_named(topo, "H3"), 1);  // the master SM B reports to
  std::vector<MadPacket> traps;
  master.dispatcher().set_request_handler([&](const MadPacket& in) { traps.push_back(in); });
  master.port().set_service([&] { master.dispatcher().poll(); });
  configure_chain(topo, a);
  MadPacket r = modify_port_info(a, std::string(to_h2), 1, [](wire::PortInfo& pi) { pi.master_sm_lid = Lid{5}; });
  REQUIRE(smp_status(r) == 0);
  CHECK(fabric.counters().traps_sent == 0);
  CHECK(capability_mask_at(a, to_h2, 1) == (cabled_ca_mask | wire::port_cap::is_sm));

  // Alive: B answers.
  b.serve();
  REQUIRE(a.run(sm_info_get(to_h2)).ok());
  // Hung, then killed with a Get unread.
  b.port().set_frozen(true);
  CHECK(a.run(sm_info_get(to_h2)).status().code() == StatusCode::timeout);
  CHECK(b.port().pending() == 1);
  fabric.reset_counters();
  fabric.detach(b.port());
  CHECK_FALSE(b.port().attached());
  CHECK(b.port().pending() == 0);
  CHECK(fabric.counters().traps_sent == 1);
  CHECK(b.port().send(sm_info_get("0")).code() == StatusCode::unavailable);
  CHECK(fabric.counters().mads_in == 0);

  // Its port has no client now.
  CHECK(a.run(sm_info_get(to_h2)).status().code() == StatusCode::timeout);
  CHECK(fabric.counters().dropped_for(DropReason::no_client) == 1);
  CHECK(b.requests().size() == 1);
  CHECK(capability_mask_at(a, to_h2, 1) == cabled_ca_mask);

  // The master heard of it while A waited: trap 144 from B's port.
  REQUIRE(traps.size() == 1);
  auto check_trap = [&](const MadPacket& trap, uint32_t mask) {
    auto smp = wire::parse_smp(trap.data);
    REQUIRE(smp.ok());
    CHECK(smp->mgmt_class() == wire::mgmt_class::subn_lid_routed);
    CHECK(smp->method() == wire::method::trap);
    CHECK(smp->attr_id() == wire::smp_attr::notice);
    CHECK(trap.address.lid == Lid{7});
    auto notice = attribute_of<wire::Notice>(trap, wire::decode_notice);
    CHECK(notice.is_generic);
    CHECK(notice.type == wire::notice_type::info);
    CHECK(notice.producer_type == wire::producer_type::channel_adapter);
    CHECK(notice.trap_number == wire::trap_number::capability_mask_change);
    CHECK(notice.issuer_lid == Lid{7});
    CHECK_FALSE(notice.notice_toggle);
    CHECK(notice.notice_count == 0);
    CHECK(wire::get_field(smp->data(), wire::notice_fields::trap144_lid) == 7);
    CHECK(wire::get_field(smp->data(), wire::notice_fields::trap144_capability_mask) == mask);
    // Nothing else in DataDetails: LIDADDR at bytes 2-3, CapabilityMask at 6-9.
    std::array<uint8_t, wire::notice_details_size> details{};
    details[3] = 7;
    details[6] = static_cast<uint8_t>(mask >> 24);
    details[7] = static_cast<uint8_t>(mask >> 16);
    details[8] = static_cast<uint8_t>(mask >> 8);
    details[9] = static_cast<uint8_t>(mask);
    CHECK(notice.data_details == details);
  };
  check_trap(traps[0], cabled_ca_mask);

  // Restarted: a new client at the same port, which says it is an SM again.
  SmClient b2(fabric, node_named(topo, "H2"), 1, 9);
  CHECK(&b2.port() != &b.port());
  CHECK(b2.port().attached());
  CHECK(fabric.counters().traps_sent == 2);
  b2.serve();
  auto again = a.run(sm_info_get(to_h2));
  REQUIRE(again.ok());
  CHECK(sm_info_of(*again).priority == 9);
  CHECK(b.requests().size() == 1);
  REQUIRE(traps.size() == 2);
  check_trap(traps[1], cabled_ca_mask | wire::port_cap::is_sm);
  CHECK(capability_mask_at(a, to_h2, 1) == (cabled_ca_mask | wire::port_cap::is_sm));

  // The dead client's object stays usable but changes nothing.
  b.port().set_is_sm(false);
  CHECK(capability_mask_at(a, to_h2, 1) == (cabled_ca_mask | wire::port_cap::is_sm));
  fabric.detach(b.port());  // twice: nothing more happens
  CHECK(b2.port().attached());
  CHECK(fabric.counters().traps_sent == 2);

  // An SM does not trap itself: A's port has MasterSMLID = its own LID.
  a.port().set_is_sm(true);
  CHECK(fabric.counters().traps_sent == 2);
  // ibsim 0.10's switch port 0 does not say IsCapabilityMaskNoticeSupported,
  // so an SM there sends no trap 144 either; IsSM shows all the same.
  Client on_switch(fabric, node_named(topo, "S2"), 0);
  on_switch.port().set_is_sm(true);
  CHECK(fabric.counters().traps_sent == 2);
  CHECK((capability_mask_at(a, to_s2, 0) & wire::port_cap::is_sm) != 0);
  CHECK(traps.size() == 2);
}

TEST_CASE("the fabric never calls the service of a client that is on the stack", "[sim][multi]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client a(fabric, node_named(topo, "H1"), 1);
  SmClient b(fabric, node_named(topo, "H2"), 1, 7);
  SmClient c(fabric, node_named(topo, "H3"), 1, 8);
  int a_services = 0;
  a.port().set_service([&] {
    ++a_services;
    a.dispatcher().poll();
  });
  b.serve();
  c.serve();
  // B blocks inside its service: it asks C before it answers A.
  std::optional<Result<MadPacket>> nested;
  b.before_answer = [&](const MadPacket&) { nested = b.client().run(sm_info_get("0,1,1,3")); };

  std::vector<std::pair<Micros, Guid>> answers;
  for (std::string_view dr : {to_h2, to_h3}) {
    a.dispatcher().submit(sm_info_get(dr), [&](Result<MadPacket> r) {
      REQUIRE(r.ok());
      answers.emplace_back(fabric.now(), sm_info_of(*r).guid);
    });
  }
  a.dispatcher().run_until_idle();

  // C's answer reached A at 6 while B was waiting in its service; A, waiting
  // further up the stack, was not served then, and read it when B was done.
  REQUIRE(nested.has_value());
  CHECK(nested->ok());
  CHECK(a_services == 0);
  CHECK(c.requests().size() == 2);
  // B got A's Get at 4, asked C (3 hops each way), answered at 10, A had it at 14.
  REQUIRE(answers.size() == 2);
  CHECK(answers[0].first == hops(10));
  CHECK(answers[0].second == c.guid());
  CHECK(answers[1].first == hops(14));
  CHECK(answers[1].second == b.guid());
}

TEST_CASE("services that answer each other at once are cut off after a few rounds", "[sim][multi]") {
  Fabric topo = load_netfile("sim_chain.net");
  SimOptions options;
  options.hop_latency = 0;
  options.sma_latency = 0;
  SimFabric fabric(topo, options);
  SimPort& p = fabric.attach(node_named(topo, "H1"), 1);
  SimPort& q = fabric.attach(node_named(topo, "H2"), 1);
  SimPort& waiter = fabric.attach(node_named(topo, "H3"), 1);
  // Each forwards whatever it reads to the other: with no latency, forever.
  auto ping_pong = [](SimPort& self, std::string_view to_other, int& calls) {
    return [&self, to_other, &calls] {
      ++calls;
      while (self.receive()) REQUIRE(self.send(sm_info_get(to_other)).ok());
    };
  };
  int p_calls = 0;
  int q_calls = 0;
  p.set_service(ping_pong(p, to_h2, p_calls));
  q.set_service(ping_pong(q, "0,1,1,1,1", q_calls));
  REQUIRE(p.send(sm_info_get(to_h2)).ok());

  waiter.wait(50);
  CHECK(q_calls == 8);  // every round, from the first
  CHECK(p_calls == 7);  // from the second
  CHECK(fabric.now() == 50);
  CHECK(p.pending() == 1);  // the last one, unread
}

namespace {

// One failover-like run from scratch: what completed when, and the counts.
struct Trace {
  std::vector<std::pair<Micros, StatusCode>> completions;
  SimCounters counters;
  uint64_t unmatched = 0;
  bool operator==(const Trace&) const = default;
};

Trace failover_run() {
  Fabric topo = load_netfile("sim_chain.net");
  SimFabric fabric(topo);
  Client a(fabric, node_named(topo, "H1"), 1);
  configure_chain(topo, a);
  SmClient b(fabric, node_named(topo, "H2"), 1, 2);
  SmClient s(fabric, node_named(topo, "S2"), 0, 3);
  b.serve();
  s.serve();
  const Micros start = fabric.now();
  Trace trace;
  auto submit = [&](MadPacket request) {
    a.dispatcher().submit(std::move(request), [&](Result<MadPacket> r) {
      trace.completions.emplace_back(fabric.now() - start, r.ok() ? StatusCode::ok : r.status().code());
    });
  };
  submit(sm_info_get(to_h2));
  submit(sm_info_get(to_s2));
  submit(Client::lid_request(wire::method::get, wire::smp_attr::sm_info, 0, Lid{7}));
  submit(Client::lid_request(wire::method::get, wire::smp_attr::sm_info, 0, Lid{3}));
  a.dispatcher().run_until_idle();
  s.port().set_frozen(true);
  submit(sm_info_get(to_s2));
  a.dispatcher().run_until_idle();
  s.port().set_frozen(false);
  fabric.detach(b.port());
  submit(sm_info_get(to_h2));
  submit(sm_info_get(to_s2));
  a.dispatcher().run_until_idle();
  trace.counters = fabric.counters();
  trace.unmatched = a.dispatcher().stats().unmatched;
  return trace;
}

}  // namespace

TEST_CASE("several clients in one virtual time give the same run twice", "[sim][multi]") {
  const Trace first = failover_run();
  const Trace second = failover_run();
  CHECK(first == second);
  // S2 (2 hops each way) answers the DR and the LID-routed Get at 4, H2 (4
  // hops) at 8; frozen, S2 lets the next Get time out at 8 + 1000; then H2 is
  // dead (its Get times out at 2008) and S2, unfrozen, answers the stale Get
  // (unmatched) and the new one (at 1012).
  using C = StatusCode;
  const std::vector<std::pair<Micros, StatusCode>> expected{
      {4, C::ok}, {4, C::ok}, {8, C::ok}, {8, C::ok}, {1008, C::timeout}, {1012, C::ok}, {2008, C::timeout}};
  CHECK(first.completions == expected);
  CHECK(first.unmatched == 1);
  CHECK(first.counters.dropped_for(DropReason::no_client) == 1);
}
