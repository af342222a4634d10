// The standby's copy of the master's SA state, end to end inside SimFabric:
// a master SaAgent at the SM's port, clients at other CAs registering
// services (with leases, one in a partition only the SM_Key sees) and
// subscribing to traps, a SaMirror at a standby CA reading both tables by
// GetTable over RMPP, and a fresh SaAgent at the standby's port taking over
// with the copy. Then the new master must serve what the old one did: the
// same records, the owners' rights, leases that run out no earlier, Reports
// to the same subscribers; a later read follows the master; a failed read
// keeps the copy; importing twice changes nothing. The registries' import
// rules (Enum renumbering, unknown subscribers, the deferred subscriptions
// of an agent without a snapshot) are checked on their own at the end.
#include "sa/mirror.h"

#include <algorithm>
#include <memory>
#include <set>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/notice.h"
#include "mad/wire/response.h"
#include "mad/wire/rmpp.h"
#include "mad/wire/sa/inform_info_record.h"
#include "mad/wire/sa/mc_member_record.h"
#include "mad/wire/sa/service_record.h"
#include "mad/wire/sa_header.h"
#include "sa/client.h"
#include "sa/notices.h"
#include "sa/partition_access.h"
#include "sm/topogen/generators.h"
#include "tests/sa/sa_bench.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::decoded;
using test::must;
using test::SaBench;

namespace {

using namespace test::service_mask;
using test::method_of;
using test::ms;
using test::second;
using test::tid_of;

constexpr size_t kServicesPerClient = 10;
constexpr size_t kPlainServices = 3 * kServicesPerClient;  // 30: 28 RMPP segments with the one below
constexpr uint16_t kHiddenPKey = 0x8001;                   // a partition no port of the fabric has
constexpr uint64_t kHiddenServiceId = 0x9999;


// Service i of client k: every fourth has a 20 s lease, every fourth from
// the second a 3600 s one, the rest never end.
wire::ServiceRecord service(size_t k, size_t i, const wire::Gid& gid) {
  const size_t n = k * kServicesPerClient + i;
  wire::ServiceRecord r;
  r.service_id = 0x100 + n;
  r.service_gid = gid;
  r.service_p_key = wire::default_p_key;
  r.service_lease = n % 4 == 0 ? 20 : n % 4 == 1 ? 3600 : wire::service_lease_infinite;
  r.set_name("svc-" + std::to_string(n));
  r.service_key[0] = static_cast<uint8_t>(n);
  r.service_key[15] = static_cast<uint8_t>(0xC0 | k);
  r.data8[3] = static_cast<uint8_t>(n);
  r.data16[1] = static_cast<uint16_t>(0x1000 + n);
  r.data32[2] = static_cast<uint32_t>(0xABC00000 + n);
  r.data64[1] = 0x1122334455000000ULL + n;
  return r;
}

sa::SaRequest service_request(uint8_t method, uint64_t mask, const wire::ServiceRecord& r, uint64_t sm_key = 0) {
  sa::SaRequest req;
  req.method = method;
  req.attribute = wire::sa_attr::service_record;
  req.component_mask = mask;
  req.sm_key = sm_key;
  req.data.assign(wire::sa_record_size::service, 0);
  wire::encode(r, req.data);
  return req;
}

sa::SaRequest table_request(uint16_t attribute, uint64_t sm_key = 0) {
  sa::SaRequest req;
  req.method = wire::method::get_table;
  req.attribute = attribute;
  req.sm_key = sm_key;
  return req;
}

wire::InformInfo slow_trap(uint16_t trap) {
  wire::InformInfo ii = test::generic_trap(trap);
  ii.resp_time_value = 17;
  return ii;
}

wire::Notice generic_notice(uint16_t trap, Lid issuer) {
  wire::Notice n;
  n.type = trap >= wire::trap_number::bad_m_key ? wire::notice_type::security : wire::notice_type::urgent;
  n.producer_type = wire::producer_type::switch_;
  n.trap_number = trap;
  n.issuer_lid = issuer;
  return n;
}

std::vector<wire::ServiceRecord> services_of(const sa::SaAnswer& a) {
  std::vector<wire::ServiceRecord> out;
  for (size_t i = 0; i < a.record_count(); ++i)
    out.push_back(decoded(wire::decode_service_record(a.record(i).first(wire::sa_record_size::service))));
  return out;
}

// A CA port that registers and subscribes, and the Reports it got.
struct Client {
  SimPort* port = nullptr;
  Lid lid;
  wire::Gid gid;
  std::vector<wire::Notice> reports;
};

// SaBench's master, three more clients, the standby with its mirror, and
// the new master once it takes over.
struct MirrorBench {
  SaBench b{must(topogen::kary_ntree({.k = 4, .n = 2}))};
  SimPort* standby = nullptr;
  Lid standby_lid;
  std::unique_ptr<sa::SaMirror> mirror;
  std::unique_ptr<sa::SaAgent> next;  // the new master, at the standby's port
  std::shared_ptr<const sa::SaSnapshot> next_snapshot;
  std::vector<MadPacket> sent_by_next;
  std::vector<MadPacket> sent_by_mirror;
  std::vector<Client> clients;  // clients[3] is SaBench's own
  bool master_frozen = false;
  uint64_t stray = 0;  // SA MADs at the standby that neither took
  std::vector<std::pair<SimPort*, sa::SaClientCall*>> calls;  // client calls in progress
  uint64_t next_tid = 0x6C000001;

