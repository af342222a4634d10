// The SA agent end to end inside SimFabric: a client port sends real SA MADs
// across the simulated switches to the SM port, the agent answers from the
// snapshot of the sweep that just ran, RMPP carries the tables, and every
// kind of bad request gets its status instead of silence.
#include "sa/agent.h"

#include <catch2/catch.hpp>

#include "mad/rmpp/segments.h"
#include "mad/wire/class_port_info.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa_header.h"
#include "mad/wire/sa_records.h"
#include "sa/client.h"
#include "sa/record_tables.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/notice.h"
#include "mad/wire/response.h"
#include "mad/wire/rmpp.h"
#include "sa/notices.h"
#include "sm/state/sm_agent.h"
#include "sm/topogen/generators.h"
#include "tests/sa/sa_bench.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::must;
using test::SaBench;
using test::sa_request_mad;
using test::SweepHarness;

namespace {

constexpr uint64_t kSmKey = test::kSaBenchSmKey;
using test::method_of;

uint16_t status_of(const MadPacket& p) { return static_cast<uint16_t>(wire::get_field(p.data, wire::mad_fields::status)); }

}  // namespace

TEST_CASE("SA agent: a GetTable answer crosses the fabric by RMPP and holds the whole table", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 4, .n = 2})));  // 16 hosts: 24 node records, 4 segments
  auto expected = sa::collect_records<wire::NodeRecord>(*b.snapshot, sa::visit_node_records);
  REQUIRE(expected.size() > 20);

  sa::SaRequest req;
  req.method = wire::method::get_table;
  req.attribute = wire::sa_attr::node_record;
  auto a = b.call(req);
  REQUIRE(a.ok());
  CHECK(a->method == wire::method::get_table_resp);
  CHECK(a->status == 0);
  CHECK(a->by_rmpp);
  REQUIRE(a->record_count() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    auto got = wire::decode_node_record(a->record(i));
    REQUIRE(got.ok());
    CHECK(*got == expected[i]);
  }
  CHECK(b.agent->counters().rmpp_answers == 1);
  CHECK(b.agent->rmpp_sessions().active() == 0);  // the last ACK came back

  // An empty table still comes as one RMPP segment, with no records.
  sa::SaRequest none;
  none.method = wire::method::get_table;
  none.attribute = wire::sa_attr::node_record;
  none.component_mask = 1;  // LID
  none.data.assign(wire::sa_record_size::node, 0);
  wire::set_field(none.data, wire::node_record_fields::lid, 0xBEEF);
  auto e = b.call(none);
  REQUIRE(e.ok());
  CHECK(e->status == 0);
  CHECK(e->by_rmpp);
  CHECK(e->record_count() == 0);
}

TEST_CASE("SA agent: Get answers one record in one plain MAD; a missing one gets NO_RECORDS", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  const sa::EndPort& target = b.snapshot->endports.back();
  sa::SaRequest req;
  req.method = wire::method::get;
  req.attribute = wire::sa_attr::node_record;
  req.component_mask = 1;  // LID
  req.data.assign(wire::sa_record_size::node, 0);
  wire::set_field(req.data, wire::node_record_fields::lid, target.base_lid.value);
  auto a = b.call(req);
  REQUIRE(a.ok());
  CHECK(a->method == wire::method::get_resp);
  CHECK(a->status == 0);
  CHECK_FALSE(a->by_rmpp);
  REQUIRE(a->record_count() == 1);
  auto rec = wire::decode_node_record(a->record(0));
  REQUIRE(rec.ok());
  CHECK(rec->lid == target.base_lid);
  CHECK(rec->node_info.port_guid == target.guid);

  wire::set_field(req.data, wire::node_record_fields::lid, 0xBEEF);
  auto missing = b.call(req);
  REQUIRE(missing.ok());
  CHECK(missing->status == wire::sa_status::no_records);
}

TEST_CASE("SA agent: ClassPortInfo says SA class version 2, no redirection", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  sa::SaRequest req;
  req.method = wire::method::get;
  req.attribute = wire::sa_attr::class_port_info;
  auto a = b.call(req);
  REQUIRE(a.ok());
  REQUIRE(a->status == 0);
  std::array<uint8_t, wire::sa_data_size> data{};
  std::copy(a->data.begin(), a->data.end(), data.begin());
  auto info = wire::decode_class_port_info(data);
  REQUIRE(info.ok());
  CHECK(info->base_version == 1);
  CHECK(info->class_version == 2);
  CHECK(info->redirect_lid.value == 0);
  // What the SA serves, and nothing it does not: MultiPathRecord, the
  // PortInfoRecord CapabilityMask(2) bitwise match; not every optional record
  // (no RandomForwardingTableRecord, ServiceAssociationRecord), no UD
  // multicast yet, no Get/Set(Notice), traps, ReInit.
  CHECK(info->capability_mask ==
        (wire::sa_cap::is_multi_path_supported | wire::sa_cap::is_port_info_capability_mask_match_supported |
         wire::sa_cap::is_ud_multicast_supported));
  CHECK(info->capability_mask2 == wire::sa_cap2::is_port_info_capability_mask2_match_supported);
}

