#include "mad/rmpp/receiver.h"

#include <catch2/catch.hpp>

#include "tests/mad/rmpp/rmpp_test_util.h"

namespace ibsm::rmpp {
namespace {

using testing::Prng;
using testing::rmpp_of;

constexpr uint64_t kReceiverTid = 0x0000'0002'0000'0010;
const MadAddress kSa{.lid = Lid(1), .qp = 1, .qkey = wire::qp1_qkey};
namespace st = wire::rmpp_status;

struct ReceiverFixture {
  std::vector<MadPacket> out;
  ReceiverOptions options;
  std::unique_ptr<RmppReceiver> receiver;
  wire::MadBuffer header = testing::sa_response_header(kReceiverTid);
  std::vector<uint8_t> data;
  std::vector<wire::MadBuffer> segments;

  explicit ReceiverFixture(size_t bytes, uint32_t window = 4, ReceiverOptions o = {}) : options(o) {
    options.window = window;
    options.total_timeout = 100'000;
    Prng prng(bytes);
    data = prng.bytes(bytes);
    for (uint32_t s = 1; s <= segment_count(bytes, Layout{}); ++s) segments.push_back(make_data_segment(header, data, s, Layout{}));
    receiver = std::make_unique<RmppReceiver>(kSa, [this](const MadPacket& p) { out.push_back(p); }, 0, options);
  }
  void feed(uint32_t seg) { receiver->handle(segments.at(seg - 1), 0); }
  void feed(const wire::MadBuffer& m) { receiver->handle(m, 0); }
  wire::MadBuffer segment_with(uint32_t seg, auto&& change) {
    wire::MadBuffer m = segments.at(seg - 1);
    auto r = rmpp_of(m);
    change(r);
    wire::encode(r, m);
    return m;
  }
  wire::RmppHeader last() const { return rmpp_of(out.back()); }
};

TEST_CASE("receiver: ACKs segment 1, each window end and the last segment", "[rmpp][receiver]") {
  ReceiverFixture f(2'000, 4);  // 10 segments
  f.feed(1);
  REQUIRE(f.out.size() == 1);
  CHECK(f.last().type == wire::rmpp_type::ack);
  CHECK(f.last().segment_number() == 1);
  CHECK(f.last().new_window_last() == 5);
  CHECK(f.last().resp_time == no_resp_time);
  CHECK(f.out[0].data[3] == wire::method::get_table);  // method flipped, as Linux's ACKs
  CHECK(f.out[0].address.lid == kSa.lid);
  for (uint32_t s = 2; s <= 4; ++s) f.feed(s);
  CHECK(f.out.size() == 1);  // no ACK inside the window
  f.feed(5);
  CHECK(f.last().segment_number() == 5);
  CHECK(f.last().new_window_last() == 9);
  for (uint32_t s = 6; s <= 10; ++s) f.feed(s);
  CHECK(f.receiver->state() == TransferState::done);
  CHECK(f.last().segment_number() == 10);
  CHECK(f.receiver->data() == f.data);
  const auto h = f.receiver->header();
  REQUIRE(h.size() == 56);
  CHECK(std::equal(h.begin(), h.begin() + 24, f.header.begin()));       // common header
  CHECK(std::equal(h.begin() + 36, h.end(), f.header.begin() + 36));     // SA header
}

TEST_CASE("receiver: a single segment is ACKed with window 1, like Linux", "[rmpp][receiver]") {
  ReceiverFixture f(37);
  f.feed(1);
  CHECK(f.receiver->state() == TransferState::done);
  CHECK(f.last().segment_number() == 1);
  CHECK(f.last().new_window_last() == 1);
  CHECK(f.receiver->data() == f.data);
}

TEST_CASE("receiver: duplicates and out-of-order segments re-ACK the last in-order one", "[rmpp][receiver]") {
  ReceiverFixture f(2'000, 4);
  f.feed(1);
  f.feed(2);
  f.feed(4);  // 3 lost
  CHECK(f.last().segment_number() == 2);
  CHECK(f.last().new_window_last() == 5);
  f.feed(2);  // duplicate
  CHECK(f.last().segment_number() == 2);
  f.feed(9);  // beyond the window
  CHECK(f.last().segment_number() == 2);
  CHECK(f.receiver->expected_segment() == 3);
  for (uint32_t s = 3; s <= 10; ++s) f.feed(s);
  CHECK(f.receiver->state() == TransferState::done);
  CHECK(f.receiver->data() == f.data);
  // A resent last segment after completion: ACKed again.
  const size_t before = f.out.size();
  f.feed(10);
  CHECK(f.out.size() == before + 1);
  CHECK(f.last().segment_number() == 10);
}

TEST_CASE("receiver: segments before segment 1 are dropped quietly", "[rmpp][receiver]") {
  ReceiverFixture f(2'000);
  f.feed(3);
  f.feed(2);
  CHECK(f.out.empty());
  CHECK(f.receiver->state() == TransferState::active);
  f.feed(1);
  CHECK(f.last().segment_number() == 1);
}

TEST_CASE("receiver: inconsistent headers are ABORTed with the matching status", "[rmpp][receiver]") {
  struct Case {
    const char* what;
    uint32_t before;  // segments fed in order first
    uint32_t seg;     // then this one, changed
    std::function<void(wire::RmppHeader&)> change;
    uint8_t type, status;
  };
  const Case cases[] = {
      {"segment 1 without First", 0, 1, [](auto& r) { r.flags &= ~wire::rmpp_flag::first; }, wire::rmpp_type::abort,
       st::inconsistent_first_and_segment_number},
      {"First on segment 3", 2, 3, [](auto& r) { r.flags |= wire::rmpp_flag::first; }, wire::rmpp_type::abort,
       st::inconsistent_first_and_segment_number},
      {"Last before the announced end", 2, 3, [](auto& r) { r.flags |= wire::rmpp_flag::last; r.data2 = 220; },
       wire::rmpp_type::abort, st::inconsistent_last_and_payload_length},
      {"last PayloadLength not what segment 1 announced", 9, 10, [](auto& r) { r.data2 = 100; }, wire::rmpp_type::abort,
       st::inconsistent_last_and_payload_length},
      {"last PayloadLength beyond a segment", 9, 10, [](auto& r) { r.data2 = 221; }, wire::rmpp_type::abort,
       st::inconsistent_last_and_payload_length},
      {"no Last where segment 1 said the end is", 9, 10, [](auto& r) { r.flags &= ~wire::rmpp_flag::last; },
       wire::rmpp_type::abort, st::inconsistent_last_and_payload_length},
      {"first PayloadLength of one segment without Last", 0, 1, [](auto& r) { r.data2 = 200; }, wire::rmpp_type::abort,
       st::inconsistent_last_and_payload_length},
      {"DATA with a status", 1, 2, [](auto& r) { r.status = 5; }, wire::rmpp_type::abort, st::illegal_status},
      {"RMPP version 2", 1, 2, [](auto& r) { r.version = 2; }, wire::rmpp_type::abort, st::unsupported_version},
      {"RMPP type 7", 1, 2, [](auto& r) { r.type = 7; }, wire::rmpp_type::abort, st::bad_rmpp_type},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    ReceiverFixture f(2'000);
    for (uint32_t s = 1; s <= c.before; ++s) f.feed(s);
    f.feed(f.segment_with(c.seg, c.change));
    CHECK(f.receiver->state() == TransferState::aborted);
    CHECK(f.receiver->abort_status() == c.status);
    CHECK(f.last().type == c.type);
    CHECK(f.last().status == c.status);
    CHECK(f.out.back().data[3] == wire::method::get_table);
    // Aborted means over: nothing more comes out.
    const size_t before = f.out.size();
    f.feed(c.seg);
    f.receiver->poll(1'000'000'000);
    CHECK(f.out.size() == before);
  }
}

TEST_CASE("receiver: the sender's ABORT ends the transfer quietly", "[rmpp][receiver]") {
  ReceiverFixture f(2'000);
  f.feed(1);
  f.feed(make_control(f.header, {.type = wire::rmpp_type::abort, .status = st::too_many_retries}, false, Layout{}));
  CHECK(f.receiver->state() == TransferState::aborted);
  CHECK(f.receiver->aborted_by_peer());
  CHECK(f.receiver->abort_status() == st::too_many_retries);
  CHECK(f.out.size() == 1);
}

TEST_CASE("receiver: total time too long", "[rmpp][receiver]") {
  ReceiverFixture f(2'000);
  f.feed(1);
  f.receiver->poll(99'999);
  CHECK(f.receiver->state() == TransferState::active);
  f.receiver->poll(100'000);
  CHECK(f.receiver->abort_status() == st::total_time_too_long);
  CHECK(f.last().type == wire::rmpp_type::abort);
  CHECK(f.last().status == st::total_time_too_long);
}

TEST_CASE("receiver: too much data is refused with STOP resources_exhausted", "[rmpp][receiver]") {
  SECTION("announced in segment 1") {
    ReceiverOptions o;
    o.max_data_bytes = 1'000;
    ReceiverFixture f(2'000, 4, o);
    f.feed(1);
    CHECK(f.last().type == wire::rmpp_type::stop);
    CHECK(f.last().status == st::resources_exhausted);
    CHECK(f.receiver->state() == TransferState::aborted);
  }
  SECTION("not announced, reached") {
    ReceiverOptions o;
    o.max_data_bytes = 1'000;
    ReceiverFixture f(2'000, 32, o);
    f.feed(f.segment_with(1, [](auto& r) { r.data2 = 0; }));
    for (uint32_t s = 2; s <= 10 && f.receiver->state() == TransferState::active; ++s) f.feed(s);
    CHECK(f.last().type == wire::rmpp_type::stop);
    CHECK(f.receiver->data().size() <= 1'000);
  }
}

// Random sequences of valid, repeated, reordered, corrupted and foreign MADs:
// the receiver must answer each with at most one well-formed MAD, never move
// its ACK backwards, stay silent once aborted, and deliver the original data
// whenever it completes on unaltered segments.
TEST_CASE("receiver fuzz: random sequences", "[rmpp][receiver][fuzz]") {
  Prng prng(0xF00D);
  int completed = 0, aborted = 0;
  for (int round = 0; round < 2'000; ++round) {
    CAPTURE(round);
    const size_t bytes = prng.below(1'500);
    ReceiverFixture f(bytes, 1 + static_cast<uint32_t>(prng.below(5)));
    const uint32_t n = static_cast<uint32_t>(f.segments.size());
    bool altered = false;
    uint32_t last_ack_seg = 0, last_nwl = 0;
    Micros now = 0;
    const int length = 1 + static_cast<int>(prng.below(40));
    for (int i = 0; i < length; ++i) {
      const size_t before = f.out.size();
      const TransferState state_before = f.receiver->state();
      wire::MadBuffer m = f.segments[prng.below(n)];
      // Bias towards the next expected segment so transfers complete sometimes.
      if (prng.chance(500) && f.receiver->expected_segment() <= n) m = f.segments[f.receiver->expected_segment() - 1];
      const uint64_t kind = prng.below(100);
      if (kind < 8) {
        auto r = rmpp_of(m);
        switch (prng.below(7)) {
          case 0: r.version = static_cast<uint8_t>(prng.below(4)); break;
          case 1: r.type = static_cast<uint8_t>(prng.below(8)); break;
          case 2: r.flags = static_cast<uint8_t>(prng.below(8)); break;
          case 3: r.status = static_cast<uint8_t>(prng.below(256)); break;
          case 4: r.data1 = static_cast<uint32_t>(prng.below(n + 3)); break;
          case 5: r.data2 = static_cast<uint32_t>(prng.next()); break;
          default: r.data2 = static_cast<uint32_t>(prng.below(300)); break;
        }
        wire::encode(r, m);
        altered = true;
      } else if (kind < 11) {
        const auto junk = prng.bytes(wire::mad_size);
        std::copy(junk.begin(), junk.end(), m.begin());
        m[26] |= wire::rmpp_flag::active;
        altered = true;
      } else if (kind < 13) {
        m[15] ^= 0x40;  // another transfer's TID
      }
      if (prng.chance(30)) now += static_cast<Micros>(prng.below(60'000));
      f.receiver->handle(m, now);
      f.receiver->poll(now);
      REQUIRE(f.out.size() <= before + 1);
      if (state_before == TransferState::aborted) REQUIRE(f.out.size() == before);
      if (f.out.size() == before + 1) {
        const auto& p = f.out.back();
        const auto r = rmpp_of(p);
        REQUIRE(r.active());
        REQUIRE(r.version == wire::rmpp_version);
        REQUIRE(p.address.lid == kSa.lid);
        if (r.type == wire::rmpp_type::ack) {
          REQUIRE(r.status == 0);
          REQUIRE(r.new_window_last() >= r.segment_number());
          REQUIRE(r.segment_number() <= n);
          if (!altered) {
            REQUIRE(r.segment_number() >= last_ack_seg);
            REQUIRE(r.new_window_last() >= last_nwl);
          }
          last_ack_seg = std::max(last_ack_seg, r.segment_number());
          last_nwl = std::max(last_nwl, r.new_window_last());
        } else if (r.type == wire::rmpp_type::abort) {
          REQUIRE(is_abort_status(r.status));
          REQUIRE(f.receiver->state() == TransferState::aborted);
        } else {
          REQUIRE(r.type == wire::rmpp_type::stop);
          REQUIRE(r.status == st::resources_exhausted);
        }
      }
    }
    if (f.receiver->state() == TransferState::done) {
      ++completed;
      if (!altered) REQUIRE(f.receiver->data() == f.data);
      REQUIRE(f.receiver->data().size() <= n * Layout{}.segment_data());
    }
    if (f.receiver->state() == TransferState::aborted) ++aborted;
  }
  // The generator reaches both ends.
  CHECK(completed > 100);
  CHECK(aborted > 100);
}

}  // namespace
}  // namespace ibsm::rmpp