  explicit MirrorBench(sa::SaMirrorOptions options = default_options()) {
    // Node indices of the simulated fabric (the snapshot's are discovery's).
    const Fabric& t = b.h.sim().topology();
    const NodeIndex sm_node = test::SweepHarness::first_ca_port(t).node;
    std::vector<NodeIndex> cas;
    for (uint32_t i = 0; i < t.node_count(); ++i)
      if (!t.node(NodeIndex{i}).is_switch() && NodeIndex{i} != sm_node && NodeIndex{i} != b.client->node())
        cas.push_back(NodeIndex{i});
    REQUIRE(cas.size() >= 4);
    standby = &b.h.sim().attach(cas[0], 1);
    standby->set_is_sm(true);
    standby_lid = endport(*standby).base_lid;
    for (size_t k = 1; k <= 3; ++k) clients.push_back(client(b.h.sim().attach(cas[k], 1)));
    clients.push_back(client(*b.client));
    mirror = std::make_unique<sa::SaMirror>(
        [this](const MadPacket& p) {
          sent_by_mirror.push_back(p);
          REQUIRE(standby->send(p).ok());
        },
        options);
  }

  static sa::SaMirrorOptions default_options() {
    sa::SaMirrorOptions o;
    o.sm_key = test::kSaBenchSmKey;
    o.call.timeout = 100 * ms;
    o.call.retries = 2;
    return o;
  }

  Micros now() { return b.h.sim().now(); }

  // The snapshot's end port of a simulated port, by its GUID.
  const sa::EndPort& endport(const SimPort& p) {
    const sa::EndPort* e = b.snapshot->by_port_guid(b.h.sim().topology().node(p.node()).port(p.port_num()).guid);
    REQUIRE(e != nullptr);
    return *e;
  }
  Client client(SimPort& p) {
    Client c;
    c.port = &p;
    c.lid = endport(p).base_lid;
    c.gid = sa::port_gid(*b.snapshot, endport(p));
    return c;
  }
  MadAddress next_sa() const { return sa::sa_address(standby_lid); }

  void freeze_master() {
    master_frozen = true;
    b.h.dispatcher().set_class_handler(wire::mgmt_class::subn_adm, [](const MadPacket&) {});
  }

  // One round of every party, then the fabric's clock moves by up to `wait`.
  void step(Micros wait) {
    b.h.dispatcher().poll();
    if (!master_frozen) b.agent->poll(now());
    while (auto p = standby->receive()) {
      if (mirror->handle(*p, now())) continue;
      if (next) {
        next->handle(*p, now());
      } else {
        ++stray;
      }
    }
    mirror->poll(now());
    if (next) next->poll(now());
    for (Client& c : clients)
      while (auto p = c.port->receive()) deliver(c, *p);
    for (auto& [port, pending] : calls) pending->poll(now());
    standby->wait(wait);
  }
  void run(Micros span) {
    const Micros end = now() + span;
    while (now() < end) step(200);
  }
  void deliver(Client& c, const MadPacket& p) {
    for (auto& [port, pending] : calls)
      if (port == c.port && pending->handle(p, now())) return;
    if (method_of(p) != wire::method::report) return;
    c.reports.push_back(decoded(
        wire::decode_notice(std::span<const uint8_t>(p.data).subspan(wire::sa_data_offset, wire::notice_size))));
    MadPacket answer;
    answer.data = wire::make_response(p.data);
    answer.address = p.address;
    REQUIRE(c.port->send(answer).ok());
  }

  // One request from `c` to the SA at `to`, run until it ends.
  Result<sa::SaAnswer> call(Client& c, const MadAddress& to, sa::SaRequest req) {
    if (req.tid == 0) req.tid = next_tid++;
    sa::SaClientCall one([&c](const MadPacket& p) { REQUIRE(c.port->send(p).ok()); }, to, std::move(req));
    one.start(now());
    calls.emplace_back(c.port, &one);
    for (int i = 0; i < 100000 && !one.done(); ++i) step(1000);
    calls.clear();
    REQUIRE(one.done());
    run(5 * ms);  // the last ACK reaches the SA
    return one.result();
  }
  // The answer of a call that must succeed with status `status`.
  sa::SaAnswer answered(Client& c, const MadAddress& to, sa::SaRequest req, uint16_t status = 0) {
    auto a = call(c, to, std::move(req));
    INFO((a.ok() ? std::string() : a.status().message()));
    REQUIRE(a.ok());
    CHECK(a->status == status);
    return std::move(*a);
  }

  // One mirror read of the master, run until it ends.
  void read(const MadAddress& from) {
    mirror->start(from, now());
    for (int i = 0; i < 100000 && mirror->busy(); ++i) step(1000);
    REQUIRE_FALSE(mirror->busy());
    run(5 * ms);
  }
  void read() { read(b.sa()); }

  void subscribe(Client& c, const wire::InformInfo& ii, uint64_t sm_key = 0) {
    sa::SaRequest req;
    req.method = wire::method::set;
    req.attribute = wire::sa_attr::inform_info;
    req.sm_key = sm_key;
    req.data.assign(wire::inform_info_size, 0);
    wire::encode(ii, req.data);
    answered(c, b.sa(), std::move(req));
  }

  // On the master: clients 0-2 register ten services each; client 3 one in
  // a partition no port has, with the SM_Key. Subscriptions: client 0 to
  // trap 128, client 1 to trap 128 and to trap 64 about client 2, client 2
  // to every trap, client 3 (with the SM_Key) to security trap 256.
  Micros registered_at = 0;
  void populate() {
    for (size_t k = 0; k < 3; ++k)
      for (size_t i = 0; i < kServicesPerClient; ++i)
        answered(clients[k], b.sa(), service_request(wire::method::set, set_mask, service(k, i, clients[k].gid)));
    wire::ServiceRecord hidden = service(3, 0, clients[3].gid);
    hidden.service_id = kHiddenServiceId;
    hidden.service_p_key = kHiddenPKey;
    hidden.service_lease = wire::service_lease_infinite;
    answered(clients[3], b.sa(), service_request(wire::method::set, set_mask | c_pkey, hidden, test::kSaBenchSmKey));
    registered_at = now();

    subscribe(clients[0], slow_trap(wire::trap_number::link_state_change));
    subscribe(clients[1], slow_trap(wire::trap_number::link_state_change));
    wire::InformInfo about = slow_trap(wire::trap_number::gid_in_service);
    about.gid = clients[2].gid;
    about.resp_time_value = 19;
    subscribe(clients[1], about);
    subscribe(clients[2], slow_trap(wire::inform_all_trap_numbers));
    subscribe(clients[3], slow_trap(wire::trap_number::bad_m_key), test::kSaBenchSmKey);
    REQUIRE(b.agent->services().size() == kPlainServices + 1);
    REQUIRE(b.agent->subscriptions().size() == 5);
  }