TEST_CASE("SA agent: PortInfoRecord CapabilityMask matches bitwise with AttributeModifier bit 31", "[sa][agent]") {
  // saquery -s: GetTable of PortInfoRecords whose CapabilityMask has IsSM,
  // with the match bit in the attribute modifier. The SM's port is the one.
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  const wire::Field cap_mask = wire::port_info_fields::capability_mask.shifted(wire::port_info_record_fields::port_info_offset);
  const uint64_t cap_bit = wire::component_bit(wire::port_info_record_components, cap_mask);
  REQUIRE(cap_bit == uint64_t{1} << 7);  // IB_PIR_COMPMASK_CAPMASK
  auto is_sm_query = [&](uint32_t attr_mod, uint32_t wanted) {
    sa::SaRequest req;
    req.method = wire::method::get_table;
    req.attribute = wire::sa_attr::port_info_record;
    req.attr_mod = attr_mod;
    req.component_mask = cap_bit;
    req.data.assign(wire::sa_record_size::port_info, 0);
    wire::set_field(req.data, cap_mask, wanted);
    auto a = b.call(req);
    REQUIRE(a.ok());
    REQUIRE(a->status == 0);
    return *a;
  };
  auto issm = is_sm_query(sa::port_info_cap_mask_match, wire::port_cap::is_sm);
  REQUIRE(issm.record_count() == 1);
  auto rec = wire::decode_port_info_record(issm.record(0));
  REQUIRE(rec.ok());
  CHECK(rec->endport_lid == b.sm_lid());
  CHECK((rec->port_info.capability_mask & wire::port_cap::is_sm) != 0);
  CHECK(rec->port_info.capability_mask != wire::port_cap::is_sm);  // more bits than asked: a bitwise match
  // Without the modifier bit the mask must be equal: no port has IsSM alone.
  CHECK(is_sm_query(0, wire::port_cap::is_sm).record_count() == 0);
  // With it, the port's whole mask still matches; a bit no port has matches none.
  CHECK(is_sm_query(sa::port_info_cap_mask_match, rec->port_info.capability_mask).record_count() == 1);
  CHECK(is_sm_query(sa::port_info_cap_mask_match, 1u << 0).record_count() == 0);  // bit 0 is reserved
}

