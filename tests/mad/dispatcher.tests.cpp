#include "mad/dispatcher.h"

#include <catch2/catch.hpp>

#include <functional>
#include <set>
#include <vector>

#include "mad/wire/mad_header.h"

using namespace ibsm;

namespace {

// A transport that records what is sent and answers only what the test says.
class FakeTransport final : public Transport {
 public:
  explicit FakeTransport(ManualClock& clock) : clock_(clock) {}
  Status send(const MadPacket& p) override {
    sent.push_back(p);
    return {};
  }
  std::optional<MadPacket> receive() override {
    if (inbox.empty()) return std::nullopt;
    MadPacket p = inbox.front();
    inbox.erase(inbox.begin());
    return p;
  }
  void wait(Micros max_wait) override {
    ++waits;
    clock_.advance(max_wait);
  }
  LocalPortInfo local_port() const override { return {}; }

  // Answers the i-th sent MAD with GetResp, optionally overriding the TID's high half.
  void answer(size_t i, uint32_t high_tid = 0) {
    MadPacket r = sent.at(i);
    auto h = *wire::decode_mad_header(r.data);
    h.method = wire::method::get_resp;
    h.tid = (uint64_t{high_tid} << 32) | (h.tid & 0xffffffffu);
    wire::encode(h, r.data);
    inbox.push_back(r);
  }

  std::vector<MadPacket> sent;
  std::vector<MadPacket> inbox;
  int waits = 0;

 private:
  ManualClock& clock_;
};

MadPacket get_request(uint16_t attr) {
  MadPacket p;
  wire::MadHeader h;
  h.mgmt_class = wire::mgmt_class::subn_directed_route;
  h.class_version = 1;
  h.method = wire::method::get;
  h.attr_id = attr;
  wire::encode(h, p.data);
  return p;
}

}  // namespace

TEST_CASE("the dispatcher keeps at most a window of requests in flight", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, DispatcherOptions{.window = 3, .timeout = 1000, .retries = 0});
  int completed = 0;
  for (int i = 0; i < 10; ++i) d.submit(get_request(0x11), [&](Result<MadPacket> r) { completed += r.ok(); });
  d.poll();
  CHECK(t.sent.size() == 3);
  CHECK(d.in_flight() == 3);
  t.answer(0);
  d.poll();
  CHECK(completed == 1);
  CHECK(t.sent.size() == 4);
  for (size_t i = 1; i < 4; ++i) t.answer(i);
  d.poll();
  CHECK(completed == 4);
  CHECK(t.sent.size() == 7);
}

TEST_CASE("a sender can wait until few requests are queued", "[mad][dispatcher]") {
  // How a sweep that sends millions of SMPs keeps its queue (and memory)
  // small: it runs the dispatcher until the queue has drained below a bound.
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, {.window = 4, .timeout = 1000, .retries = 0});
  int done = 0;
  for (int i = 0; i < 100; ++i) d.submit(get_request(0x11), [&](Result<MadPacket>) { ++done; });
  CHECK(d.queued() == 100);
  d.run_until_queued_below(10);  // nobody answers: each window of 4 times out in turn
  CHECK(d.queued() < 10);
  CHECK(d.queued() >= 6);  // it stops once below the bound, not at idle
  CHECK(done + static_cast<int>(d.queued() + d.in_flight()) == 100);
  d.run_until_idle();
  CHECK(done == 100);
}

TEST_CASE("responses match on the low 32 bits of the transaction id", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock);
  std::optional<uint16_t> got;
  d.submit(get_request(0x15), [&](Result<MadPacket> r) {
    REQUIRE(r.ok());
    got = wire::decode_mad_header(r->data)->attr_id;
  });
  d.poll();
  t.answer(0, 0xdeadbeef);  // umad2sim and the kernel rewrite the high half
  d.poll();
  REQUIRE(got);
  CHECK(*got == 0x15);
  CHECK(d.stats().responses == 1);
  CHECK(d.idle());
}