  // The standby becomes master: a fresh agent at its port, with a snapshot
  // that names it the SM, and the mirror's copy.
  sa::SaImportResult take_over() {
    auto s = std::make_shared<sa::SaSnapshot>(*b.snapshot);
    s->sm_port = endport(*standby).ref;
    s->sm_lid = standby_lid;
    next_snapshot = s;
    sa::SaAgentOptions o;
    o.sm_key = test::kSaBenchSmKey;
    next = std::make_unique<sa::SaAgent>(
        [this](const MadPacket& p) {
          sent_by_next.push_back(p);
          REQUIRE(standby->send(p).ok());
        },
        o);
    next->set_snapshot(next_snapshot, now());
    auto r = mirror->apply_to(*next, now());
    REQUIRE(r.has_value());
    return *r;
  }
};

}  // namespace

TEST_CASE("mirror: one read copies every service and subscription of the master's SA, by RMPP", "[sa][mirror]") {
  MirrorBench m;
  m.populate();
  const uint64_t rmpp_before = m.b.agent->counters().rmpp_answers;
  const Micros started = m.now();
  m.read();

  CHECK(m.mirror->counters().reads_started == 1);
  CHECK(m.mirror->counters().reads_ok == 1);
  CHECK(m.mirror->counters().reads_failed == 0);
  CHECK(m.mirror->counters().services_held == kPlainServices + 1);
  CHECK(m.mirror->counters().subscriptions_held == 5);
  CHECK(m.mirror->last_error().ok());
  CHECK(m.stray == 0);
  // The three tables came as RMPP transfers; 31 records of 176 bytes are 28 segments.
  CHECK(m.b.agent->counters().rmpp_answers == rmpp_before + 3);
  CHECK(m.b.agent->rmpp_sessions().active() == 0);  // every segment ACKed
  CHECK(m.b.agent->counters().errors == 0);

  // The requests: three GetTables with the SM_Key and an empty mask, TIDs in the mirror's range.
  REQUIRE(m.sent_by_mirror.size() >= 2);
  std::set<uint16_t> attrs;
  for (const MadPacket& p : m.sent_by_mirror) {
    const uint32_t tid = static_cast<uint32_t>(tid_of(p));
    CHECK(tid >= 0x4D520000u);
    CHECK(tid <= 0x4D52FFFFu);
    if (method_of(p) != wire::method::get_table) continue;  // our ACKs of the segments
    if (wire::get_field(p.data, wire::rmpp_fields::flags) != 0) continue;
    attrs.insert(static_cast<uint16_t>(wire::get_field(p.data, wire::mad_fields::attribute_id)));
    CHECK(wire::get_field(p.data, wire::sa_fields::sm_key) == test::kSaBenchSmKey);
    CHECK(wire::get_field(p.data, wire::sa_fields::component_mask) == 0);
    CHECK(p.address.lid == m.b.sm_lid());
  }
  CHECK(attrs == std::set<uint16_t>{wire::sa_attr::service_record, wire::sa_attr::inform_info_record,
                                    wire::sa_attr::mc_member_record});

  const sa::SaMirrorCopy& copy = *m.mirror->copy();
  CHECK(copy.master.lid == m.b.sm_lid());
  CHECK(copy.read_at > started);
  CHECK(copy.read_at <= m.now());
  // Every service as registered: ServiceKey included (a trusted read), leases as granted.
  REQUIRE(copy.registrations.services.size() == kPlainServices + 1);
  for (size_t k = 0; k < 3; ++k)
    for (size_t i = 0; i < kServicesPerClient; ++i) {
      const wire::ServiceRecord want = service(k, i, m.clients[k].gid);
      auto it = std::find_if(copy.registrations.services.begin(), copy.registrations.services.end(),
                             [&](const wire::ServiceRecord& r) { return r.service_id == want.service_id; });
      REQUIRE(it != copy.registrations.services.end());
      CHECK(*it == want);
    }
  // ibsm's SA shows a trusted requester the service in a partition the
  // standby's port is not in; an untrusted one does not see it.
  CHECK(std::any_of(copy.registrations.services.begin(), copy.registrations.services.end(),
                    [](const wire::ServiceRecord& r) {
                      return r.service_id == kHiddenServiceId && r.service_p_key == kHiddenPKey;
                    }));
  auto untrusted = m.answered(m.clients[0], m.b.sa(), table_request(wire::sa_attr::service_record));
  CHECK(untrusted.record_count() == kPlainServices);

  // Every subscription with its subscriber, Enum, real QPN and RespTimeValue.
  const auto& subs = copy.registrations.subscriptions;
  REQUIRE(subs.size() == 5);
  auto of = [&](const Client& c) {
    std::vector<wire::InformInfoRecord> v;
    for (const auto& r : subs)
      if (r.subscriber_gid == c.gid) v.push_back(r);
    return v;
  };
  REQUIRE(of(m.clients[1]).size() == 2);
  CHECK(of(m.clients[1])[0].enum_ == 0);
  CHECK(of(m.clients[1])[1].enum_ == 1);
  CHECK(of(m.clients[1])[1].inform_info.gid == m.clients[2].gid);
  CHECK(of(m.clients[1])[1].inform_info.resp_time_value == 19);
  REQUIRE(of(m.clients[3]).size() == 1);
  CHECK(of(m.clients[3])[0].inform_info.trap_number == wire::trap_number::bad_m_key);
  for (const auto& r : subs) CHECK(r.inform_info.qpn == 1);  // an untrusted read would say 0
}

