// The SA agent under a stream of random and broken MADs, sent by a client
// port across SimFabric (seeded, so every run is the same): random bytes with
// the SA class, valid requests with bits flipped in every header and in the
// data, random methods, attributes and component masks, and RMPP transfers
// gone wrong (segments out of order, repeated, far out of the window, a huge
// PayloadLength, STOP and ABORT mid-way, ACKs of transfers that never were).
// What must hold: every answerable request gets exactly one answer, a plain
// MAD or one RMPP transfer, with the method and a status the spec allows
// (IBA 13.4.7, 15.2.5.1.4); the RMPP table stays bounded; nothing trips ASan
// or UBSan; and afterwards a correct query is still answered correctly.
//
// Also here: the two ways the agent met osmtest under ibsim, where clients
// never ACK (umad2sim carries no RMPP) and a new client process reuses the
// TIDs of the last one.
#include <map>
#include <random>
#include <set>

#include <catch2/catch.hpp>

#include "mad/rmpp/segments.h"
#include "mad/wire/constants.h"
#include "mad/wire/rmpp.h"
#include "mad/wire/sa_header.h"
#include "mad/wire/sa/vl_arbitration_table_record.h"
#include "mad/wire/sa_records.h"
#include "sa/agent.h"
#include "sa/client.h"
#include "sa/record_tables.h"
#include "sm/topogen/generators.h"
#include "tests/sa/sa_bench.h"
#include "tests/sa/sa_fixtures.h"

using namespace ibsm;
using test::must;
using test::SaBench;
using test::sa_request_mad;
using test::SweepHarness;

namespace {

uint64_t buffer_tid(const wire::MadBuffer& m) { return wire::get_field(m, wire::mad_fields::transaction_id); }
uint8_t buffer_method(const wire::MadBuffer& m) { return static_cast<uint8_t>(wire::get_field(m, wire::mad_fields::method)); }
uint16_t status_of(const wire::MadBuffer& m) { return static_cast<uint16_t>(wire::get_field(m, wire::mad_fields::status)); }
uint16_t attr_of(const wire::MadBuffer& m) { return static_cast<uint16_t>(wire::get_field(m, wire::mad_fields::attribute_id)); }
wire::RmppHeader rmpp_of(const wire::MadBuffer& m) {
  auto r = wire::decode_rmpp_header(m);
  REQUIRE(r.ok());
  return *r;
}

// The statuses an SA answer may carry: the generic ones (IBA 13.4.7 table
// 110) and the SA's own (IBA 15.2.5.1.4 table 184 ... in bits 8-15).
bool allowed_status(uint16_t s) {
  static const std::set<uint16_t> ok = {
      wire::mad_status::ok,          wire::mad_status::busy,          wire::mad_status::bad_version,
      wire::mad_status::method_unsupported, wire::mad_status::method_attr_unsupported,
      wire::mad_status::invalid_field, wire::sa_status::no_resources, wire::sa_status::req_invalid,
      wire::sa_status::no_records,   wire::sa_status::too_many_records, wire::sa_status::req_gid_invalid,
      wire::sa_status::req_insufficient_components, wire::sa_status::req_denied};
  return ok.contains(s);
}

constexpr uint8_t kMethods[] = {wire::method::get,        wire::method::set,      wire::method::get_table,
                                wire::method::get_multi,  wire::method::delete_,  wire::method::get_trace_table,
                                wire::method::send,       wire::method::trap,     wire::method::report,
                                wire::method::trap_repress, 0x10, 0x7F};
constexpr uint16_t kAttributes[] = {
    wire::sa_attr::class_port_info, wire::sa_attr::notice, wire::sa_attr::inform_info, wire::sa_attr::node_record,
    wire::sa_attr::port_info_record, wire::sa_attr::sl_to_vl_mapping_table_record, wire::sa_attr::switch_info_record,
    wire::sa_attr::linear_forwarding_table_record, wire::sa_attr::random_forwarding_table_record,
    wire::sa_attr::multicast_forwarding_table_record, wire::sa_attr::sm_info_record,
    wire::sa_attr::link_speed_width_pairs_table_record, wire::sa_attr::link_record, wire::sa_attr::guid_info_record,
    wire::sa_attr::service_record, wire::sa_attr::p_key_table_record, wire::sa_attr::path_record,
    wire::sa_attr::vl_arbitration_table_record, wire::sa_attr::mc_member_record, wire::sa_attr::trace_record,
    wire::sa_attr::multi_path_record, wire::sa_attr::service_association_record, wire::sa_attr::inform_info_record,
    0x0000, 0x7777, 0xFFFF};

// One fuzzed MAD: a request of random method, attribute and mask with
// random data, some of it taken from real records, then a few bits flipped
// anywhere; or random bytes with the SA class.
wire::MadBuffer fuzzed_mad(std::mt19937_64& rng, const sa::SaSnapshot& snap, uint64_t tid) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  wire::MadBuffer m{};
  if (pick(8) == 0) {
    for (auto& b : m) b = static_cast<uint8_t>(rng());
    m[0] = wire::mad_base_version;
    m[1] = wire::mgmt_class::subn_adm;
  } else {
    std::array<uint8_t, wire::sa_data_size> data{};
    switch (pick(3)) {
      case 0: break;  // an empty template
      case 1:
        for (auto& b : data) b = static_cast<uint8_t>(rng());
        break;
      default: {  // a real LID and GUID where NodeRecord and PathRecord keep them
        const sa::EndPort& e = snap.endports[pick(snap.endports.size())];
        wire::set_field(data, wire::node_record_fields::lid, e.base_lid.value);
        for (int i = 0; i < 8; ++i) data[8 + i] = static_cast<uint8_t>(e.guid.value >> (56 - 8 * i));
        break;
      }
    }
    const uint64_t mask = pick(2) ? rng() & ((1ULL << pick(64)) - 1) : 0;
    m = sa_request_mad(kMethods[pick(std::size(kMethods))], kAttributes[pick(std::size(kAttributes))], mask, tid, data);
    const size_t flips = pick(4);
    for (size_t i = 0; i < flips; ++i) {
      // Half the flips in the headers (bytes 0-55), half anywhere.
      const size_t bit = pick(2) ? pick(wire::sa_data_offset * 8) : pick(wire::mad_size * 8);
      m[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    }
  }
  // Keep the TID unique so each answer can be told apart; a response or an
  // RMPP-active MAD is fine too: they must simply not be answered as requests.
  wire::set_field(m, wire::mad_fields::transaction_id, tid);
  m[1] = wire::mgmt_class::subn_adm;  // another class would be another agent's to answer
  return m;
}

// What one fuzzed MAD must get back.
enum class Expect { nothing, one_answer, rmpp_only };
Expect expectation(const wire::MadBuffer& m) {
  if (m[0] != wire::mad_base_version || m[1] != wire::mgmt_class::subn_adm) return Expect::nothing;
  if (wire::is_response_method(buffer_method(m))) return Expect::nothing;
  auto r = wire::decode_rmpp_header(m);
  if (r.ok() && r->active()) return Expect::rmpp_only;  // the table's: an ABORT for a bad header, an ACK, or silence
  return Expect::one_answer;
}

}  // namespace

