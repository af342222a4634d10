// Sender and receiver back to back, over a clean link and over a link that
// drops, duplicates and reorders segments and ACKs alike.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "mad/rmpp/receiver.h"
#include "mad/rmpp/sender.h"
#include "tests/mad/rmpp/rmpp_test_util.h"

namespace ibsm::rmpp {
namespace {

using testing::LinkFaults;
using testing::LossyLink;
using testing::Prng;

struct Outcome {
  TransferState sender = TransferState::active;
  TransferState receiver = TransferState::active;
  std::vector<uint8_t> received;
  uint64_t segments_sent = 0;
  uint64_t resends = 0;
  uint64_t acks = 0;
  Micros elapsed = 0;
};

Outcome transfer(const std::vector<uint8_t>& data, uint32_t window, LinkFaults faults, uint64_t seed) {
  LossyLink link(faults, seed);
  Micros now = 0;
  const MadAddress sa_addr{.lid = Lid(1), .qp = 1, .qkey = wire::qp1_qkey};
  const MadAddress client_addr{.lid = Lid(7), .qp = 1, .qkey = wire::qp1_qkey};
  SenderOptions so;
  so.ack_timeout = 1'000;
  so.retries = 60;  // a lossy link loses whole windows now and then
  so.total_timeout = Micros{1} << 50;
  ReceiverOptions ro;
  ro.window = window;
  ro.total_timeout = Micros{1} << 50;

  RmppSender sender(client_addr, testing::sa_response_header(0xAA00'0000'0000'0042), data,
                    [&](const MadPacket& p) { link.send(p, true, now); }, so);
  RmppReceiver receiver(sa_addr, [&](const MadPacket& p) { link.send(p, false, now); }, now, ro);
  sender.start(now);

  for (int steps = 0; steps < 5'000'000; ++steps) {
    while (auto d = link.pop_due(now)) {
      if (d->to_b) receiver.handle(d->packet.data, now);
      else sender.handle(d->packet.data, now);
    }
    sender.poll(now);
    receiver.poll(now);
    if (sender.state() != TransferState::active && link.empty()) break;
    std::optional<Micros> next = link.next_time();
    for (auto d : {sender.next_deadline(), receiver.next_deadline()})
      if (d && (!next || *d < *next)) next = d;
    if (!next) break;
    now = std::max(now, *next);
  }
  return {sender.state(), receiver.state(), receiver.data(), sender.segments_sent(), sender.resends(),
          receiver.acks_sent(), now};
}

TEST_CASE("clean link: every payload size and window arrives whole, no resends", "[rmpp][transfer]") {
  Prng prng(1);
  for (size_t size : {0, 1, 199, 200, 201, 10'000, 200'000}) {
    const auto data = prng.bytes(size);
    for (uint32_t window : {1u, 4u, 32u}) {
      CAPTURE(size, window);
      const Outcome o = transfer(data, window, {}, 11);
      CHECK(o.sender == TransferState::done);
      CHECK(o.receiver == TransferState::done);
      CHECK(o.received == data);
      const uint32_t n = segment_count(size, Layout{});
      CHECK(o.segments_sent == n);
      CHECK(o.resends == 0);
      // ACKs: segment 1, every window end after it, and the last segment.
      uint64_t acks = 1;
      for (uint64_t end = 1 + window; end < n; end += window) ++acks;
      if (n > 1) ++acks;
      CHECK(o.acks == acks);
    }
  }
}

TEST_CASE("lossy link: drops, duplicates and reordering in both directions", "[rmpp][transfer]") {
  Prng prng(2);
  const LinkFaults faults{.drop = 100, .dup = 50, .reorder = 100};
  uint64_t seed = 100;
  uint64_t resends = 0, sent = 0, needed = 0;
  for (size_t size : {0, 1, 199, 200, 201, 10'000, 200'000}) {
    const auto data = prng.bytes(size);
    for (uint32_t window : {1u, 4u, 32u}) {
      CAPTURE(size, window, seed);
      const Outcome o = transfer(data, window, faults, seed++);
      CHECK(o.sender == TransferState::done);
      CHECK(o.receiver == TransferState::done);
      CHECK(o.received == data);
      resends += o.resends;
      sent += o.segments_sent;
      needed += segment_count(size, Layout{});
    }
  }
  // The faults did bite: windows were resent.
  CHECK(resends > 100);
  CHECK(sent > needed + needed / 20);
}

TEST_CASE("a very lossy link still delivers, with resends", "[rmpp][transfer]") {
  Prng prng(3);
  const auto data = prng.bytes(20'000);
  uint64_t total_resends = 0;
  for (uint64_t seed = 0; seed < 10; ++seed) {
    CAPTURE(seed);
    const Outcome o = transfer(data, 8, {.drop = 300, .dup = 100, .reorder = 300}, seed);
    CHECK(o.sender == TransferState::done);
    CHECK(o.received == data);
    total_resends += o.resends;
  }
  CHECK(total_resends > 0);
}

}  // namespace
}  // namespace ibsm::rmpp