TEST_CASE("mirror: after apply_to the new master answers every service as the master did; only the owner deletes",
          "[sa][mirror]") {
  MirrorBench m;
  m.populate();
  m.read();
  const sa::SaImportResult r = m.take_over();
  CHECK(r.services == sa::ImportResult{kPlainServices + 1, 0});
  CHECK(r.subscriptions == sa::ImportResult{5, 0});
  CHECK_FALSE(r.subscriptions_deferred);
  CHECK(m.next->services().size() == kPlainServices + 1);

  // GetTable, trusted and not, answers the very bytes the master answers.
  for (uint64_t key : {uint64_t{0}, test::kSaBenchSmKey}) {
    INFO("sm_key " << key);
    auto old_table = m.answered(m.clients[1], m.b.sa(), table_request(wire::sa_attr::service_record, key));
    auto new_table = m.answered(m.clients[1], m.next_sa(), table_request(wire::sa_attr::service_record, key));
    CHECK(new_table.record_count() == (key == 0 ? kPlainServices : kPlainServices + 1));
    CHECK(new_table.data == old_table.data);
    auto old_subs = m.answered(m.clients[1], m.b.sa(), table_request(wire::sa_attr::inform_info_record, key));
    auto new_subs = m.answered(m.clients[1], m.next_sa(), table_request(wire::sa_attr::inform_info_record, key));
    CHECK(new_subs.record_count() == 5);
    CHECK(new_subs.data == old_subs.data);
  }
  // Get by ServiceID from a port that does not own it: the same fields, the key hidden.
  const wire::ServiceRecord want = service(1, 4, m.clients[1].gid);
  auto got = m.answered(m.clients[0], m.next_sa(), service_request(wire::method::get, c_id, want));
  REQUIRE(got.record_count() == 1);
  wire::ServiceRecord expected = want;
  expected.service_key = {};
  CHECK(services_of(got)[0] == expected);

  // The owner deletes its service; another port may not, without the SM_Key.
  const wire::ServiceRecord mine = service(0, 2, m.clients[0].gid);
  const wire::ServiceRecord theirs = service(0, 3, m.clients[0].gid);
  auto denied = m.answered(m.clients[1], m.next_sa(), service_request(wire::method::delete_, c_id | c_gid, theirs),
                           wire::sa_status::req_denied);
  CHECK(denied.record_count() == 0);
  auto deleted = m.answered(m.clients[0], m.next_sa(), service_request(wire::method::delete_, c_id | c_gid, mine));
  REQUIRE(deleted.record_count() == 1);
  CHECK(services_of(deleted)[0].name() == "svc-2");
  m.answered(m.clients[0], m.next_sa(), service_request(wire::method::get, c_id, mine), wire::sa_status::no_records);
  auto still = m.answered(m.clients[0], m.next_sa(), service_request(wire::method::get, c_id, theirs));
  CHECK(services_of(still)[0].name() == "svc-3");
  CHECK(m.next->services().size() == kPlainServices);
  // The owner may replace its record; the SM_Key may delete anyone's.
  wire::ServiceRecord renamed = theirs;
  renamed.set_name("svc-3b");
  m.answered(m.clients[0], m.next_sa(), service_request(wire::method::set, set_mask, renamed));
  m.answered(m.clients[1], m.next_sa(), service_request(wire::method::delete_, c_id | c_gid, renamed, test::kSaBenchSmKey));
  CHECK(m.next->services().size() == kPlainServices - 1);
}

TEST_CASE("mirror: an imported lease runs out, not earlier than on the master", "[sa][mirror]") {
  MirrorBench m;
  m.populate();
  m.b.h.sim().advance(5 * second);  // the takeover comes a while after the registrations
  m.read();
  const Micros taken_over = m.now();
  m.take_over();
  // 8 of the services have 20 s leases, 8 have 3600 s: each restarts at the takeover.
  REQUIRE(m.b.agent->services().next_expiry().has_value());
  REQUIRE(m.next->services().next_expiry().has_value());
  CHECK(*m.b.agent->services().next_expiry() <= m.registered_at + 20 * second);
  CHECK(*m.next->services().next_expiry() == taken_over + 20 * second);
  CHECK(*m.next->services().next_expiry() > *m.b.agent->services().next_expiry());

  const wire::ServiceRecord short_lease = service(0, 0, m.clients[0].gid);  // 20 s
  const wire::ServiceRecord long_lease = service(0, 1, m.clients[0].gid);   // 3600 s
  REQUIRE(short_lease.service_lease == 20);
  REQUIRE(long_lease.service_lease == 3600);

  // Past the master's end of the lease: gone there, still served here.
  m.b.h.sim().advance(m.registered_at + 21 * second - m.now());
  m.answered(m.clients[1], m.b.sa(), service_request(wire::method::get, c_id, short_lease),
             wire::sa_status::no_records);
  auto kept = m.answered(m.clients[1], m.next_sa(), service_request(wire::method::get, c_id, short_lease));
  CHECK(services_of(kept)[0].service_lease == 20);
  CHECK(m.next->services().size() == kPlainServices + 1);

  // Past the restarted lease: gone here too, the longer and infinite ones stay.
  m.b.h.sim().advance(taken_over + 20 * second + 1 * ms - m.now());
  m.next->poll(m.now());
  CHECK(m.next->services().size() == kPlainServices + 1 - 8);
  m.answered(m.clients[1], m.next_sa(), service_request(wire::method::get, c_id, short_lease),
             wire::sa_status::no_records);
  m.answered(m.clients[1], m.next_sa(), service_request(wire::method::get, c_id, long_lease));
  CHECK(*m.next->services().next_expiry() == taken_over + 3600 * second);
}