TEST_CASE("a lost request is retried and then fails with a timeout", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, DispatcherOptions{.window = 4, .timeout = 500, .retries = 2});
  std::optional<Status> result;
  d.submit(get_request(0x11), [&](Result<MadPacket> r) { result = r.status(); });
  d.run_until_idle();
  REQUIRE(result);
  CHECK(result->code() == StatusCode::timeout);
  CHECK(t.sent.size() == 3);  // the first attempt and two retries
  CHECK(d.stats().retries == 2);
  CHECK(d.stats().timeouts == 1);
  CHECK(clock.now() >= 1500);
}

TEST_CASE("retries and timeouts are counted by class, method and attribute", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, DispatcherOptions{.window = 4, .timeout = 500, .retries = 2});
  d.submit(get_request(0x11), [](Result<MadPacket>) {});
  d.submit(get_request(0x15), [](Result<MadPacket>) {});
  d.poll();
  t.answer(1);  // PortInfo answered at once; NodeInfo never
  d.run_until_idle();
  const uint32_t node_info = DispatcherStats::kind_key(wire::mgmt_class::subn_directed_route, wire::method::get, 0x11);
  const uint32_t port_info = DispatcherStats::kind_key(wire::mgmt_class::subn_directed_route, wire::method::get, 0x15);
  CHECK(d.stats().sent_by_kind.at(node_info) == 3);
  CHECK(d.stats().retries_by_kind.at(node_info) == 2);
  CHECK(d.stats().timeouts_by_kind.at(node_info) == 1);
  CHECK(d.stats().sent_by_kind.at(port_info) == 1);
  CHECK(d.stats().retries_by_kind.count(port_info) == 0);
  CHECK(d.stats().timeouts_by_kind.count(port_info) == 0);
  CHECK(DispatcherStats::kind_class(node_info) == wire::mgmt_class::subn_directed_route);
  CHECK(DispatcherStats::kind_method(node_info) == wire::method::get);
  CHECK(DispatcherStats::kind_attr(node_info) == 0x11);
}

TEST_CASE("a retry answered late still completes once", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, DispatcherOptions{.window = 4, .timeout = 500, .retries = 2});
  int calls = 0;
  d.submit(get_request(0x11), [&](Result<MadPacket> r) { calls += r.ok() ? 1 : 100; });
  d.poll();
  clock.advance(600);
  d.poll();  // deadline passed: resent
  REQUIRE(t.sent.size() == 2);
  t.answer(0);  // the first attempt's answer arrives late
  t.answer(1);  // and the retry's too
  d.poll();
  CHECK(calls == 1);
  CHECK(d.stats().unmatched == 1);
  CHECK(d.idle());
}

TEST_CASE("unsolicited requests go to the request handler, garbage is counted", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock);
  int requests = 0;
  d.set_request_handler([&](const MadPacket&) { ++requests; });
  t.inbox.push_back(get_request(0x20));  // an SMInfo Get from another SM
  MadPacket junk;
  junk.data[0] = 7;  // base version 7: not a MAD we can read
  t.inbox.push_back(junk);
  d.poll();
  CHECK(requests == 1);
  CHECK(d.stats().malformed == 1);
  CHECK(d.stats().requests_in == 1);
}

TEST_CASE("a response to a different attribute is not taken as the answer", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock);
  bool done = false;
  d.submit(get_request(0x11), [&](Result<MadPacket>) { done = true; });
  d.poll();
  MadPacket r = t.sent[0];
  auto h = *wire::decode_mad_header(r.data);
  h.method = wire::method::get_resp;
  h.attr_id = 0x15;
  wire::encode(h, r.data);
  t.inbox.push_back(r);
  d.poll();
  CHECK_FALSE(done);
  CHECK(d.stats().unmatched == 1);
}

