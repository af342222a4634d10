// The SA agent inside SimFabric for the agent tests: a swept fabric, the
// agent on the SM port (the dispatcher hands it every SA MAD), and a client
// port on the last CA that sends real SA MADs across the simulated switches.
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/sa_header.h"
#include "sa/agent.h"
#include "sa/client.h"
#include "tests/sa/sa_fixtures.h"

namespace ibsm::test {

// An SA request MAD built by hand (the client's bytes, no checks).
inline wire::MadBuffer sa_request_mad(uint8_t method, uint16_t attr, uint64_t mask = 0, uint64_t tid = 0x77,
                                      std::span<const uint8_t> data = {}) {
  wire::SaMad m;
  m.header.method = method;
  m.header.attr_id = attr;
  m.header.tid = tid;
  m.sa.component_mask = mask;
  std::copy(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(std::min(data.size(), m.data.size())),
            m.data.begin());
  wire::MadBuffer b{};
  wire::encode(m, b);
  return b;
}

inline constexpr uint64_t kSaBenchSmKey = 0x1122334455667788ULL;  // sa_options()' SM_Key

struct SaBench {
  SweepHarness h;
  std::shared_ptr<const sa::SaSnapshot> snapshot;
  std::unique_ptr<sa::SaAgent> agent;
  SimPort* client = nullptr;
  std::vector<MadPacket> sent_by_agent;
  size_t max_table = 0;  // the most RMPP transfers the agent ever held
  uint64_t next_tid = 0x5A000001;

  // The agent trusts requests with kSaBenchSmKey unless `options` names a key.
  explicit SaBench(Fabric f, sa::SaAgentOptions options = {}) : h(std::move(f)) {
    snapshot = std::make_shared<sa::SaSnapshot>(swept_snapshot(h));
    if (options.sm_key == 0) options.sm_key = kSaBenchSmKey;
    agent = std::make_unique<sa::SaAgent>(
        [this](const MadPacket& p) {
          sent_by_agent.push_back(p);
          REQUIRE(h.dispatcher().send_now(p).ok());
        },
        options);
    agent->set_snapshot(snapshot, h.sim().now());
    h.dispatcher().set_class_handler(wire::mgmt_class::subn_adm, [this](const MadPacket& p) {
      agent->handle(p, h.sim().now());
      max_table = std::max(max_table, agent->rmpp_sessions().size());
    });
    const Fabric& t = h.sim().topology();
    for (uint32_t i = t.node_count(); i-- > 0;)
      if (!t.node(NodeIndex{i}).is_switch()) {
        client = &h.sim().attach(NodeIndex{i}, 1);
        break;
      }
    REQUIRE(client != nullptr);
  }

  Lid sm_lid() const { return snapshot->sm_lid; }
  MadAddress sa() const { return sa::sa_address(sm_lid()); }

  void send(const wire::MadBuffer& mad) {
    MadPacket p;
    p.data = mad;
    p.address = sa();
    REQUIRE(client->send(p).ok());
  }
  // Runs the fabric for `span` of virtual time; the client's MADs go to `got`.
  void run(Micros span, std::vector<MadPacket>& got) {
    const Micros end = h.sim().now() + span;
    while (h.sim().now() < end) {
      h.dispatcher().poll();
      agent->poll(h.sim().now());
      while (auto q = client->receive()) got.push_back(*q);
      client->wait(200);
    }
  }
  // Sends raw bytes from the client and returns what comes back within 10 ms.
  std::vector<MadPacket> raw(const wire::MadBuffer& mad) {
    send(mad);
    std::vector<MadPacket> got;
    run(10'000, got);
    return got;
  }
  // One request through SaClientCall, the fabric run until it ends and a
  // little after (so the client's last ACK reaches the agent).
  Result<sa::SaAnswer> call(sa::SaRequest req, sa::SaClientOptions options = {}) {
    if (req.tid == 0) req.tid = next_tid++;
    sa::SaClientCall c([this](const MadPacket& p) { REQUIRE(client->send(p).ok()); }, sa(), std::move(req), options);
    c.start(h.sim().now());
    for (int i = 0; i < 100000 && !c.done(); ++i) {
      h.dispatcher().poll();
      agent->poll(h.sim().now());
      while (auto p = client->receive()) c.handle(*p, h.sim().now());
      c.poll(h.sim().now());
      if (!c.done()) client->wait(1000);
    }
    REQUIRE(c.done());
    std::vector<MadPacket> late;
    run(5'000, late);
    return c.result();
  }
};

}  // namespace ibsm::test