TEST_CASE("mirror: a trap published to the new master is reported to each subscriber the master had", "[sa][mirror]") {
  MirrorBench m;
  m.populate();
  m.read();
  m.take_over();

  // What each agent sends for one notice: (LID, QPN, trap) of every Report.
  using Sent = std::set<std::tuple<uint16_t, uint32_t, uint16_t>>;
  auto reports = [](const std::vector<MadPacket>& sent, size_t from) {
    Sent out;
    for (size_t i = from; i < sent.size(); ++i) {
      if (method_of(sent[i]) != wire::method::report) continue;
      const auto trap = static_cast<uint16_t>(wire::get_field(
          std::span<const uint8_t>(sent[i].data).subspan(wire::sa_data_offset), wire::notice_fields::trap_number));
      out.emplace(sent[i].address.lid.value, sent[i].address.qp, trap);
    }
    return out;
  };
  const Lid issuer = m.b.snapshot->endports.front().base_lid;
  for (uint16_t trap : {wire::trap_number::link_state_change, wire::trap_number::bad_m_key}) {
    INFO("trap " << trap);
    for (Client& c : m.clients) c.reports.clear();
    const size_t old_from = m.b.sent_by_agent.size(), new_from = m.sent_by_next.size();
    m.b.agent->publish(generic_notice(trap, issuer), m.now());
    m.next->publish(generic_notice(trap, issuer), m.now());
    m.run(50 * ms);
    const Sent by_old = reports(m.b.sent_by_agent, old_from);
    const Sent by_new = reports(m.sent_by_next, new_from);
    CHECK(by_new == by_old);
    if (trap == wire::trap_number::link_state_change) {
      // Clients 0 and 1 asked for 128, client 2 for everything; client 3's
      // subscription is to 256 only.
      CHECK(by_new == Sent{{m.clients[0].lid.value, 1, trap}, {m.clients[1].lid.value, 1, trap},
                           {m.clients[2].lid.value, 1, trap}});
    } else {
      // A security trap: only the trusted subscription, not client 2's wildcard.
      CHECK(by_new == Sent{{m.clients[3].lid.value, 1, trap}});
    }
    // Each subscriber got one Report from each SA, and answered both.
    for (size_t k = 0; k < 4; ++k) {
      const bool wants = trap == wire::trap_number::bad_m_key ? k == 3 : k < 3;
      CHECK(m.clients[k].reports.size() == (wants ? 2u : 0u));
      for (const wire::Notice& n : m.clients[k].reports) CHECK(n.trap_number == trap);
    }
  }
  CHECK(m.next->subscriptions().counters().acknowledged == 4);
  CHECK(m.next->subscriptions().counters().given_up == 0);

  // Trap 64 about client 2 (the SM's own notice): client 1's GID subscription and client 2's wildcard.
  const size_t new_from = m.sent_by_next.size();
  wire::Notice in_service = generic_notice(wire::trap_number::gid_in_service, m.standby_lid);
  in_service.type = wire::notice_type::subnet_management;
  in_service.producer_type = wire::producer_type::class_manager;
  sa::set_notice_details_gid(in_service, m.clients[2].gid);
  m.next->publish(in_service, m.now());
  m.run(50 * ms);
  CHECK(reports(m.sent_by_next, new_from) ==
        Sent{{m.clients[1].lid.value, 1, wire::trap_number::gid_in_service},
             {m.clients[2].lid.value, 1, wire::trap_number::gid_in_service}});
}

TEST_CASE("mirror: a later read follows the master; a service it deleted leaves the copy and the agent",
          "[sa][mirror]") {
  MirrorBench m;
  m.populate();
  m.read();
  m.take_over();
  REQUIRE(m.next->services().size() == kPlainServices + 1);
  const Micros first_read = m.mirror->copy()->read_at;

  // On the master: client 2 deletes one service and unsubscribes.
  const wire::ServiceRecord gone = service(2, 7, m.clients[2].gid);
  m.answered(m.clients[2], m.b.sa(), service_request(wire::method::delete_, c_id | c_gid, gone));
  wire::InformInfo unsub = slow_trap(wire::inform_all_trap_numbers);
  unsub.subscribe = 0;
  m.subscribe(m.clients[2], unsub);
  REQUIRE(m.b.agent->subscriptions().size() == 4);

  m.read();
  CHECK(m.mirror->counters().reads_ok == 2);
  CHECK(m.mirror->counters().services_held == kPlainServices);
  CHECK(m.mirror->counters().subscriptions_held == 4);
  const auto& copy = *m.mirror->copy();
  CHECK(copy.read_at > first_read);
  CHECK(std::none_of(copy.registrations.services.begin(), copy.registrations.services.end(),
                     [&](const wire::ServiceRecord& r) { return r.service_id == gone.service_id; }));
  CHECK(std::none_of(copy.registrations.subscriptions.begin(), copy.registrations.subscriptions.end(),
                     [&](const wire::InformInfoRecord& r) { return r.subscriber_gid == m.clients[2].gid; }));

  // The next import takes them from the agent too.
  auto r = m.mirror->apply_to(*m.next, m.now());
  REQUIRE(r);
  CHECK(r->services.installed == kPlainServices);
  CHECK(m.next->services().size() == kPlainServices);
  CHECK(m.next->subscriptions().size() == 4);
  m.answered(m.clients[0], m.next_sa(), service_request(wire::method::get, c_id, gone), wire::sa_status::no_records);
}

