// Sends directed-route SMP Gets and Sets through the dispatcher and hands
// each good answer's payload on; a failure (no answer, an unreadable answer,
// an error status) goes to one handler with what was asked and where, so one
// bad node never stops a sweep. Shared by the heavy and the light sweep.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mad/base/small_callback.h"
#include "mad/base/types.h"
#include "mad/dispatcher.h"
#include "mad/wire/constants.h"
#include "mad/wire/smp.h"
#include "sm/fabric/m_keys.h"

namespace ibsm {

// What an SMP asks, for the failure handler: readable, and the node and
// port it concerns when the caller knows them (a sweep problem names them).
// A sweep sends millions of SMPs and few fail, so the text can also be a
// pattern rendered only when it is read: `pattern` takes {0} = `number` (a
// block, a port) and {1} = the node's GUID.
struct SmpSubject {
  Guid node;
  std::optional<PortNum> port;

  SmpSubject(std::string what) : text_(std::move(what)) {}  // NOLINT: a plain description converts
  SmpSubject(std::string what, Guid n, std::optional<PortNum> p = {}) : node(n), port(p), text_(std::move(what)) {}
  // `pattern` must outlive the SMP (a string literal).
  static SmpSubject lazy(const char* pattern, uint32_t number, Guid n, std::optional<PortNum> p = {}) {
    SmpSubject s(std::string(), n, p);
    s.pattern_ = pattern;
    s.number_ = number;
    return s;
  }
  std::string text() const;

 private:
  std::string text_;
  const char* pattern_ = nullptr;
  uint32_t number_ = 0;
};

// Why an SMP failed: no answer at all (every attempt timed out: the node or
// the path is silent), or an answer that was unreadable or had an error status.
struct SmpFailure {
  bool answered = false;
  std::string why;
};

class SmpIssuer {
 public:
  using OnData = std::function<void(std::span<const uint8_t>)>;
  // (what was asked, where, why it failed)
  using OnFailure = std::function<void(const SmpSubject&, const DrPath&, const SmpFailure&)>;
  // What one request undoes when it fails, after the handler: memory of
  // what a switch holds that the failed Set (or Get) leaves unknown. Sent
  // with every LFT block, its capture (the sweep, a GUID, a node) is kept
  // inline, not allocated per SMP (mad/base/small_callback.h).
  using OnFailed = SmallCallback;

  SmpIssuer(MadDispatcher& d, OnFailure on_failure) : d_(d), on_failure_(std::move(on_failure)) {}

  // Attempts and timeout for the SMPs sent from now on (the dispatcher's by default).
  void set_request_options(RequestOptions options) { options_ = options; }
  // The M_Key every SMP carries, by its path (IBA 14.2.4; sm/fabric/m_keys.h).
  // An SMP to a path refused there is not sent at all: its OnFailed runs, the
  // failure handler does not (the refusal is reported once, where it was
  // found). Null: every SMP carries 0. `keys` must outlive the sends.
  void set_m_keys(const MKeyPaths* keys) { m_keys_ = keys; }

  template <typename Attr>
  void set(const DrPath& path, uint16_t attr_id, uint32_t mod, const Attr& value, SmpSubject what, OnData ok = {},
           OnFailed failed = {}) {
    std::array<uint8_t, wire::smp_data_size> payload{};
    // Unqualified: found by argument-dependent lookup where the template is
    // used, so Attr's encode need not be declared before this header.
    encode(value, payload);
    send(wire::method::set, path, attr_id, mod, payload, std::move(what), std::move(ok), std::move(failed));
  }
  void get(const DrPath& path, uint16_t attr_id, uint32_t mod, SmpSubject what, OnData ok, OnFailed failed = {}) {
    send(wire::method::get, path, attr_id, mod, {}, std::move(what), std::move(ok), std::move(failed));
  }
  // A Get whose data carries `payload` (an SMInfo Get carries the requester's SMInfo).
  void get(const DrPath& path, uint16_t attr_id, uint32_t mod, std::span<const uint8_t> payload, SmpSubject what,
           OnData ok) {
    send(wire::method::get, path, attr_id, mod, payload, std::move(what), std::move(ok));
  }
  // At most `n` SMPs wait in the dispatcher's queue (0: no bound): a send
  // that finds the queue full first runs the dispatcher until half of it has
  // gone out, so answers (and their handlers) may come while the caller is
  // still sending. A sweep that sends a whole fabric's LFT blocks (2.3M on
  // 42k LIDs, some 600 bytes each while queued) then holds a few thousand.
  void set_queue_limit(size_t n) { queue_limit_ = n; }
  // Waits until every SMP sent is answered or has failed.
  void run() { d_.run_until_idle(); }

 private:
  void send(uint8_t method, const DrPath& path, uint16_t attr_id, uint32_t mod, std::span<const uint8_t> payload,
            SmpSubject what, OnData ok, OnFailed failed = {});

  // What a request in flight needs when its answer comes, in reused slots:
  // the completion handed to the dispatcher then holds only the slot's
  // number and fits std::function without an allocation (a capture of all
  // of it cost a malloc per SMP).
  struct InFlight {
    SmpSubject what;
    OnData ok;
    OnFailed failed;
    DrPath path;
  };
  void complete(uint32_t slot, const Result<MadPacket>& r);
  // Frees a slot whose request is done (its handlers taken or dropped).
  void release(uint32_t slot);

  MadDispatcher& d_;
  OnFailure on_failure_;
  std::vector<InFlight> in_flight_;
  MadPacket packet_;  // the SMP being sent, built in place
  std::vector<uint32_t> free_slots_;
  RequestOptions options_;
  size_t queue_limit_ = 0;
  const MKeyPaths* m_keys_ = nullptr;
};

}  // namespace ibsm
