#include "mad/rmpp/sender.h"

#include <catch2/catch.hpp>

#include "tests/mad/rmpp/rmpp_test_util.h"

namespace ibsm::rmpp {
namespace {

using testing::rmpp_of;

constexpr uint64_t kTid = 0x0000'0001'0000'0077;
const MadAddress kClient{.lid = Lid(9), .qp = 1, .qkey = wire::qp1_qkey};

struct Fixture {
  std::vector<MadPacket> out;
  SenderOptions options;
  std::unique_ptr<RmppSender> sender;
  wire::MadBuffer header = testing::sa_response_header(kTid);

  explicit Fixture(size_t bytes, SenderOptions o = {}) : options(o) {
    options.ack_timeout = 1'000;
    options.total_timeout = 1'000'000;
    std::vector<uint8_t> data(bytes);
    for (size_t i = 0; i < bytes; ++i) data[i] = static_cast<uint8_t>(i * 7);
    sender = std::make_unique<RmppSender>(kClient, header, std::move(data),
                                          [this](const MadPacket& p) { out.push_back(p); }, options);
    sender->start(0);
  }
  // A MAD from the receiver: method flipped, as Linux's ACKs.
  wire::MadBuffer from_receiver(uint8_t type, uint8_t status, uint32_t seg, uint32_t nwl) const {
    return make_control(header, {.type = type, .status = status, .segment = seg, .new_window_last = nwl}, true, Layout{});
  }
  void ack(uint32_t seg, uint32_t nwl, Micros now = 0) {
    sender->handle(from_receiver(wire::rmpp_type::ack, 0, seg, nwl), now);
  }
  std::vector<uint32_t> sent_segments() const {
    std::vector<uint32_t> v;
    for (const auto& p : out)
      if (rmpp_of(p).type == wire::rmpp_type::data) v.push_back(rmpp_of(p).segment_number());
    return v;
  }
  const MadPacket& last() const { return out.back(); }
};

TEST_CASE("sender: the window starts at one segment and follows NewWindowLast", "[rmpp][sender]") {
  Fixture f(2'000);  // 10 segments
  CHECK(f.sent_segments() == std::vector<uint32_t>{1});
  CHECK(f.out[0].address.lid == kClient.lid);
  CHECK(f.out[0].response_timeout_ms == 0);
  f.ack(1, 4);
  CHECK(f.sent_segments() == std::vector<uint32_t>{1, 2, 3, 4});
  f.ack(4, 10);
  CHECK(f.sent_segments().size() == 10);
  CHECK(f.sender->state() == TransferState::active);
  f.ack(10, 10);
  CHECK(f.sender->state() == TransferState::done);
  CHECK(f.sender->next_deadline() == std::nullopt);
  CHECK(f.out.size() == 10);  // no MAD after the final ACK
}

TEST_CASE("sender: a timeout resends the window from the last acknowledged segment", "[rmpp][sender]") {
  Fixture f(2'000);
  f.ack(1, 5);
  f.ack(3, 5);  // segments 4 and 5 lost
  f.out.clear();
  REQUIRE(f.sender->next_deadline());
  f.sender->poll(*f.sender->next_deadline() - 1);
  CHECK(f.out.empty());
  f.sender->poll(*f.sender->next_deadline());
  CHECK(f.sent_segments() == std::vector<uint32_t>{4, 5});
  CHECK(f.sender->resends() == 1);
}

TEST_CASE("sender: too many retries ends with ABORT too_many_retries", "[rmpp][sender]") {
  SenderOptions o;
  o.retries = 3;
  Fixture f(500, o);
  for (int i = 0; i < 10 && f.sender->state() == TransferState::active; ++i) f.sender->poll(*f.sender->next_deadline());
  CHECK(f.sender->state() == TransferState::aborted);
  CHECK(f.sender->abort_status() == wire::rmpp_status::too_many_retries);
  CHECK_FALSE(f.sender->aborted_by_peer());
  CHECK(f.sent_segments() == std::vector<uint32_t>{1, 1, 1, 1});  // first try + 3 retries
  const auto r = rmpp_of(f.last());
  CHECK(r.type == wire::rmpp_type::abort);
  CHECK(r.status == 126);
  CHECK(f.last().data[3] == wire::method::get_table_resp);
}

TEST_CASE("sender: progress restores the retry count", "[rmpp][sender]") {
  SenderOptions o;
  o.retries = 1;
  Fixture f(2'000, o);
  f.sender->poll(*f.sender->next_deadline());  // retry 1 of 1
  f.ack(1, 2);                                 // progress
  f.sender->poll(*f.sender->next_deadline());  // a retry again, not an abort
  CHECK(f.sender->state() == TransferState::active);
  f.sender->poll(*f.sender->next_deadline());
  CHECK(f.sender->state() == TransferState::aborted);
}

TEST_CASE("sender: ACK checks answer with ABORT and the matching status", "[rmpp][sender]") {
  struct Case {
    const char* what;
    uint8_t status;  // of the ACK
    uint32_t seg, nwl;
    uint8_t expected;
  };
  const Case cases[] = {
      {"NewWindowLast below SegmentNumber", 0, 1, 0, wire::rmpp_status::new_window_last_too_small},
      {"segment beyond the window", 0, 2, 5, wire::rmpp_status::segment_number_too_big},
      {"segment beyond the transfer", 0, 11, 20, wire::rmpp_status::segment_number_too_big},
      {"ACK with a status", 5, 1, 4, wire::rmpp_status::illegal_status},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    Fixture f(2'000);
    if (c.seg == 11) f.ack(1, 10);  // open the window so only the transfer's size is exceeded
    f.sender->handle(f.from_receiver(wire::rmpp_type::ack, c.status, c.seg, c.nwl), 0);
    CHECK(f.sender->state() == TransferState::aborted);
    CHECK(f.sender->abort_status() == c.expected);
    CHECK(rmpp_of(f.last()).type == wire::rmpp_type::abort);
    CHECK(rmpp_of(f.last()).status == c.expected);
  }
}

TEST_CASE("sender: stale and repeated ACKs are no news", "[rmpp][sender]") {
  Fixture f(2'000);
  f.ack(1, 5);
  f.ack(5, 9);
  const size_t before = f.out.size();
  const auto deadline = f.sender->next_deadline();
  f.ack(1, 5);  // overtaken on the wire
  f.ack(5, 9);  // repeated
  f.ack(5, 7);  // a smaller window for the same segment: stale
  CHECK(f.sender->state() == TransferState::active);
  CHECK(f.out.size() == before);
  CHECK(f.sender->next_deadline() == deadline);  // the ACK timer keeps running
  CHECK(f.sender->last_acked() == 5);
  CHECK(f.sender->window_last() == 9);
}

TEST_CASE("sender: STOP and ABORT from the receiver", "[rmpp][sender]") {
  SECTION("STOP resources_exhausted stops quietly") {
    Fixture f(2'000);
    const size_t before = f.out.size();
    f.sender->handle(f.from_receiver(wire::rmpp_type::stop, wire::rmpp_status::resources_exhausted, 0, 0), 0);
    CHECK(f.sender->state() == TransferState::aborted);
    CHECK(f.sender->aborted_by_peer());
    CHECK(f.sender->abort_status() == 1);
    CHECK(f.out.size() == before);
    f.sender->poll(1'000'000'000);
    CHECK(f.out.size() == before);
  }
  SECTION("STOP with another status is illegal") {
    Fixture f(2'000);
    f.sender->handle(f.from_receiver(wire::rmpp_type::stop, 7, 0, 0), 0);
    CHECK(f.sender->abort_status() == wire::rmpp_status::illegal_status);
    CHECK(rmpp_of(f.last()).type == wire::rmpp_type::abort);
  }
  SECTION("ABORT with an abort status ends the transfer") {
    Fixture f(2'000);
    f.sender->handle(f.from_receiver(wire::rmpp_type::abort, wire::rmpp_status::total_time_too_long, 0, 0), 0);
    CHECK(f.sender->aborted_by_peer());
    CHECK(f.sender->abort_status() == 118);
  }
  SECTION("ABORT with a status outside 118-127 is illegal") {
    Fixture f(2'000);
    f.sender->handle(f.from_receiver(wire::rmpp_type::abort, 3, 0, 0), 0);
    CHECK_FALSE(f.sender->aborted_by_peer());
    CHECK(f.sender->abort_status() == wire::rmpp_status::illegal_status);
  }
}

TEST_CASE("sender: bad version or type, other transfers, plain MADs", "[rmpp][sender]") {
  SECTION("version") {
    Fixture f(500);
    auto mad = f.from_receiver(wire::rmpp_type::ack, 0, 1, 2);
    mad[24] = 2;
    f.sender->handle(mad, 0);
    CHECK(f.sender->abort_status() == wire::rmpp_status::unsupported_version);
  }
  SECTION("type") {
    Fixture f(500);
    f.sender->handle(f.from_receiver(9, 0, 1, 2), 0);
    CHECK(f.sender->abort_status() == wire::rmpp_status::bad_rmpp_type);
  }
  SECTION("ignored") {
    Fixture f(500);
    auto other_tid = f.from_receiver(wire::rmpp_type::ack, 0, 1, 0);  // would be an error for us
    other_tid[15] ^= 1;
    f.sender->handle(other_tid, 0);
    auto inactive = f.from_receiver(wire::rmpp_type::ack, 0, 1, 0);
    inactive[26] &= 0xF8;
    f.sender->handle(inactive, 0);
    f.sender->handle(std::vector<uint8_t>(20, 0xFF), 0);  // short
    CHECK(f.sender->state() == TransferState::active);
    CHECK(f.out.size() == 1);
  }
}

TEST_CASE("sender: total time too long", "[rmpp][sender]") {
  SenderOptions o;
  o.retries = 1'000'000;
  Fixture f(500, o);
  while (f.sender->state() == TransferState::active) f.sender->poll(*f.sender->next_deadline());
  CHECK(f.sender->abort_status() == wire::rmpp_status::total_time_too_long);
}

}  // namespace
}  // namespace ibsm::rmpp