TEST_CASE("mirror: a failed read keeps the previous copy and is counted", "[sa][mirror]") {
  MirrorBench m;
  m.populate();
  m.read();
  REQUIRE(m.mirror->counters().reads_ok == 1);
  const sa::SaMirrorCopy before = *m.mirror->copy();

  SECTION("the master is frozen") {
    m.freeze_master();
    const Micros started = m.now();
    m.read();
    // Three attempts of 100 ms each, then the read gives up.
    CHECK(m.now() - started >= 300 * ms);
    CHECK(m.now() - started < 400 * ms);
  }
  SECTION("nobody is at the address") {
    m.read(sa::sa_address(Lid{0x3000}));
  }
  CHECK(m.mirror->counters().reads_started == 2);
  CHECK(m.mirror->counters().reads_ok == 1);
  CHECK(m.mirror->counters().reads_failed == 1);
  CHECK(m.mirror->last_error().code() == StatusCode::timeout);
  CHECK(m.mirror->counters().services_held == kPlainServices + 1);
  REQUIRE(m.mirror->copy().has_value());
  CHECK(m.mirror->copy()->registrations == before.registrations);
  CHECK(m.mirror->copy()->read_at == before.read_at);
  CHECK(m.mirror->copy()->master.lid == m.b.sm_lid());
  // The copy still installs.
  auto r = m.take_over();
  CHECK(r.services.installed == kPlainServices + 1);
}

TEST_CASE("mirror: importing the same copy twice changes nothing", "[sa][mirror]") {
  MirrorBench m;
  m.populate();
  m.read();
  m.take_over();
  auto tables = [&] {
    auto s = m.answered(m.clients[0], m.next_sa(), table_request(wire::sa_attr::service_record, test::kSaBenchSmKey));
    auto i = m.answered(m.clients[0], m.next_sa(), table_request(wire::sa_attr::inform_info_record, test::kSaBenchSmKey));
    return std::make_pair(s.data, i.data);
  };
  const auto first = tables();
  const auto expiry = m.next->services().next_expiry();
  REQUIRE(expiry.has_value());

  m.b.h.sim().advance(7 * second);
  auto r = m.mirror->apply_to(*m.next, m.now());
  REQUIRE(r);
  CHECK(r->services == sa::ImportResult{kPlainServices + 1, 0});
  CHECK(r->subscriptions == sa::ImportResult{5, 0});
  CHECK(tables() == first);
  CHECK(m.next->services().next_expiry() == expiry);  // the leases did not restart
  CHECK(m.next->services().size() == kPlainServices + 1);
  CHECK(m.next->subscriptions().size() == 5);

  // And the trusted subscription is still trusted: trap 256 reaches client 3.
  m.next->publish(generic_notice(wire::trap_number::bad_m_key, m.standby_lid), m.now());
  m.run(50 * ms);
  CHECK(m.clients[3].reports.size() == 1);
}

TEST_CASE("mirror: handle takes only responses under its own TIDs; start goes on or moves to a new master",
          "[sa][mirror]") {
  MirrorBench m;
  // Not the mirror's: a request, a response under another TID.
  MadPacket request;
  request.data = test::sa_request_mad(wire::method::get_table, wire::sa_attr::service_record, 0, 0x4D520000);
  CHECK_FALSE(m.mirror->handle(request, m.now()));
  MadPacket other;
  other.data =
      wire::make_response(test::sa_request_mad(wire::method::get_table, wire::sa_attr::service_record, 0, 0x77));
  CHECK_FALSE(m.mirror->handle(other, m.now()));
  MadPacket ours;
  ours.data =
      wire::make_response(test::sa_request_mad(wire::method::get_table, wire::sa_attr::service_record, 0, 0x4D52FFFF));
  CHECK(m.mirror->handle(ours, m.now()));  // ours even with no read under way: no answer for the agent

  m.mirror->start(m.b.sa(), m.now());
  CHECK(m.mirror->busy());
  REQUIRE(m.mirror->next_deadline().has_value());
  CHECK(*m.mirror->next_deadline() == m.now() + 100 * ms);
  m.mirror->start(m.b.sa(), m.now());  // the same master: the read goes on
  CHECK(m.mirror->counters().reads_started == 1);
  m.mirror->start(sa::sa_address(m.standby_lid), m.now());  // another: abandoned
  CHECK(m.mirror->counters().reads_abandoned == 1);
  CHECK(m.mirror->counters().reads_started == 2);
  m.read(sa::sa_address(m.standby_lid));  // nobody serves there yet
  CHECK(m.mirror->counters().reads_failed == 1);
  CHECK_FALSE(m.mirror->copy().has_value());
  // No copy: apply_to leaves the agent alone.
  sa::SaAgent agent([](const MadPacket&) {});
  CHECK_FALSE(m.mirror->apply_to(agent, m.now()).has_value());
  m.read();
  CHECK(m.mirror->counters().reads_ok == 1);
  CHECK(m.mirror->counters().services_held == 0);
  CHECK(m.mirror->copy()->registrations.services.empty());
}

namespace {

struct ImportFixture {
  sa::SaSnapshot s = test::offline_snapshot(test::two_port_hca_fabric());
  std::vector<const sa::EndPort*> cas;  // ascending GUID
  ImportFixture() {
    for (const sa::EndPort& e : s.endports)
      if (!s.fabric.node(e.ref.node).is_switch()) cas.push_back(&e);
    REQUIRE(cas.size() == 4);
  }
  wire::Gid gid(size_t i) const { return sa::port_gid(s, *cas[i]); }
};

wire::InformInfoRecord record(const wire::Gid& gid, uint16_t enum_, uint16_t trap) {
  wire::InformInfoRecord r;
  r.subscriber_gid = gid;
  r.enum_ = enum_;
  r.inform_info = slow_trap(trap);
  return r;
}

std::vector<wire::InformInfoRecord> listed(sa::Subscriptions& subs, const sa::SaSnapshot& s) {
  auto e = test::encoded_query(wire::method::get_table, wire::sa_attr::inform_info_record, 0, wire::InformInfoRecord{},
                               wire::sa_record_size::inform_info, Lid{}, true);
  auto r = subs.handle(s, e.query, 0);
  REQUIRE(r.status == 0);
  std::vector<wire::InformInfoRecord> out;
  for (size_t i = 0; i < r.count; ++i) out.push_back(decoded(wire::decode_inform_info_record(r.record(i))));
  return out;
}

}  // namespace