TEST_CASE("SA agent: every bad request is answered with the spec's status, and counted", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  struct Case {
    const char* what;
    wire::MadBuffer mad;
    uint8_t reply_method;
    uint16_t status;
  };
  std::vector<Case> cases;
  // An attribute the SA does not have (and one it has, with a method it does not serve).
  cases.push_back({"unknown attribute", sa_request_mad(wire::method::get, 0x7777), wire::method::get_resp,
                   wire::mad_status::method_attr_unsupported});
  cases.push_back({"SMInfoRecord Set (osmtest -f v)", sa_request_mad(wire::method::set, wire::sa_attr::sm_info_record),
                   wire::method::get_resp, wire::mad_status::method_attr_unsupported});
  cases.push_back({"NodeRecord Delete", sa_request_mad(wire::method::delete_, wire::sa_attr::node_record),
                   wire::method::delete_resp, wire::mad_status::method_attr_unsupported});
  // A method the class does not define.
  cases.push_back({"method 0x10", sa_request_mad(0x10, wire::sa_attr::node_record), wire::method::get_resp,
                   wire::mad_status::method_unsupported});
  // SA class version 1.
  auto v1 = sa_request_mad(wire::method::get, wire::sa_attr::node_record);
  wire::set_field(v1, wire::mad_fields::class_version, 1);
  cases.push_back({"class version 1", v1, wire::method::get_resp, wire::mad_status::bad_version});
  // A ComponentMask bit past the record's components.
  cases.push_back({"bad component mask", sa_request_mad(wire::method::get_table, wire::sa_attr::node_record, 1ULL << 40),
                   wire::method::get_table_resp, wire::sa_status::req_invalid});
  // osmtest -f v's empty MultiPathRecord GetMulti as umad2sim carries it:
  // RMPPFlags Active, RMPPVersion and RMPPType 0 (the kernel would segment
  // it). One plain MAD; an RMPP ABORT would be taken for the answer.
  auto unsegmented = sa_request_mad(wire::method::get_multi, wire::sa_attr::multi_path_record);
  unsegmented[26] = wire::rmpp_flag::active;
  cases.push_back({"empty MultiPathRecord, Active but unsegmented", unsegmented, wire::method::get_multi_resp,
                   wire::sa_status::req_insufficient_components});
  // P_Key records without the SM_Key.
  cases.push_back({"untrusted P_KeyTableRecord", sa_request_mad(wire::method::get_table, wire::sa_attr::p_key_table_record),
                   wire::method::get_table_resp, wire::sa_status::req_denied});

  uint64_t tid = 0x100;
  for (auto& c : cases) {
    INFO(c.what);
    wire::set_field(c.mad, wire::mad_fields::transaction_id, ++tid);
    auto got = b.raw(c.mad);
    REQUIRE(got.size() == 1);
    CHECK(method_of(got[0]) == c.reply_method);
    CHECK(status_of(got[0]) == c.status);
    CHECK(wire::get_field(got[0].data, wire::mad_fields::transaction_id) == tid);
    CHECK(wire::get_field(got[0].data, wire::mad_fields::attribute_id) == wire::get_field(c.mad, wire::mad_fields::attribute_id));
  }
  CHECK(b.agent->counters().errors == cases.size());

  // Not answerable: an unknown base version (dropped on the way, by the
  // fabric or the dispatcher, before any class agent), another class handed
  // to the agent, a response: dropped, counted.
  auto v7 = sa_request_mad(wire::method::get, wire::sa_attr::node_record);
  wire::set_field(v7, wire::mad_fields::base_version, 7);
  CHECK(b.raw(v7).empty());
  MadPacket perf;
  perf.data = sa_request_mad(wire::method::get, wire::sa_attr::node_record);
  wire::set_field(perf.data, wire::mad_fields::mgmt_class, wire::mgmt_class::perf_mgt);
  b.agent->handle(perf, b.h.sim().now());
  CHECK(b.agent->counters().malformed_dropped == 1);
  CHECK(b.sent_by_agent.size() == cases.size());
  auto resp = sa_request_mad(wire::method::get_resp, wire::sa_attr::node_record);
  CHECK(b.raw(resp).empty());
  CHECK(b.agent->counters().unexpected_responses == 1);

  // And the agent still serves.
  sa::SaRequest ok;
  ok.method = wire::method::get_table;
  ok.attribute = wire::sa_attr::port_info_record;
  auto a = b.call(ok);
  REQUIRE(a.ok());
  CHECK(a->status == 0);
  CHECK(a->record_count() > 0);
}

TEST_CASE("SA agent: before the first snapshot every request gets BUSY", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  b.agent->set_snapshot(nullptr, b.h.sim().now());
  auto got = b.raw(sa_request_mad(wire::method::get_table, wire::sa_attr::node_record));
  REQUIRE(got.size() == 1);
  CHECK(status_of(got[0]) == wire::mad_status::busy);
}

TEST_CASE("SA agent: P_Key records for a requester with the SM_Key", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  sa::SaRequest req;
  req.method = wire::method::get_table;
  req.attribute = wire::sa_attr::p_key_table_record;
  req.sm_key = kSmKey;
  auto a = b.call(req);
  REQUIRE(a.ok());
  CHECK(a->status == 0);
  CHECK(a->record_count() > 0);
  req.sm_key = kSmKey + 1;
  auto denied = b.call(req);
  REQUIRE(denied.ok());
  CHECK(denied->status == wire::sa_status::req_denied);
}

TEST_CASE("SA agent: a request repeated while its RMPP answer is under way is not answered twice", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 4, .n = 2})));
  auto mad = sa_request_mad(wire::method::get_table, wire::sa_attr::node_record, 0, 0x4242);
  MadPacket p;
  p.data = mad;
  p.address = sa::sa_address(b.sm_lid());
  // Two copies back to back: the client does not ACK, so the first answer's
  // transfer is still active when the second arrives.
  REQUIRE(b.client->send(p).ok());
  REQUIRE(b.client->send(p).ok());
  for (int i = 0; i < 20; ++i) {
    b.h.dispatcher().poll();
    b.client->wait(100);
  }
  CHECK(b.agent->counters().requests == 2);
  CHECK(b.agent->counters().duplicates == 1);
  CHECK(b.agent->counters().rmpp_answers == 1);
}

