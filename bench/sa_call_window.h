// The load clients' engine (bench/sa_load.cpp, bench/mc_join_load.cpp): keeps
// up to `inflight` SA calls in flight on one umad port, each matched to its
// answers by the low 32 bits of its TID (ibsim owns the top half), until
// `next` has no more requests and every call is done. Not part of ibsm.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>

#include "mad/base/clock.h"
#include "mad/umad/umad_transport.h"
#include "mad/wire/mad_header.h"
#include "sa/client.h"

namespace ibsm::bench {

struct CallCounts {
  uint64_t answered = 0;  // status 0
  uint64_t errors = 0;    // answered with an error status
  uint64_t timeouts = 0;  // no answer within the client's timeout and retries
};

// `next()` returns the next request to send, or nullopt when there is none
// (for now: it is asked again as calls finish). TIDs start at `first_tid`.
template <typename Next>
CallCounts run_call_window(UmadTransport& port, const Clock& clock, const MadAddress& sa,
                           const sa::SaClientOptions& options, size_t inflight, uint32_t first_tid, Next&& next) {
  auto sink = [&port](const MadPacket& p) { (void)port.send(p); };
  std::map<uint32_t, std::unique_ptr<sa::SaClientCall>> calls;
  uint32_t next_tid = first_tid;
  CallCounts counts;
  while (true) {
    while (calls.size() < inflight) {
      std::optional<sa::SaRequest> req = next();
      if (!req) break;
      const uint32_t tid = next_tid++;
      req->tid = tid;
      auto c = std::make_unique<sa::SaClientCall>(sink, sa, std::move(*req), options);
      c->start(clock.now());
      calls[tid] = std::move(c);
    }
    if (calls.empty()) break;
    port.wait(1'000);
    while (auto p = port.receive()) {
      const uint32_t tid =
          static_cast<uint32_t>(wire::get_field(p->data, wire::mad_fields::transaction_id) & 0xFFFFFFFFu);
      if (auto it = calls.find(tid); it != calls.end()) it->second->handle(*p, clock.now());
    }
    for (auto it = calls.begin(); it != calls.end();) {
      sa::SaClientCall& c = *it->second;
      if (!c.done()) c.poll(clock.now());
      if (!c.done()) {
        ++it;
        continue;
      }
      if (!c.result().ok()) ++counts.timeouts;
      else if (c.result()->status == 0) ++counts.answered;
      else ++counts.errors;
      it = calls.erase(it);
    }
  }
  return counts;
}

}  // namespace ibsm::bench
