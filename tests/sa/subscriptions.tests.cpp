// InformInfo subscriptions and Report forwarding: subscribe, unsubscribe and
// the checks on both; InformInfoRecord listings; which notices reach which
// subscriber; the Report MAD's bytes; retries, give-up and ReportResponse;
// prune when a port leaves; and the SM's own traps 64/65 between snapshots.
#include "sa/subscriptions.h"

#include <algorithm>
#include <sstream>
#include <string_view>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/sa/inform_info_record.h"
#include "mad/wire/sa_header.h"
#include "sa/notices.h"
#include "sa/partition_access.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::decoded;
using test::must;

namespace {

using test::ms;
using test::tid_of;

// The two-switch fabric of sa_fixtures.h without "Hca2".
Fabric fabric_without_hca2() {
  std::istringstream net(R"(
Switch 8 "Switch1"
[1] "Hca1"[1]
[2] "Hca1"[2]
[3] "Switch2"[3]
[5] "Switch2"[5]

Switch 8 "Switch2"
[3] "Switch1"[3]
[5] "Switch1"[5]

Hca 2 "Hca1"
[1] "Switch1"[1]
[2] "Switch1"[2]
)");
  return must(read_netfile(net, "without-hca2"));
}

struct SubscriptionFixture {
  sa::SaSnapshot s = test::offline_snapshot(test::two_port_hca_fabric());
  std::vector<const sa::EndPort*> cas;  // CA ports, ascending GUID: Hca1 1, 2, Hca2 1, 2
  SubscriptionFixture() {
    for (const sa::EndPort& e : s.endports)
      if (!s.fabric.node(e.ref.node).is_switch()) cas.push_back(&e);
    REQUIRE(cas.size() == 4);
  }
  wire::Gid gid(size_t i) const { return sa::port_gid(s, *cas[i]); }
  Lid lid(size_t i) const { return cas[i]->base_lid; }
};

using test::generic_trap;

// A Set from `requester`'s QP `qp` (1: the GSI).
sa::SaQueryResult inform(sa::Subscriptions& subs, const sa::SaSnapshot& s, const wire::InformInfo& ii, Lid requester,
                         bool trusted = false, uint32_t qp = 1) {
  auto e = test::encoded_query(wire::method::set, wire::sa_attr::inform_info, 0, ii, wire::inform_info_size, requester,
                               trusted);
  e.query.requester_qp = qp;
  return subs.handle(s, e.query, 0);
}

sa::SaQueryResult records(sa::Subscriptions& subs, const sa::SaSnapshot& s, uint8_t method, uint64_t mask,
                          const wire::InformInfoRecord& tmpl, Lid requester, bool trusted) {
  auto e = test::encoded_query(method, wire::sa_attr::inform_info_record, mask, tmpl, wire::sa_record_size::inform_info,
                               requester, trusted);
  return subs.handle(s, e.query, 0);
}

wire::InformInfo echoed(const sa::SaQueryResult& r) {
  REQUIRE(r.count == 1);
  CHECK(r.record_size == wire::inform_info_size);
  return decoded(wire::decode_inform_info(r.record(0)));
}

wire::Notice notice_about(uint16_t trap, const wire::Gid& subject, Lid issuer) {
  wire::Notice n;
  n.type = wire::notice_type::subnet_management;
  n.producer_type = wire::producer_type::class_manager;
  n.trap_number = trap;
  n.issuer_lid = issuer;
  sa::set_notice_details_gid(n, subject);
  return n;
}

MadPacket report_response(uint64_t tid) {
  wire::SaMad m;
  m.header.method = wire::method::report_resp;
  m.header.tid = tid;
  m.header.attr_id = wire::attr::notice;
  MadPacket p;
  wire::encode(m, p.data);
  return p;
}


// The InformInfoRecord ComponentMask bit of the component named `name`.
uint64_t record_bit(std::string_view name) {
  for (const wire::Component& c : wire::inform_info_record_components)
    if (c.field.name == name) return 1ULL << c.bit;
  FAIL("no component " << name);
  return 0;
}

std::vector<uint16_t> sorted(std::vector<uint16_t> v) {
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("subscribe, resubscribe and unsubscribe", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs;
  auto t64 = generic_trap(wire::trap_number::gid_in_service);
  auto ok = inform(subs, f.s, t64, f.lid(0));
  REQUIRE(ok.status == 0);
  CHECK(echoed(ok) == t64);
  CHECK(subs.size() == 1);
  // The same subscription again replaces it; another trap adds one.
  REQUIRE(inform(subs, f.s, t64, f.lid(0)).status == 0);
  CHECK(subs.size() == 1);
  REQUIRE(inform(subs, f.s, generic_trap(wire::trap_number::gid_out_of_service), f.lid(0)).status == 0);
  REQUIRE(inform(subs, f.s, t64, f.lid(2)).status == 0);  // another subscriber
  CHECK(subs.size() == 3);

  // Unsubscribe names the subscription by its fields; another port cannot.
  auto off = t64;
  off.subscribe = 0;
  REQUIRE(inform(subs, f.s, off, f.lid(0)).status == 0);
  CHECK(subs.size() == 2);
  auto again = inform(subs, f.s, off, f.lid(0));
  CHECK(again.status == wire::sa_status::req_invalid);
  CHECK(echoed(again).subscribe == 0);
  auto other = off;
  other.trap_number = wire::trap_number::link_state_change;
  CHECK(inform(subs, f.s, other, f.lid(2)).status == wire::sa_status::req_invalid);
  CHECK(subs.size() == 2);
}

TEST_CASE("osmtest -f v's subscription: every field zero, from the GSI, unsubscribed with QPN 1", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs;
  wire::InformInfo zero;  // GID 0, LIDRangeBegin 0, vendor-specific type 0, trap 0, QPN 0
  zero.is_generic = 0;
  zero.subscribe = 1;
  auto on = inform(subs, f.s, zero, f.lid(0));
  REQUIRE(on.status == 0);
  CHECK(echoed(on).qpn == 1);  // the QP it came from
  CHECK(subs.size() == 1);
  // LIDRangeBegin 0 holds no port: no notice with an issuer matches it.
  subs.publish(notice_about(65, f.gid(1), f.s.sm_lid), 0);
  CHECK(subs.take_due(0).empty());
  auto off = zero;
  off.subscribe = 0;
  CHECK(inform(subs, f.s, off, f.lid(0)).status == wire::sa_status::req_invalid);  // QPN 0 names none
  off.qpn = 1;
  CHECK(inform(subs, f.s, off, f.lid(0)).status == 0);
  CHECK(subs.size() == 0);
}

TEST_CASE("bad subscriptions are refused with the Subscribe bit cleared", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs(sa::SubscriptionOptions{.max_subscriptions = 3});
  auto refused = [&](wire::InformInfo ii, uint16_t status, Lid from = Lid{}, bool trusted = false) {
    auto r = inform(subs, f.s, ii, from.value ? from : f.lid(0), trusted);
    CHECK(r.status == status);
    if (r.count == 1) CHECK(echoed(r).subscribe == 0);
  };
  const auto base = generic_trap(wire::inform_all_trap_numbers);
  auto ii = base;
  ii.gid = wire::Gid::from_parts(f.s.subnet_prefix, 0x4242);  // no such port
  refused(ii, wire::sa_status::req_invalid);
  ii = base;
  ii.lid_range_begin = Lid{0xC000};  // multicast
  refused(ii, wire::sa_status::req_invalid);
  ii.lid_range_begin = Lid{5};
  ii.lid_range_end = Lid{4};
  refused(ii, wire::sa_status::req_invalid);
  ii = base;
  ii.type = 5;
  refused(ii, wire::sa_status::req_invalid);
  ii = base;
  ii.producer_type = 7;
  refused(ii, wire::sa_status::req_invalid);
  ii = base;
  ii.subscribe = 2;
  refused(ii, wire::sa_status::req_invalid);
  ii = base;
  ii.is_generic = 3;
  refused(ii, wire::sa_status::req_invalid);
  refused(base, wire::sa_status::req_invalid, Lid{999});  // the requester is no port of the subnet
  ii = base;
  ii.trap_number = wire::trap_number::bad_p_key;  // a security trap: SM_Key holders only
  refused(ii, wire::sa_status::req_denied);
  CHECK(subs.size() == 0);

  REQUIRE(inform(subs, f.s, ii, f.lid(0), true).status == 0);
  ii = base;
  ii.gid = f.gid(3);
  REQUIRE(inform(subs, f.s, ii, f.lid(0)).status == 0);
  ii = base;
  ii.lid_range_begin = Lid{1};
  ii.lid_range_end = Lid{3};
  ii.is_generic = 0;
  ii.set_vendor_id(0x2C9);
  REQUIRE(inform(subs, f.s, ii, f.lid(0)).status == 0);
  CHECK(subs.size() == 3);
  refused(generic_trap(wire::trap_number::link_state_change), wire::sa_status::no_resources);
}

TEST_CASE("InformInfoRecords list subscriptions by subscriber and Enum", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs;
  auto a = generic_trap(wire::trap_number::gid_in_service);
  a.qpn = 0x1234;  // the QP the Set comes from, below
  auto b = generic_trap(wire::trap_number::gid_out_of_service);
  REQUIRE(inform(subs, f.s, a, f.lid(2), false, 0x1234).status == 0);
  REQUIRE(inform(subs, f.s, b, f.lid(2)).status == 0);
  REQUIRE(inform(subs, f.s, b, f.lid(0)).status == 0);

  auto all = records(subs, f.s, wire::method::get_table, 0, {}, f.lid(1), true);
  REQUIRE(all.status == 0);
  REQUIRE(all.count == 3);
  CHECK(all.attr_offset == 8);
  std::vector<wire::InformInfoRecord> got;
  for (size_t i = 0; i < all.count; ++i) got.push_back(decoded(wire::decode_inform_info_record(all.record(i))));
  // SubscriberGID order, then Enum: Hca1 port 1's one, then Hca2 port 1's two.
  CHECK(got[0].subscriber_gid == f.gid(0));
  CHECK(got[0].enum_ == 0);
  CHECK(got[1].subscriber_gid == f.gid(2));
  CHECK(got[1].enum_ == 0);
  CHECK(got[1].inform_info == a);  // trusted: the real QPN
  CHECK(got[2].subscriber_gid == f.gid(2));
  CHECK(got[2].enum_ == 1);

  // Untrusted: QPN reads 0, and matching a real QPN finds nothing.
  auto untrusted = records(subs, f.s, wire::method::get, 0b11, got[1], f.lid(1), false);
  REQUIRE(untrusted.status == 0);
  CHECK(decoded(wire::decode_inform_info_record(untrusted.record(0))).inform_info.qpn == 0);
  const uint64_t qpn_bit = record_bit("QPN");
  CHECK(qpn_bit == 1ULL << 11);  // IBA 15.2.5.12: after SubscriberGID, Enum, reserved and 8 InformInfo rows
  CHECK(records(subs, f.s, wire::method::get_table, qpn_bit, got[1], f.lid(1), false).count == 0);
  CHECK(records(subs, f.s, wire::method::get_table, qpn_bit, got[1], f.lid(1), true).count == 1);

  // By SubscriberGID (bit 0), by Enum (bit 1), by TrapNumber.
  wire::InformInfoRecord t;
  t.subscriber_gid = f.gid(2);
  CHECK(records(subs, f.s, wire::method::get_table, 0b01, t, f.lid(1), true).count == 2);
  t.enum_ = 1;
  CHECK(records(subs, f.s, wire::method::get_table, 0b11, t, f.lid(1), true).count == 1);
  CHECK(records(subs, f.s, wire::method::get, 0b01, t, f.lid(1), true).status == wire::sa_status::too_many_records);
  t.inform_info.trap_number = wire::trap_number::gid_out_of_service;
  CHECK(records(subs, f.s, wire::method::get_table, record_bit("TrapNumber"), t, f.lid(1), true).count == 2);
  CHECK(records(subs, f.s, wire::method::get_table, 1ULL << 40, t, f.lid(1), true).status ==
        wire::sa_status::req_invalid);
  // An unknown untrusted requester sees nothing.
  CHECK(records(subs, f.s, wire::method::get_table, 0, {}, Lid{999}, false).count == 0);
}

TEST_CASE("a notice is reported to the subscriptions it matches", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs;
  const Lid sm = f.s.sm_lid;
  // 0: every trap 64; 1: trap 65 about Hca2 port 1; 2: vendor notices; 3:
  // link state changes from LIDs lid(3)..lid(3); 4: everything, untrusted.
  REQUIRE(inform(subs, f.s, generic_trap(wire::trap_number::gid_in_service), f.lid(0)).status == 0);
  auto about = generic_trap(wire::trap_number::gid_out_of_service);
  about.gid = f.gid(2);
  REQUIRE(inform(subs, f.s, about, f.lid(1)).status == 0);
  auto vendor = generic_trap(wire::inform_all_trap_numbers);
  vendor.is_generic = 0;
  vendor.set_vendor_id(0x2C9);
  REQUIRE(inform(subs, f.s, vendor, f.lid(2)).status == 0);
  auto link = generic_trap(wire::trap_number::link_state_change);
  link.lid_range_begin = f.lid(3);
  link.lid_range_end = Lid{0};
  REQUIRE(inform(subs, f.s, link, f.lid(3)).status == 0);
  auto everything = generic_trap(wire::inform_all_trap_numbers);
  everything.resp_time_value = 0;
  REQUIRE(inform(subs, f.s, everything, f.lid(0)).status == 0);  // Hca1 port 1 again: a second subscription

  auto destinations = [&](const wire::Notice& n) {
    subs.publish(n, 0);
    std::vector<uint16_t> lids;
    for (const MadPacket& p : subs.take_due(0)) {
      lids.push_back(p.address.lid.value);
      subs.on_report_response(report_response(tid_of(p)));
    }
    return sorted(lids);
  };
  using V = std::vector<uint16_t>;
  CHECK(destinations(notice_about(64, f.gid(3), sm)) == V{f.lid(0).value, f.lid(0).value});
  CHECK(destinations(notice_about(65, f.gid(2), sm)) == sorted({f.lid(0).value, f.lid(1).value}));
  CHECK(destinations(notice_about(65, f.gid(3), sm)) == V{f.lid(0).value});

  wire::Notice v;
  v.is_generic = false;
  v.producer_type = 0x2C9;
  v.trap_number = 7;
  v.issuer_lid = f.lid(1);
  CHECK(destinations(v) == V{f.lid(2).value});
  v.producer_type = 0x1234;
  CHECK(destinations(v).empty());

  wire::Notice l;
  l.type = wire::notice_type::urgent;
  l.producer_type = wire::producer_type::switch_;
  l.trap_number = wire::trap_number::link_state_change;
  l.issuer_lid = f.lid(3);
  CHECK(destinations(l) == sorted({f.lid(0).value, f.lid(3).value}));
  l.issuer_lid = f.lid(2);
  CHECK(destinations(l) == V{f.lid(0).value});

  // A security trap reaches only subscriptions made with the SM_Key.
  wire::Notice sec = l;
  sec.type = wire::notice_type::security;
  sec.trap_number = wire::trap_number::bad_q_key;
  CHECK(destinations(sec).empty());
  auto trusted = generic_trap(wire::inform_all_trap_numbers);
  trusted.qpn = 7;
  REQUIRE(inform(subs, f.s, trusted, f.lid(1), true).status == 0);
  CHECK(destinations(sec) == V{f.lid(1).value});
  CHECK(subs.counters().sent == subs.counters().acknowledged);
  CHECK(subs.counters().sent == 10);
}

TEST_CASE("a Report carries the notice to the subscriber's LID and QP", "[sa][subscriptions]") {
  // The QP the subscriber sent its Set from (OpenSM keeps that as the
  // subscription's QPN; osmtest -f v relies on it).
  SubscriptionFixture f;
  sa::Subscriptions subs;
  auto ii = generic_trap(wire::trap_number::gid_out_of_service);
  ii.qpn = 0x1234;  // what the record says is not where the Reports go
  REQUIRE(inform(subs, f.s, ii, f.lid(2), false, 0x4711).status == 0);
  auto n = notice_about(65, f.gid(1), f.s.sm_lid);
  n.issuer_gid = wire::Gid::from_parts(f.s.subnet_prefix, 0x99);
  subs.publish(n, 0);
  auto first = subs.take_due(0);
  subs.publish(n, 0);
  auto second = subs.take_due(0);
  REQUIRE(first.size() == 1);
  REQUIRE(second.size() == 1);

  const MadPacket& p = first[0];
  auto mad = decoded(wire::parse_sa_mad(p.data));
  CHECK(mad.header.mgmt_class == wire::mgmt_class::subn_adm);
  CHECK(mad.header.class_version == 2);
  CHECK(mad.header.method == wire::method::report);
  CHECK(mad.header.attr_id == wire::attr::notice);
  CHECK(mad.header.status == 0);
  CHECK(decoded(wire::decode_notice(std::span<const uint8_t>(mad.data).first(wire::notice_size))) == n);
  CHECK(sa::notice_details_gid(n) == f.gid(1));
  CHECK(p.address.lid == f.lid(2));
  CHECK(p.address.qp == 0x4711);
  CHECK(p.address.qkey == 0x80010000u);
  CHECK(p.response_timeout_ms > 0);
  CHECK(tid_of(second[0]) != tid_of(p));  // every Report its own TID
}

TEST_CASE("Reports are retried on the subscriber's response time and then given up", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs;  // 3 retries, 200 ms floor
  auto slow = generic_trap(wire::trap_number::gid_in_service);
  slow.resp_time_value = 18;  // 4.096 us * 2^18 = 1.073741824 s
  slow.qpn = 0;               // QP0 takes no GMPs: reported to QP1
  REQUIRE(inform(subs, f.s, slow, f.lid(0)).status == 0);
  CHECK(subs.next_deadline() == std::nullopt);

  const Micros t0 = 5'000'000;
  subs.publish(notice_about(64, f.gid(3), f.s.sm_lid), t0);
  CHECK(subs.next_deadline() == t0);
  auto sent = subs.take_due(t0);
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].address.qp == 1);
  const uint64_t tid = tid_of(sent[0]);
  const Micros timeout = 1'073'741;
  CHECK(subs.next_deadline() == t0 + timeout);
  CHECK(subs.take_due(t0 + timeout - 1).empty());
  Micros t = t0;
  for (int retry = 1; retry <= 3; ++retry) {
    t += timeout;
    auto again = subs.take_due(t);
    REQUIRE(again.size() == 1);
    CHECK(tid_of(again[0]) == tid);  // the same transaction resent
    CHECK(subs.counters().retried == uint64_t(retry));
  }
  CHECK(subs.take_due(t + timeout - 1).empty());
  CHECK(subs.take_due(t + timeout).empty());  // given up
  CHECK(subs.counters().sent == 1);
  CHECK(subs.counters().given_up == 1);
  CHECK(subs.pending_reports() == 0);
  CHECK(subs.next_deadline() == std::nullopt);
  CHECK(subs.size() == 1);  // the subscription stays