TEST_CASE("SA agent fuzz: random and mutated MADs each get one answer with an allowed status", "[sa][agent][fuzz]") {
  SaBench b(must(topogen::kary_ntree({.k = 4, .n = 2})));
  std::mt19937_64 rng(0x5A5A1234);
  // How the client treats RMPP answers, by TID: take them whole, stay silent
  // (as an osmtest under ibsim), STOP or ABORT after the first segment.
  rmpp::RmppSessions receiving([&](const MadPacket& p) { REQUIRE(b.client->send(p).ok()); });

  constexpr uint64_t kMads = 20'000;
  constexpr uint64_t kBatch = 25;
  std::map<uint64_t, wire::MadBuffer> sent;
  std::map<uint64_t, int> plain_answers, rmpp_answers;
  std::map<uint64_t, wire::MadBuffer> plain_answer_mad;
  std::vector<MadPacket> got;
  uint64_t tid = 0x10000;
  for (uint64_t n = 0; n < kMads; n += kBatch) {
    for (uint64_t i = 0; i < kBatch; ++i) {
      auto m = fuzzed_mad(rng, *b.snapshot, ++tid);
      sent[tid] = m;
      b.send(m);
    }
    got.clear();
    b.run(3'000, got);
    for (const MadPacket& p : got) {
      const uint64_t t = buffer_tid(p.data);
      INFO(fmt::format("tid 0x{:x}", t));
      REQUIRE(sent.contains(t));
      const auto r = rmpp_of(p.data);
      if (!r.active()) {
        if (++plain_answers[t] == 1) plain_answer_mad[t] = p.data;
        continue;
      }
      if (r.type != wire::rmpp_type::data) continue;  // the agent's ABORTs and ACKs of fuzzed transfers
      if (r.segment_number() == 1) ++rmpp_answers[t];
      switch (t % 4) {
        case 0: receiving.handle(p, b.h.sim().now()); break;
        case 1: break;
        case 2:
        case 3: {
          const uint8_t type = t % 4 == 2 ? wire::rmpp_type::stop : wire::rmpp_type::abort;
          MadPacket ctl;
          ctl.address = p.address;
          ctl.data = rmpp::make_control(p.data, {.type = type, .status = wire::rmpp_status::resources_exhausted}, true,
                                        rmpp::Layout{});
          if (type == wire::rmpp_type::abort) ctl.data[27] = wire::rmpp_status::unspecified;
          REQUIRE(b.client->send(ctl).ok());
          break;
        }
      }
    }
    receiving.poll(b.h.sim().now());
    (void)receiving.take_deliveries();
    REQUIRE(b.agent->rmpp_sessions().size() <= sa::SaAgentOptions{}.rmpp.max_sessions);
  }
  got.clear();
  b.run(20'000, got);

  // Every answer matches its request.
  uint64_t expected_answers = 0, checked = 0;
  for (const auto& [t, req] : sent) {
    INFO(fmt::format("tid 0x{:x} method 0x{:x} attr 0x{:x}", t, buffer_method(req), attr_of(req)));
    const Expect e = expectation(req);
    const int plain = plain_answers.contains(t) ? plain_answers[t] : 0;
    const int by_rmpp = rmpp_answers.contains(t) ? rmpp_answers[t] : 0;
    if (e == Expect::nothing) {
      CHECK(plain + by_rmpp == 0);
      continue;
    }
    if (e == Expect::rmpp_only) {
      // The transfer table's: a bad header gets an ABORT, a first segment
      // opens a transfer (answered once whole: at once if it is also the last).
      CHECK(plain + (by_rmpp > 0 ? 1 : 0) <= 1);
      continue;
    }
    ++expected_answers;
    REQUIRE(plain + (by_rmpp > 0 ? 1 : 0) == 1);
    CHECK(by_rmpp <= 1 + sa::SaAgentOptions{}.rmpp.sender.retries);  // the first segment and its resends
    ++checked;
  }
  CHECK(checked == expected_answers);
  CHECK(expected_answers > kMads / 2);

  // The plain answers: the response method, an allowed status, the
  // request's attribute; RMPP answers only to the methods that use it.
  std::set<uint16_t> statuses;
  for (const auto& [t, ans] : plain_answer_mad) {
    const wire::MadBuffer& req = sent[t];
    const uint8_t m = buffer_method(req);
    INFO(fmt::format("tid 0x{:x} method 0x{:x} attr 0x{:x} class version {}: answer method 0x{:x} status 0x{:x}", t, m,
                     attr_of(req), req[2], buffer_method(ans), status_of(ans)));
    statuses.insert(status_of(ans));
    CHECK(allowed_status(status_of(ans)));
    CHECK(attr_of(ans) == attr_of(req));
    const auto reply = wire::response_method(m);
    if (!reply || m == wire::method::trap || m == wire::method::report) {
      CHECK(buffer_method(ans) == wire::method::get_resp);
      CHECK(status_of(ans) == wire::mad_status::method_unsupported);
      continue;
    }
    CHECK(buffer_method(ans) == *reply);
    if (req[2] != wire::sa_class_version) CHECK(status_of(ans) == wire::mad_status::bad_version);
  }
  CHECK(statuses.size() >= 6);  // the stream reached many kinds of answer
  for (const auto& [t, count] : rmpp_answers) {
    (void)count;
    const uint8_t m = buffer_method(sent[t]);
    INFO(fmt::format("tid 0x{:x} method 0x{:x}", t, m));
    CHECK((m == wire::method::get_table || m == wire::method::get_multi || m == wire::method::get_trace_table ||
           m == wire::method::delete_));
  }
  CHECK(b.max_table <= sa::SaAgentOptions{}.rmpp.max_sessions);
  CHECK(b.agent->counters().requests >= expected_answers);

  // Afterwards the agent still answers a whole table, correctly.
  auto expected = sa::collect_records<wire::NodeRecord>(*b.snapshot, sa::visit_node_records);
  sa::SaRequest req;
  req.method = wire::method::get_table;
  req.attribute = wire::sa_attr::node_record;
  req.tid = 0xCAFE0001;
  auto a = b.call(req);
  REQUIRE(a.ok());
  REQUIRE(a->status == 0);
  REQUIRE(a->record_count() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    auto rec = wire::decode_node_record(a->record(i));
    REQUIRE(rec.ok());
    CHECK(*rec == expected[i]);
  }
}

TEST_CASE("SA agent fuzz: RMPP requests out of order, repeated, stopped, out of window, oversized", "[sa][agent][fuzz]") {
  SaBench b(must(topogen::kary_ntree({.k = 4, .n = 2})));
  std::mt19937_64 rng(0x0BADC0DE);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  // A MultiPathRecord GetMulti of 20 GIDs: 344 bytes, two segments.
  std::vector<uint8_t> data(wire::sa_record_size::multi_path_fixed + 20 * 16);
  for (auto& x : data) x = static_cast<uint8_t>(rng());
  const rmpp::Layout layout;
  uint64_t tid = 0x20000;
  std::vector<MadPacket> got;
  for (int round = 0; round < 1'500; ++round) {
    ++tid;
    const auto header = sa_request_mad(wire::method::get_multi, wire::sa_attr::multi_path_record, 0, tid);
    std::vector<wire::MadBuffer> mads;
    const uint32_t segments = rmpp::segment_count(data.size(), layout);
    for (uint32_t s = 1; s <= segments; ++s) mads.push_back(rmpp::make_data_segment(header, data, s, layout));
    switch (pick(8)) {
      case 0: std::swap(mads[0], mads[1]); break;                     // out of order
      case 1: mads.push_back(mads[0]); mads.push_back(mads[1]); break;  // repeated
      case 2: wire::set_field(mads[1], wire::rmpp_fields::segment_number, 1'000'000 + pick(1000)); break;
      case 3: wire::set_field(mads[0], wire::rmpp_fields::payload_length, 0xFFFFFFF0u); break;  // huge
      case 4: mads[1] = rmpp::make_control(header, {.type = wire::rmpp_type::stop, .status = 1}, false, layout); break;
      case 5: mads[1] = rmpp::make_control(header, {.type = wire::rmpp_type::abort, .status = 127}, false, layout); break;
      case 6:  // an ACK of a transfer that never was, then the real one
        // (push_back and rotate: GCC 12 at -O2 misreads vector::insert at
        // the front as a null dereference.)
        mads.push_back(rmpp::make_control(sa_request_mad(wire::method::get_table, wire::sa_attr::node_record, 0, tid + 0x100000),
                                          {.type = wire::rmpp_type::ack, .segment = 3, .new_window_last = 9}, false,
                                          layout));
        std::rotate(mads.begin(), mads.end() - 1, mads.end());
        break;
      default:  // a random bit in the RMPP header of one segment
        mads[pick(mads.size())][24 + pick(12)] ^= static_cast<uint8_t>(1u << pick(8));
        break;
    }
    for (const auto& m : mads) b.send(m);
    if (round % 10 == 9) {
      got.clear();
      b.run(2'000, got);
      for (const MadPacket& p : got) {
        // Whatever comes back is the agent's RMPP control, an answer's
        // segment, or a plain error: each under one of the TIDs we used.
        const uint64_t t = buffer_tid(p.data);
        CHECK(((t > 0x20000 && t <= tid) || (t > 0x120000 && t <= tid + 0x100000)));
      }
      REQUIRE(b.agent->rmpp_sessions().size() <= sa::SaAgentOptions{}.rmpp.max_sessions);
    }
  }
  got.clear();
  b.run(100'000'000, got);  // every transfer times out and lingers out
  CHECK(b.agent->rmpp_sessions().active() == 0);
  // The intact transfers got through while there was room; half-open ones
  // filled the table until they timed out, and new ones were turned away.
  CHECK(b.agent->counters().rmpp_requests > 100);
  CHECK(b.agent->rmpp_sessions().refused() > 0);
  CHECK(b.max_table <= sa::SaAgentOptions{}.rmpp.max_sessions);

  sa::SaRequest req;
  req.method = wire::method::get_table;
  req.attribute = wire::sa_attr::node_record;
  req.tid = 0xCAFE0002;
  auto a = b.call(req);
  REQUIRE(a.ok());
  CHECK(a->status == 0);
  CHECK(a->record_count() == sa::collect_records<wire::NodeRecord>(*b.snapshot, sa::visit_node_records).size());
}

// osmtest under ibsim: umad2sim carries no RMPP, so the client takes the first
// segment of each GetTableResp for the whole answer and never ACKs. `-f f`
// sends 100k GetTables one after the other; each must be answered, not
// refused for a table full of transfers waiting for ACKs that never come.
TEST_CASE("SA agent: a client that never ACKs gets every GetTable answered", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  std::vector<MadPacket> got;
  const size_t n = 3 * sa::SaAgentOptions{}.rmpp.max_sessions;
  for (uint64_t i = 0; i < n; ++i) {
    b.send(sa_request_mad(wire::method::get_table, wire::sa_attr::port_info_record, 0, 0x30000 + i));
    b.run(200, got);
  }
  b.run(1'000, got);
  std::set<uint64_t> answered;
  for (const MadPacket& p : got) {
    INFO(fmt::format("tid 0x{:x} status 0x{:x}", buffer_tid(p.data), status_of(p.data)));
    CHECK(status_of(p.data) == 0);
    CHECK(rmpp_of(p.data).type == wire::rmpp_type::data);
    answered.insert(buffer_tid(p.data));
  }
  CHECK(answered.size() == n);
  CHECK(b.agent->counters().rmpp_refused == 0);
  CHECK(b.agent->rmpp_sessions().size() <= sa::SaAgentOptions{}.rmpp.max_sessions);
}

// Under ibsim the TID's top half is the simulator's, the bottom half the
// client's counter: each osmtest process starts it at the same value, so
// `osmtest -f q` asks with the TID whose answer `-f c` never ACKed. That is a
// new request (another attribute), not a resend: it gets its own answer.
TEST_CASE("SA agent: another request under the TID of an answer under way is answered", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  std::vector<MadPacket> got;
  b.send(sa_request_mad(wire::method::get_table, wire::sa_attr::node_record, 0, 0x2));
  b.run(1'000, got);
  REQUIRE(got.size() == 1);
  CHECK(attr_of(got[0].data) == wire::sa_attr::node_record);
  // The same request again is a resend while its answer is under way: not answered twice.
  got.clear();
  b.send(sa_request_mad(wire::method::get_table, wire::sa_attr::node_record, 0, 0x2));
  b.run(1'000, got);
  CHECK(got.empty());
  CHECK(b.agent->counters().duplicates == 1);
  // Another attribute under the same TID: answered.
  b.send(sa_request_mad(wire::method::get_table, wire::sa_attr::vl_arbitration_table_record, 0, 0x2));
  b.run(1'000, got);
  REQUIRE(got.size() == 1);
  CHECK(attr_of(got[0].data) == wire::sa_attr::vl_arbitration_table_record);
  CHECK(status_of(got[0].data) == 0);
  CHECK(b.agent->counters().tid_reused == 1);
}

// osmtest -f q asks for the VLArbitrationTableRecord of each block, 1 to 4,
// of every port it knows, by LID, OutputPortNum and BlockNum, with Get: every
// port has all four blocks (IBA 14.2.5.9), as OpenSM answers, even where the
// port's VLArbLowCap/HighCap of 8 leaves blocks 2 and 4 unused.
TEST_CASE("SA agent: every port's VLArbitrationTableRecord has blocks 1 to 4", "[sa][agent]") {
  SaBench b(must(topogen::kary_ntree({.k = 2, .n = 2})));
  namespace f = wire::vl_arbitration_table_record_fields;
  const sa::EndPort& ca = b.snapshot->endports.back();
  for (const auto& [lid, port] : {std::pair{b.snapshot->sm_lid, uint8_t{1}}, std::pair{ca.base_lid, ca.ref.port}}) {
    for (uint8_t block = 1; block <= 4; ++block) {
      INFO(fmt::format("lid {} port {} block {}", lid.value, port, block));
      sa::SaRequest req;
      req.method = wire::method::get;
      req.attribute = wire::sa_attr::vl_arbitration_table_record;
      req.component_mask = 0b111;  // LID, OutputPortNum, BlockNum
      req.data.assign(wire::sa_record_size::vl_arbitration_table, 0);
      wire::set_field(req.data, f::lid, lid.value);
      wire::set_field(req.data, f::output_port_num, port);
      wire::set_field(req.data, f::block_num, block);
      req.tid = 0x40000 + block;
      auto a = b.call(req);
      REQUIRE(a.ok());
      CHECK(a->status == 0);
      REQUIRE(a->record_count() == 1);
      CHECK(wire::get_field(a->record(0), f::block_num) == block);
    }
  }
  // Switch port 0 too (osmtest asks for it first).
  const Fabric& t = b.snapshot->fabric;
  for (const sa::EndPort& e : b.snapshot->endports) {
    if (!t.node(e.ref.node).is_switch()) continue;
    sa::SaRequest req;
    req.method = wire::method::get;
    req.attribute = wire::sa_attr::vl_arbitration_table_record;
    req.component_mask = 0b111;
    req.data.assign(wire::sa_record_size::vl_arbitration_table, 0);
    wire::set_field(req.data, f::lid, e.base_lid.value);
    wire::set_field(req.data, f::block_num, 4);
    req.tid = 0x40010;
    auto a = b.call(req);
    REQUIRE(a.ok());
    CHECK(a->status == 0);
    break;
  }
}