namespace {

// Subscribes the bench's client to generic trap `trap` (every type and
// producer, the whole LID range, reports to its QP1).
void subscribe(SaBench& b, uint16_t trap) {
  auto a = b.call(test::sa_request(wire::method::set, wire::sa_attr::inform_info, 0, test::generic_trap(trap),
                                   wire::inform_info_size));
  REQUIRE(a.ok());
  REQUIRE(a->status == 0);
}

// Runs the fabric for `span` and returns the Notices of the Reports the
// client got, answering each with a ReportResponse.
std::vector<wire::Notice> take_reports(SaBench& b, Micros span) {
  std::vector<wire::Notice> got;
  const Micros end = b.h.sim().now() + span;
  while (b.h.sim().now() < end) {
    b.h.dispatcher().poll();
    b.agent->poll(b.h.sim().now());
    while (auto p = b.client->receive()) {
      if (method_of(*p) != wire::method::report) continue;
      auto n = wire::decode_notice(std::span<const uint8_t>(p->data).subspan(wire::sa_data_offset, wire::notice_size));
      REQUIRE(n.ok());
      got.push_back(*n);
      MadPacket answer;
      answer.data = wire::make_response(p->data);
      answer.address = p->address;
      REQUIRE(b.client->send(answer).ok());
    }
    b.client->wait(1000);
  }
  return got;
}

}  // namespace

TEST_CASE("SA agent: a subscriber is told of a trap the SM received and of a port that left", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  SmAgent sm(b.h.dispatcher(), {b.snapshot->sm_info.guid, kSmKey, 5});
  sm.set_trap_listener([&](const wire::Notice& n) { b.agent->publish(n, b.h.sim().now()); });
  subscribe(b, wire::trap_number::link_state_change);
  subscribe(b, wire::trap_number::gid_out_of_service);

  // Pull the cable of a CA that is neither the SM's nor the client's: its
  // switch sends trap 128 to the SM, which the SA forwards.
  const Fabric& t = b.h.sim().topology();
  std::optional<PortRef> victim;
  for (const sa::EndPort& e : b.snapshot->endports)
    if (!t.node(e.ref.node).is_switch() && e.ref != b.snapshot->sm_port && e.ref.node != b.client->node()) victim = e.ref;
  REQUIRE(victim);
  const Guid victim_guid = b.snapshot->fabric.node(victim->node).port(victim->port).guid;
  REQUIRE(b.h.sim().set_link(*victim, false).ok());
  auto reports = take_reports(b, 50'000);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].trap_number == wire::trap_number::link_state_change);
  CHECK(sm.traps_received() == 1);
  CHECK(b.agent->counters().report_responses == 1);

  // The resweep's snapshot lacks the port: trap 65 with its GID.
  auto next = std::make_shared<sa::SaSnapshot>(test::swept_snapshot(b.h));
  b.agent->set_snapshot(next, b.h.sim().now());
  reports = take_reports(b, 50'000);
  REQUIRE(reports.size() == 1);
  CHECK(reports[0].trap_number == wire::trap_number::gid_out_of_service);
  CHECK(sa::notice_details_gid(reports[0]).interface_id() == victim_guid.value);
  CHECK(b.agent->subscriptions().counters().acknowledged == 2);
}

TEST_CASE("SA agent: a MultiPathRecord GetMulti sent by RMPP is reassembled and answered with PathRecords by RMPP",
          "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 4, .n = 2})));
  std::vector<wire::Gid> gids;
  for (const sa::EndPort& e : b.snapshot->endports)
    if (!b.snapshot->fabric.node(e.ref.node).is_switch())
      gids.push_back(wire::Gid::from_parts(b.snapshot->subnet_prefix, e.guid.value));
  REQUIRE(gids.size() >= 13);
  // 5 sources x 8 destinations: 24 + 13 * 16 = 232 bytes, two RMPP segments.
  const size_t sources = 5, destinations = 8;
  std::vector<uint8_t> data(wire::sa_record_size::multi_path_fixed + 16 * (sources + destinations));
  wire::set_field(data, wire::multi_path_record_fields::sgid_count, sources);
  wire::set_field(data, wire::multi_path_record_fields::dgid_count, destinations);
  for (size_t i = 0; i < sources + destinations; ++i) wire::set_gid(data, wire::multi_path_record_fields::gid(i), gids[i]);

  sa::SaRequest req;
  req.method = wire::method::get_multi;
  req.attribute = wire::sa_attr::multi_path_record;
  req.component_mask = (uint64_t{1} << 19) | (uint64_t{1} << 20);  // SGIDCount, DGIDCount
  req.data = data;
  auto a = b.call(req);
  REQUIRE(a.ok());
  CHECK(a->method == wire::method::get_multi_resp);
  REQUIRE(a->status == 0);
  CHECK(a->by_rmpp);
  CHECK(b.agent->counters().rmpp_requests == 1);
  REQUIRE(a->record_count() == sources * destinations);
  for (size_t i = 0; i < sources; ++i) {
    for (size_t j = 0; j < destinations; ++j) {
      auto rec = wire::decode_path_record(a->record(i * destinations + j));
      REQUIRE(rec.ok());
      CHECK(rec->sgid == gids[i]);
      CHECK(rec->dgid == gids[sources + j]);
    }
  }
  CHECK(b.agent->rmpp_sessions().active() == 0);
}