TEST_CASE("completions that submit more requests get their own answers from reused slots", "[mad][dispatcher]") {
  // Requests live in reused slots: a completion runs after its slot is
  // freed, so the requests it submits may take that slot (and grow the
  // pool) while each completion still sees its own request's answer.
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, {.window = 2, .timeout = 1000, .retries = 1});
  std::vector<uint16_t> answered;  // the attribute of each answer, in completion order
  std::function<void(uint16_t)> ask = [&](uint16_t attr) {
    d.submit(get_request(attr), [&, attr](Result<MadPacket> r) {
      REQUIRE(r.ok());
      answered.push_back(wire::decode_mad_header(r->data)->attr_id);
      CHECK(answered.back() == attr);
      if (attr < 0x18) {
        ask(static_cast<uint16_t>(attr + 2));  // two more from each of the first answers
        ask(static_cast<uint16_t>(attr + 3));
      }
    });
  };
  ask(0x10);
  ask(0x11);
  for (size_t next = 0; !d.idle(); d.poll()) {
    d.poll();
    while (next < t.sent.size()) t.answer(next++);
  }
  CHECK(d.stats().responses == answered.size());
  CHECK(answered.size() > 10);
  CHECK(d.stats().timeouts == 0);
  CHECK(d.stats().sent_by_kind.size() == std::set<uint16_t>(answered.begin(), answered.end()).size());
}

TEST_CASE("a request still retrying keeps its tid while thousands more come and go", "[mad][dispatcher]") {
  // TIDs live in a table where TID t sits at t mod 2^k; a new request must
  // never take the TID, nor the entry, of one still in flight, and the
  // deadlines answered requests leave behind must not hide the live one's.
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, DispatcherOptions{.window = 16, .timeout = 1000, .retries = 1});
  std::optional<Status> lost;
  d.submit(get_request(0x11), [&](Result<MadPacket> r) { lost = r.status(); });
  d.poll();
  REQUIRE(t.sent.size() == 1);
  const auto lost_tid = static_cast<uint32_t>(wire::decode_mad_header(t.sent[0].data)->tid);
  int answered = 0;
  std::set<uint32_t> tids;
  for (int i = 0; i < 5000; ++i) {
    d.submit(get_request(0x15), [&](Result<MadPacket> r) { answered += r.ok() ? 1 : 0; });
    d.poll();
    const auto tid = static_cast<uint32_t>(wire::decode_mad_header(t.sent.back().data)->tid);
    CHECK(tid != lost_tid);
    tids.insert(tid);
    t.answer(t.sent.size() - 1);
    d.poll();
  }
  CHECK(answered == 5000);
  CHECK(d.in_flight() == 1);
  CHECK_FALSE(lost);
  // Its deadline, and then its retry's, still come.
  d.run_until_idle();
  REQUIRE(lost);
  CHECK(lost->code() == StatusCode::timeout);
  CHECK(clock.now() == 2000);
  CHECK(static_cast<uint32_t>(wire::decode_mad_header(t.sent.back().data)->tid) == lost_tid);
  CHECK(d.stats().retries == 1);
}

TEST_CASE("a window widened while requests are in flight still matches every answer", "[mad][dispatcher]") {
  ManualClock clock;
  FakeTransport t(clock);
  MadDispatcher d(t, clock, DispatcherOptions{.window = 4, .timeout = 1000, .retries = 0});
  int answered = 0;
  for (int i = 0; i < 4; ++i) d.submit(get_request(0x15), [&](Result<MadPacket> r) { answered += r.ok() ? 1 : 0; });
  d.poll();
  REQUIRE(d.in_flight() == 4);
  d.set_options(DispatcherOptions{.window = 200, .timeout = 1000, .retries = 0});
  for (int i = 0; i < 196; ++i) d.submit(get_request(0x15), [&](Result<MadPacket> r) { answered += r.ok() ? 1 : 0; });
  d.poll();
  REQUIRE(d.in_flight() == 200);
  for (size_t i = t.sent.size(); i-- > 0;) t.answer(i);  // in reverse order
  d.poll();
  CHECK(answered == 200);
  CHECK(d.idle());
  CHECK(d.stats().unmatched == 0);
}
