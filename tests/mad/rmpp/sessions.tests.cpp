#include "mad/rmpp/sessions.h"

#include <catch2/catch.hpp>

#include "tests/mad/rmpp/rmpp_test_util.h"

namespace ibsm::rmpp {
namespace {

using testing::LinkFaults;
using testing::LossyLink;
using testing::Prng;
using testing::rmpp_of;
namespace st = wire::rmpp_status;

MadAddress peer(uint16_t lid) { return {.lid = Lid(lid), .qp = 1, .qkey = wire::qp1_qkey}; }

// A received MAD as the transport hands it over: the address is where it came from.
MadPacket from(const MadAddress& a, const wire::MadBuffer& m) {
  MadPacket p;
  p.data = m;
  p.address = a;
  return p;
}

SessionsOptions small_table(size_t n) {
  SessionsOptions o;
  o.max_sessions = n;
  o.linger = 5'000;
  o.sender.ack_timeout = 1'000;
  o.sender.retries = 2;
  o.sender.total_timeout = 50'000;
  o.receiver.total_timeout = 50'000;
  o.receiver.window = 4;
  return o;
}

TEST_CASE("sessions: plain MADs are not taken", "[rmpp][sessions]") {
  RmppSessions table([](const MadPacket&) {});
  CHECK_FALSE(table.handle(from(peer(2), testing::sa_response_header(1)), 0));
  CHECK(table.size() == 0);
}

TEST_CASE("sessions: an Active header a kernel would have filled in is a plain MAD", "[rmpp][sessions]") {
  // What osmtest's GetMulti looks like under umad2sim: RMPPFlags Active,
  // RMPPVersion and RMPPType 0 (the kernel, not the client, segments).
  std::vector<MadPacket> out;
  RmppSessions table([&](const MadPacket& p) { out.push_back(p); });
  auto unsegmented = testing::sa_response_header(9);
  unsegmented[24] = 0;
  unsegmented[25] = 0;
  unsegmented[26] = wire::rmpp_flag::active;
  CHECK_FALSE(table.handle(from(peer(2), unsegmented), 0));
  CHECK(out.empty());
  CHECK(table.size() == 0);
  // Version 0 with a real type is a bad header, answered as before.
  unsegmented[25] = wire::rmpp_type::data;
  CHECK(table.handle(from(peer(2), unsegmented), 0));
  REQUIRE(out.size() == 1);
  CHECK(rmpp_of(out[0]).type == wire::rmpp_type::abort);
}

TEST_CASE("sessions: the table of senders is bounded; finished ones make room", "[rmpp][sessions]") {
  std::vector<MadPacket> out;
  RmppSessions table([&](const MadPacket& p) { out.push_back(p); }, small_table(3));
  for (uint16_t i = 0; i < 3; ++i) {
    REQUIRE(table.start_send(peer(10 + i), testing::sa_response_header(100 + i), std::vector<uint8_t>(500, 1), 0).ok());
    // Each receiver takes part (ACKs the first segment): none is dropped to make room.
    CHECK(table.handle(from(peer(10 + i), make_control(testing::sa_response_header(100 + i),
                                                       {.type = wire::rmpp_type::ack, .segment = 1, .new_window_last = 1},
                                                       true, Layout{})),
                       0));
  }
  CHECK(table.size() == 3);
  const Status full = table.start_send(peer(20), testing::sa_response_header(200), {}, 0);
  CHECK(full.code() == StatusCode::unavailable);
  CHECK(table.refused() == 1);
  CHECK(table.start_send(peer(10), testing::sa_response_header(100), {}, 0).code() == StatusCode::failed_precondition);

  // The client at LID 10 acknowledges everything: its transfer is done.
  const auto header = testing::sa_response_header(100);
  auto ack = [&](uint32_t seg, uint32_t nwl) {
    return from(peer(10), make_control(header, {.type = wire::rmpp_type::ack, .segment = seg, .new_window_last = nwl},
                                       true, Layout{}));
  };
  CHECK(table.handle(ack(1, 3), 10));
  CHECK(table.handle(ack(3, 3), 20));
  const SessionKey done_key = session_key(peer(10), header);
  CHECK(table.state(done_key) == TransferState::done);
  CHECK(table.active() == 2);
  // Its slot is reused before it has lingered out.
  CHECK(table.start_send(peer(20), testing::sa_response_header(200), {}, 30).ok());
  CHECK(table.size() == 3);
  CHECK_FALSE(table.state(done_key));
}

TEST_CASE("sessions: a full table drops the oldest send whose peer never ACKed, not one under way", "[rmpp][sessions]") {
  // A client that does no RMPP (any umad client under ibsim's umad2sim) takes
  // the first segment for the whole answer and never ACKs: its transfers must
  // not hold the table until they time out.
  std::vector<MadPacket> out;
  RmppSessions table([&](const MadPacket& p) { out.push_back(p); }, small_table(3));
  REQUIRE(table.start_send(peer(10), testing::sa_response_header(100), std::vector<uint8_t>(500, 1), 0).ok());
  REQUIRE(table.start_send(peer(11), testing::sa_response_header(101), std::vector<uint8_t>(500, 1), 1).ok());
  REQUIRE(table.start_send(peer(12), testing::sa_response_header(102), std::vector<uint8_t>(500, 1), 2).ok());
  // LID 10's peer ACKs: it is under way and stays.
  CHECK(table.handle(from(peer(10), make_control(testing::sa_response_header(100),
                                                 {.type = wire::rmpp_type::ack, .segment = 1, .new_window_last = 2},
                                                 true, Layout{})),
                     3));
  const auto key = [](uint16_t lid, uint64_t tid) { return session_key(peer(lid), testing::sa_response_header(tid)); };
  REQUIRE(table.start_send(peer(20), testing::sa_response_header(200), {}, 4).ok());
  CHECK(table.size() == 3);
  CHECK(table.evicted() == 1);
  CHECK(table.refused() == 0);
  CHECK(table.state(key(10, 100)) == TransferState::active);
  CHECK_FALSE(table.state(key(11, 101)));  // the oldest never acknowledged
  CHECK(table.state(key(12, 102)) == TransferState::active);
  REQUIRE(table.start_send(peer(21), testing::sa_response_header(201), {}, 5).ok());
  CHECK_FALSE(table.state(key(12, 102)));
  CHECK(table.state(key(10, 100)) == TransferState::active);
  CHECK(table.evicted() == 2);
  CHECK(table.cancel(key(21, 201)));
  CHECK_FALSE(table.cancel(key(21, 201)));
  CHECK(table.size() == 2);
}

TEST_CASE("sessions: a full table answers a new transfer with STOP resources_exhausted", "[rmpp][sessions]") {
  std::vector<MadPacket> out;
  RmppSessions table([&](const MadPacket& p) { out.push_back(p); }, small_table(2));
  const std::vector<uint8_t> data(1'000, 3);
  for (uint16_t i = 0; i < 3; ++i) {
    const auto seg1 = make_data_segment(testing::sa_response_header(50 + i), data, 1, Layout{});
    CHECK(table.handle(from(peer(30 + i), seg1), 0));
  }
  CHECK(table.size() == 2);
  CHECK(table.refused() == 1);
  REQUIRE(out.size() == 3);  // two ACKs and a STOP
  const auto r = rmpp_of(out.back());
  CHECK(r.type == wire::rmpp_type::stop);
  CHECK(r.status == st::resources_exhausted);
  CHECK(out.back().address.lid == Lid(32));
  CHECK(out.back().data[3] == wire::method::get_table);
}

TEST_CASE("sessions: unknown transfers: bad headers answered, strays dropped", "[rmpp][sessions]") {
  std::vector<MadPacket> out;
  RmppSessions table([&](const MadPacket& p) { out.push_back(p); }, small_table(4));
  const auto header = testing::sa_response_header(77);
  auto bad = make_control(header, {.type = wire::rmpp_type::ack}, true, Layout{});
  bad[24] = 3;
  CHECK(table.handle(from(peer(5), bad), 0));
  REQUIRE(out.size() == 1);
  CHECK(rmpp_of(out[0]).type == wire::rmpp_type::abort);
  CHECK(rmpp_of(out[0]).status == st::unsupported_version);
  // A stray ACK, a middle segment, an ABORT: nothing to do.
  CHECK(table.handle(from(peer(5), make_control(header, {.type = wire::rmpp_type::ack, .segment = 1, .new_window_last = 2},
                                                true, Layout{})),
                     0));
  CHECK(table.handle(from(peer(5), make_data_segment(header, std::vector<uint8_t>(900), 2, Layout{})), 0));
  CHECK(table.handle(from(peer(5), make_control(header, {.type = wire::rmpp_type::abort, .status = 118}, false, Layout{})), 0));
  CHECK(out.size() == 1);
  CHECK(table.size() == 0);
}

TEST_CASE("sessions: stale transfers time out, finished ones expire", "[rmpp][sessions]") {
  std::vector<MadPacket> out;
  RmppSessions table([&](const MadPacket& p) { out.push_back(p); }, small_table(8));
  // A sender nobody answers, a receiver whose sender vanished.
  REQUIRE(table.start_send(peer(2), testing::sa_response_header(1), std::vector<uint8_t>(300), 0).ok());
  table.handle(from(peer(3), make_data_segment(testing::sa_response_header(2), std::vector<uint8_t>(900), 1, Layout{})), 0);
  CHECK(table.size() == 2);
  Micros now = 0;
  for (int i = 0; i < 1'000 && table.next_deadline(); ++i) {
    now = *table.next_deadline();
    table.poll(now);
  }
  CHECK(table.size() == 0);
  CHECK(table.next_deadline() == std::nullopt);
  // The sender gave up after its retries, the receiver after its total time.
  int aborts_126 = 0, aborts_118 = 0;
  for (const auto& p : out) {
    const auto r = rmpp_of(p);
    if (r.type != wire::rmpp_type::abort) continue;
    aborts_126 += r.status == st::too_many_retries;
    aborts_118 += r.status == st::total_time_too_long;
  }
  CHECK(aborts_126 == 1);
  CHECK(aborts_118 == 1);
  CHECK(now < 100'000);
}

TEST_CASE("sessions: many transfers at once between two tables over a lossy link", "[rmpp][sessions]") {
  SessionsOptions o = small_table(64);
  o.sender.retries = 60;
  o.sender.total_timeout = Micros{1} << 40;
  o.receiver.total_timeout = Micros{1} << 40;
  LossyLink link({.drop = 100, .dup = 50, .reorder = 100}, 5);
  Micros now = 0;
  const MadAddress sa = peer(1), client = peer(40);
  RmppSessions sa_side([&](const MadPacket& p) { link.send(p, true, now); }, o);
  RmppSessions client_side([&](const MadPacket& p) { link.send(p, false, now); }, o);

  Prng prng(9);
  std::map<uint64_t, std::vector<uint8_t>> sent;
  for (uint64_t tid = 1; tid <= 40; ++tid) {
    sent[tid] = prng.bytes(prng.below(5'000));
    REQUIRE(sa_side.start_send(client, testing::sa_response_header(tid), sent[tid], now).ok());
  }
  std::map<uint64_t, Delivery> got;
  for (int step = 0; step < 1'000'000; ++step) {
    while (auto d = link.pop_due(now)) {
      // What one side sent arrives from its address at the other.
      if (d->to_b) client_side.handle(from(sa, d->packet.data), now);
      else sa_side.handle(from(client, d->packet.data), now);
    }
    sa_side.poll(now);
    client_side.poll(now);
    for (auto& delivery : client_side.take_deliveries()) got.emplace(delivery.key.tid, std::move(delivery));
    if (sa_side.active() == 0 && link.empty()) break;
    std::optional<Micros> next = link.next_time();
    for (auto d : {sa_side.next_deadline(), client_side.next_deadline()})
      if (d && (!next || *d < *next)) next = d;
    if (!next) break;
    now = std::max(now, *next);
  }
  REQUIRE(got.size() == sent.size());
  for (const auto& [tid, delivery] : got) {
    CAPTURE(tid);
    CHECK(delivery.data == sent[tid]);
    CHECK(delivery.peer.lid == sa.lid);
    CHECK(delivery.key.mgmt_class == wire::mgmt_class::subn_adm);
    REQUIRE(delivery.header.size() == 56);
    CHECK(delivery.header[3] == wire::method::get_table_resp);
    CHECK(sa_side.state(session_key(client, delivery.header)).value_or(TransferState::done) == TransferState::done);
  }
}

}  // namespace
}  // namespace ibsm::rmpp