TEST_CASE("subscription import: Enums kept or renumbered, strangers and duplicates dropped, the rest replaced",
          "[sa][mirror][subscriptions]") {
  ImportFixture f;
  sa::Subscriptions subs;
  // OpenSM numbers every subscription 0; one record names Enum 1 itself.
  std::vector<wire::InformInfoRecord> in = {
      record(f.gid(1), 0, 128), record(f.gid(1), 0, 129), record(f.gid(1), 1, 130), record(f.gid(1), 0, 131),
      record(f.gid(0), 0, 128),
      record(f.gid(0), 0, 128),                                          // a duplicate
      record(wire::Gid::from_parts(f.s.subnet_prefix, 0xDEAD), 0, 128),  // no such port
  };
  CHECK(subs.import(in, f.s) == sa::ImportResult{5, 2});
  auto got = listed(subs, f.s);
  REQUIRE(got.size() == 5);
  std::vector<std::tuple<wire::Gid, uint16_t, uint16_t>> seen;
  for (const auto& r : got) seen.emplace_back(r.subscriber_gid, r.enum_, r.inform_info.trap_number);
  // Ordered by GID then Enum: 128 keeps 0, 130 its own 1, 129 and 131 the lowest free.
  const bool gid0_first = f.gid(0).raw < f.gid(1).raw;
  std::vector<std::tuple<wire::Gid, uint16_t, uint16_t>> g1 = {
      {f.gid(1), 0, 128}, {f.gid(1), 1, 130}, {f.gid(1), 2, 129}, {f.gid(1), 3, 131}};
  std::vector<std::tuple<wire::Gid, uint16_t, uint16_t>> want;
  if (gid0_first) want.emplace_back(f.gid(0), 0, 128);
  want.insert(want.end(), g1.begin(), g1.end());
  if (!gid0_first) want.emplace_back(f.gid(0), 0, 128);
  CHECK(seen == want);
  // Reports of an imported subscription go to its port's base LID.
  wire::Notice n = generic_notice(131, f.cas[3]->base_lid);
  subs.publish(n, 0);
  auto due = subs.take_due(0);
  REQUIRE(due.size() == 1);
  CHECK(due[0].address.lid == f.cas[1]->base_lid);
  CHECK(due[0].address.qp == 1);

  // A second import replaces the first wholesale; the same table twice changes nothing.
  std::vector<wire::InformInfoRecord> again = {record(f.gid(2), 0, 128)};
  CHECK(subs.import(again, f.s) == sa::ImportResult{1, 0});
  CHECK(subs.import(again, f.s) == sa::ImportResult{1, 0});
  REQUIRE(listed(subs, f.s).size() == 1);
  CHECK(listed(subs, f.s)[0].subscriber_gid == f.gid(2));
  CHECK(subs.pending_reports() == 1);  // the Report under way stays
}

TEST_CASE("service import: replaces what was held, leases start at the import, the same record keeps its end",
          "[sa][mirror][services]") {
  ImportFixture f;
  sa::ServiceRegistry reg;
  auto svc = [&](uint64_t id, uint32_t lease) {
    wire::ServiceRecord r;
    r.service_id = id;
    r.service_gid = f.gid(0);
    r.service_p_key = wire::default_p_key;
    r.service_lease = lease;
    return r;
  };
  // Registered here before the import: goes.
  auto e = test::encoded_query(wire::method::set, wire::sa_attr::service_record, c_id | c_gid | c_lease, svc(1, 10),
                               wire::sa_record_size::service, f.cas[0]->base_lid);
  REQUIRE(reg.handle(f.s, e.query, 0).status == 0);

  CHECK(reg.import({svc(2, 10), svc(3, wire::service_lease_infinite), svc(2, 99)}, 5 * second) ==
        sa::ImportResult{2, 1});
  CHECK(reg.size() == 2);
  CHECK(reg.next_expiry() == 15 * second);
  // The same records later: nothing changes.
  CHECK(reg.import({svc(2, 10), svc(3, wire::service_lease_infinite)}, 8 * second) == sa::ImportResult{2, 0});
  CHECK(reg.next_expiry() == 15 * second);
  // A changed lease is a changed record: it restarts.
  CHECK(reg.import({svc(2, 20), svc(3, wire::service_lease_infinite)}, 9 * second) == sa::ImportResult{2, 0});
  CHECK(reg.next_expiry() == 29 * second);
  reg.expire(29 * second);
  CHECK(reg.size() == 1);
  // A Set here makes a record the registry's own again: an import of the same bytes restarts its lease.
  auto set = test::encoded_query(wire::method::set, wire::sa_attr::service_record, c_id | c_gid | c_lease, svc(4, 10),
                                 wire::sa_record_size::service, f.cas[0]->base_lid);
  REQUIRE(reg.handle(f.s, set.query, 30 * second).status == 0);
  CHECK(reg.import({svc(4, 10)}, 35 * second) == sa::ImportResult{1, 0});
  CHECK(reg.next_expiry() == 45 * second);

  // Bounded like a Set.
  sa::ServiceRegistry small({.max_records = 2});
  CHECK(small.import({svc(5, 1), svc(6, 1), svc(7, 1)}, 0) == sa::ImportResult{2, 1});
}

TEST_CASE("service restore from the cache: leases end when what was left runs out; a mirror read later restarts them",
          "[sa][mirror][services][persist]") {
  ImportFixture f;
  sa::ServiceRegistry reg;
  wire::ServiceRecord r;
  r.service_id = 8;
  r.service_gid = f.gid(0);
  r.service_p_key = wire::default_p_key;
  r.service_lease = 60;
  CHECK(reg.import({r}, 10 * second, {4 * second}) == sa::ImportResult{1, 0});
  CHECK(reg.next_expiry() == 14 * second);
  REQUIRE(reg.held(12 * second).size() == 1);
  CHECK(reg.held(12 * second)[0].lease_left == 2 * second);
  // A takeover's import of the same bytes: the master's lease, whole, from now.
  CHECK(reg.import({r}, 12 * second) == sa::ImportResult{1, 0});
  CHECK(reg.next_expiry() == 72 * second);
}