  // A fast subscriber's timeout is the floor (200 ms), and a ReportResponse
  // with its TID ends the retries; other answers do not.
  auto fast = generic_trap(wire::trap_number::gid_out_of_service);
  fast.resp_time_value = 0;
  REQUIRE(inform(subs, f.s, fast, f.lid(1)).status == 0);
  subs.publish(notice_about(65, f.gid(3), f.s.sm_lid), 0);
  auto out = subs.take_due(0);
  REQUIRE(out.size() == 1);
  CHECK(subs.next_deadline() == 200 * ms);
  subs.on_report_response(report_response(tid_of(out[0]) + 1000));
  MadPacket not_a_response = report_response(tid_of(out[0]));
  not_a_response.data[3] = wire::method::get_resp;
  subs.on_report_response(not_a_response);
  CHECK(subs.pending_reports() == 1);
  subs.on_report_response(report_response(tid_of(out[0])));
  CHECK(subs.pending_reports() == 0);
  CHECK(subs.counters().acknowledged == 1);
  CHECK(subs.take_due(10'000 * ms).empty());
}

// The MAD layer below may hand the answer back with its own agent number in
// the TID's high 32 bits (ib_umad does on the way out, umad2sim does not
// undo it on the way in): the low 32 bits are the Report's.
TEST_CASE("a ReportResponse is matched by the low 32 bits of its TID", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs;
  REQUIRE(inform(subs, f.s, generic_trap(wire::trap_number::gid_out_of_service), f.lid(1)).status == 0);
  subs.publish(notice_about(65, f.gid(3), f.s.sm_lid), 0);
  auto out = subs.take_due(0);
  REQUIRE(out.size() == 1);
  const uint64_t tid = tid_of(out[0]);
  subs.on_report_response(report_response((tid & 0xFFFF'FFFFULL) | (uint64_t{0x1234'5678} << 32)));
  CHECK(subs.pending_reports() == 0);
  CHECK(subs.counters().acknowledged == 1);
}

TEST_CASE("at most max_outstanding_reports Reports are in flight", "[sa][subscriptions]") {
  SubscriptionFixture f;
  sa::Subscriptions subs(sa::SubscriptionOptions{.max_outstanding_reports = 2});
  for (size_t i = 0; i < 4; ++i)
    REQUIRE(inform(subs, f.s, generic_trap(wire::trap_number::gid_in_service), f.lid(i)).status == 0);
  subs.publish(notice_about(64, f.gid(0), f.s.sm_lid), 0);
  subs.publish(notice_about(64, f.gid(1), f.s.sm_lid), 0);
  CHECK(subs.pending_reports() == 8);
  auto first = subs.take_due(0);
  REQUIRE(first.size() == 2);
  CHECK(subs.outstanding_reports() == 2);
  CHECK(subs.take_due(0).empty());                // the window is full
  CHECK(subs.next_deadline() == 1'073'741);       // only the retries are due (RespTimeValue 18): no busy loop
  subs.on_report_response(report_response(tid_of(first[0])));
  CHECK(subs.next_deadline() == 0);               // a waiting Report may go now
  auto next = subs.take_due(1);
  REQUIRE(next.size() == 1);
  CHECK(tid_of(next[0]) > tid_of(first[1]));      // first in, first out
  CHECK(subs.outstanding_reports() == 2);
  // Given up Reports free the window too.
  Micros t = 0;
  size_t sent = 3;
  while (subs.pending_reports() > 0) {
    auto d = subs.next_deadline();
    REQUIRE(d);
    t = *d;
    for (const MadPacket& p : subs.take_due(t)) {
      (void)p;
      ++sent;
    }
    REQUIRE(subs.outstanding_reports() <= 2);
  }
  CHECK(subs.counters().sent == 8);
  CHECK(subs.counters().acknowledged == 1);
  CHECK(subs.counters().given_up == 7);
  CHECK(sent == 8 + 7 * 3);
}

TEST_CASE("SM notices for ports that leave and come, and prune", "[sa][subscriptions][notices]") {
  SubscriptionFixture f;
  const sa::SaSnapshot after = test::offline_snapshot(fabric_without_hca2());
  REQUIRE(after.endports.size() == f.s.endports.size() - 2);

  const Lid sm = f.s.sm_lid;
  auto left = sa::notices_between(f.s, after, sm);
  REQUIRE(left.size() == 2);
  const sa::EndPort* sm_port = after.by_lid(sm);
  REQUIRE(sm_port != nullptr);
  for (size_t i = 0; i < 2; ++i) {
    const wire::Notice& n = left[i];
    CHECK(n.is_generic);
    CHECK(n.type == wire::notice_type::subnet_management);
    CHECK(n.producer_type == wire::producer_type::class_manager);
    CHECK(n.trap_number == wire::trap_number::gid_out_of_service);
    CHECK(n.issuer_lid == sm);
    CHECK(n.issuer_gid == sa::port_gid(after, *sm_port));
    CHECK(sa::notice_details_gid(n) == f.gid(2 + i));  // Hca2's ports, ascending GUID
    // The GID sits in notice bytes 16-31 (6 reserved bytes into the details).
    std::array<uint8_t, wire::notice_size> bytes{};
    wire::encode(n, bytes);
    const wire::Gid subject = f.gid(2 + i);
    CHECK(std::equal(subject.raw.begin(), subject.raw.end(), bytes.begin() + 16));
  }
  auto came = sa::notices_between(after, f.s, sm);
  REQUIRE(came.size() == 2);
  CHECK(came[0].trap_number == wire::trap_number::gid_in_service);
  CHECK(sa::notice_details_gid(came[1]) == f.gid(3));
  CHECK(sa::notices_between(f.s, f.s, sm).empty());

  // Subscribers on Hca1 hear that Hca2 left; Hca2's own subscriptions and
  // queued Reports go with it.
  sa::Subscriptions subs;
  auto watch = generic_trap(wire::trap_number::gid_out_of_service);
  watch.gid = f.gid(3);
  REQUIRE(inform(subs, f.s, watch, f.lid(0)).status == 0);
  REQUIRE(inform(subs, f.s, generic_trap(wire::inform_all_trap_numbers), f.lid(2)).status == 0);
  REQUIRE(inform(subs, f.s, generic_trap(wire::inform_all_trap_numbers), f.lid(3)).status == 0);
  for (const wire::Notice& n : left) subs.publish(n, 0);
  CHECK(subs.pending_reports() == 5);  // Hca1 port 1 hears of port 3 only; Hca2's ports of both
  subs.prune(after);
  CHECK(subs.size() == 1);
  CHECK(subs.pending_reports() == 1);
  CHECK(subs.counters().dropped == 4);
  auto due = subs.take_due(0);
  REQUIRE(due.size() == 1);
  CHECK(due[0].address.lid == after.by_port_guid(f.cas[0]->guid)->base_lid);
  CHECK(sa::notice_details_gid(decoded(wire::decode_notice(
            std::span<const uint8_t>(due[0].data).subspan(wire::sa_data_offset, wire::notice_size)))) == f.gid(3));
}