TEST_CASE("agent import before the first snapshot: services at once, subscriptions with the snapshot",
          "[sa][mirror]") {
  ImportFixture f;
  sa::SaAgent agent([](const MadPacket&) {});
  wire::ServiceRecord r;
  r.service_id = 7;
  r.service_gid = f.gid(3);
  r.service_p_key = wire::default_p_key;
  r.service_lease = wire::service_lease_infinite;
  sa::SaRegistrations regs;
  regs.services = {r};
  regs.subscriptions = {record(f.gid(2), 0, 128), record(f.gid(3), 4, 65)};
  auto result = agent.import(regs, 0);
  CHECK(result.services == sa::ImportResult{1, 0});
  CHECK(result.subscriptions_deferred);
  CHECK(agent.services().size() == 1);
  CHECK(agent.subscriptions().size() == 0);
  agent.set_snapshot(std::make_shared<sa::SaSnapshot>(f.s), 0);
  CHECK(agent.subscriptions().size() == 2);
  // Importing again with a snapshot: at once.
  regs.subscriptions.pop_back();
  auto again = agent.import(regs, 0);
  CHECK_FALSE(again.subscriptions_deferred);
  CHECK(again.subscriptions == sa::ImportResult{1, 0});
  CHECK(agent.subscriptions().size() == 1);
}

namespace {

namespace mcf = wire::mc_member_record_fields;
constexpr uint64_t mc_bit(const wire::Field& f) { return wire::component_bit(wire::mc_member_record_components, f); }
constexpr uint64_t mc_join = mc_bit(mcf::mgid) | mc_bit(mcf::port_gid) | mc_bit(mcf::join_state);
constexpr uint64_t mc_create =
    mc_join | mc_bit(mcf::q_key) | mc_bit(mcf::tclass) | mc_bit(mcf::p_key) | mc_bit(mcf::flow_label) | mc_bit(mcf::sl);

wire::Gid app_group(uint8_t n) { return wire::Gid{{0xff, 0x15, 0x12, 0x34, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n}}; }

sa::SaRequest mc_request(uint8_t method, uint64_t mask, const wire::Gid& mgid, const wire::Gid& port, uint8_t join) {
  wire::McMemberRecord t;
  t.mgid = mgid;
  t.port_gid = port;
  t.join_state = join;
  t.q_key = 0x22;
  t.p_key = wire::default_p_key;
  return test::sa_request(method, wire::sa_attr::mc_member_record, mask, t, wire::sa_record_size::mc_member);
}

}  // namespace

TEST_CASE("mirror: multicast groups survive a takeover with their MLIDs and members", "[sa][mirror][multicast]") {
  MirrorBench m;
  namespace js = wire::mc_join_state;
  auto& c = m.clients;
  const MadAddress sa = m.b.sa();
  m.answered(c[0], sa, mc_request(wire::method::set, mc_create, app_group(1), c[0].gid, js::full_member));
  m.answered(c[1], sa, mc_request(wire::method::set, mc_join, app_group(1), c[1].gid, js::non_member));
  m.answered(c[2], sa, mc_request(wire::method::set, mc_create, app_group(2), c[2].gid, js::full_member));
  m.answered(c[3], sa,
             mc_request(wire::method::set, mc_create, app_group(3), c[3].gid,
                        js::full_member | js::send_only_full_member));
  m.answered(c[2], sa, mc_request(wire::method::delete_, mc_join, app_group(2), c[2].gid, js::full_member));
  const wire::Gid broadcast{{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}};
  m.answered(c[1], sa, mc_request(wire::method::set, mc_join, broadcast, c[1].gid, js::send_only_non_member));
  const sa::McGroups& before = m.b.agent->multicast();
  REQUIRE(before.size() == 3);  // broadcast 0xC000, group 1 0xC001, group 3 0xC003 (0xC002 freed)
  REQUIRE(before.find(app_group(3))->properties.mlid == Lid{0xC003});

  m.read();
  CHECK(m.mirror->counters().multicast_members_held == 4);
  const sa::SaImportResult r = m.take_over();
  CHECK(r.multicast == sa::ImportResult{4, 0});
  CHECK_FALSE(r.multicast_deferred);
  const sa::McGroups& after = m.next->multicast();
  REQUIRE(after.size() == 3);
  for (const auto& [mgid, g] : before.groups()) {
    const sa::McGroup* h = after.find(wire::Gid{mgid});
    REQUIRE(h != nullptr);
    CHECK(h->properties == g.properties);
    CHECK(h->predefined == g.predefined);
    REQUIRE(h->members.size() == g.members.size());
    for (const auto& [guid, mem] : g.members) {
      REQUIRE(h->members.count(guid) == 1);
      CHECK(h->members.at(guid).join_state == mem.join_state);
      CHECK(h->members.at(guid).port == mem.port);
    }
    CHECK(m.next->multicast().members(g.properties.mlid) == before.members(g.properties.mlid));
  }
  // The new master goes on from there: the owner leaves, a new group takes the free 0xC002.
  const MadAddress next = m.next_sa();
  m.answered(c[3], next, mc_request(wire::method::delete_, mc_join, app_group(3), c[3].gid, js::full_member));
  CHECK(after.find(app_group(3))->members.at(c[3].gid.interface_id()).join_state == js::send_only_full_member);
  auto created = m.answered(c[2], next, mc_request(wire::method::set, mc_create, app_group(4), c[2].gid, js::full_member));
  CHECK(decoded(wire::decode_mc_member_record(created.record(0))).mlid == Lid{0xC002});
  // Another port may not change a member that joined by itself.
  m.answered(c[0], next, mc_request(wire::method::delete_, mc_join, app_group(1), c[1].gid, js::non_member),
             wire::sa_status::req_invalid);
}
