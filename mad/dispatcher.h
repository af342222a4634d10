// The MAD dispatcher: the core's side of every MAD exchange. It owns
// transaction IDs, the window of outstanding requests, timeouts and retries,
// so the transports stay thin and the same logic runs on umad and SimFabric.
// Single-threaded: the owner calls poll() (or run_until_idle()) in its loop.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/transport.h"

namespace ibsm {

struct DispatcherOptions {
  // Requests in flight at once. 16 measured best on ibsim discovery of large
  // fabrics (see bench/); OpenSM's default max_wire_smps is 4.
  int window = 16;
  Micros timeout = 200'000;  // per attempt; OpenSM's transaction_timeout is 200 ms
  int retries = 3;           // further attempts after the first
};

struct DispatcherStats {
  uint64_t sent = 0;          // MADs handed to the transport, retries included
  uint64_t retries = 0;
  uint64_t responses = 0;     // matched to a request
  uint64_t timeouts = 0;      // requests that ran out of attempts
  uint64_t unmatched = 0;     // responses for no request of ours (late, duplicate)
  uint64_t malformed = 0;     // received MADs dropped as unreadable
  uint64_t requests_in = 0;   // unsolicited requests passed to the handler
  uint64_t send_errors = 0;
  // The longest the queue of requests not yet sent grew: how many a sender
  // let wait here (each holds its built MAD; a sender of very many bounds it).
  size_t most_queued = 0;
  // Sent requests by (management class, method, attribute): counts that do not
  // depend on machine noise, for benchmarks.
  std::map<uint32_t, uint64_t> sent_by_kind;
  // Of those, the resends, and the requests that ran out of attempts, by the
  // same key: which attribute goes unanswered (the metrics export them).
  std::map<uint32_t, uint64_t> retries_by_kind;
  std::map<uint32_t, uint64_t> timeouts_by_kind;
  static uint32_t kind_key(uint8_t mgmt_class, uint8_t method, uint16_t attr) {
    return (uint32_t{mgmt_class} << 24) | (uint32_t{method} << 16) | attr;
  }
  static uint8_t kind_class(uint32_t key) { return static_cast<uint8_t>(key >> 24); }
  static uint8_t kind_method(uint32_t key) { return static_cast<uint8_t>(key >> 16); }
  static uint16_t kind_attr(uint32_t key) { return static_cast<uint16_t>(key); }
};

// What one request may change of the dispatcher's defaults: the standby's
// SMInfo polls are single attempts, because the poller counts failures itself
// (OpenSM's polling_retry_number) and a dispatcher retry would hide one.
struct RequestOptions {
  int retries = -1;     // further attempts after the first; -1: the dispatcher's
  Micros timeout = 0;   // per attempt; 0: the dispatcher's
};

class MadDispatcher {
 public:
  // Called once per request: the response, or the error that ended it
  // (timeout after all retries, or a transport failure). Handed over as an
  // rvalue: a handler that takes the Result by value gets it moved in, one
  // that takes `Result<MadPacket>&&` reads it where it lies (a by-value
  // signature here copied the 256-byte MAD twice more per answer).
  using Completion = std::function<void(Result<MadPacket>&&)>;
  // Called for each unsolicited request (not a response) that arrives.
  using RequestHandler = std::function<void(const MadPacket&)>;

  MadDispatcher(Transport& transport, const Clock& clock, DispatcherOptions options = {},
                LogSink& log = null_log_sink());

  // Queues a request; the dispatcher sets its transaction ID. `done` runs from
  // within poll(), never from submit().
  void submit(const MadPacket& request, Completion done, RequestOptions options = {});
  // Sends a MAD that expects no answer (a response, a TrapRepress) at once.
  Status send_now(const MadPacket& packet);
  void set_request_handler(RequestHandler handler) { request_handler_ = std::move(handler); }
  // Every MAD of `mgmt_class` that arrives, requests and responses alike, goes
  // to `handler` and nowhere else: a class served by an agent of its own (the
  // SA, whose RMPP ACKs and ReportResponses are no answers to our requests).
  void set_class_handler(uint8_t mgmt_class, RequestHandler handler) { class_handlers_[mgmt_class] = std::move(handler); }

  // Receives what is waiting, completes matched requests, retries or fails
  // expired ones, and fills the window from the queue.
  void poll();
  // poll() until no request is queued or in flight, waiting on the transport
  // between rounds.
  void run_until_idle();
  // poll() until fewer than `n` requests wait in the queue (in flight ones
  // aside): how a sender of very many requests keeps the queue, and its
  // memory, bounded.
  void run_until_queued_below(size_t n);
  bool idle() const { return queue_.empty() && in_flight_ == 0; }
  size_t queued() const { return queue_.size(); }
  // When poll() next has a timeout to act on; nullopt when nothing is in flight.
  std::optional<Micros> next_timer() const;
  size_t in_flight() const { return in_flight_; }

  const DispatcherStats& stats() const { return stats_; }
  const DispatcherOptions& options() const { return options_; }
  void set_options(const DispatcherOptions& o) { options_ = o; }

 private:
  struct Pending {
    MadPacket packet;
    Completion done;
    int attempts = 0;
    Micros deadline = 0;
    RequestOptions options;
    uint32_t kind = 0;  // DispatcherStats::kind_key of the request
  };

  // A request in flight: its TID (0: the entry is free) and its slot.
  struct Flight {
    uint32_t tid = 0;
    uint32_t slot = 0;
  };

  uint32_t next_tid();
  void fill_window();
  void transmit(uint32_t tid, Pending& p);
  // A slot for a new request, and its release once the request is done.
  uint32_t take_slot();
  void free_slot(uint32_t slot);
  // Once idle: drops stale deadlines, and the slots beyond what a steady
  // window needs.
  void release_idle_memory();
  static constexpr size_t kKeptSlots = 1024;
  // The entry of TID `tid` if it is in flight, else null.
  Flight* find_flight(uint32_t tid) {
    if (flights_.empty()) return nullptr;
    Flight& f = flights_[tid & (flights_.size() - 1)];
    return tid != 0 && f.tid == tid ? &f : nullptr;
  }
  void end_flight(Flight& f);
  // Room for one more request in flight (the table at most half full).
  void reserve_flight();
  // Deadlines, a min-heap; stale ones (answered, or resent) are skipped when
  // they come up, and dropped all at once when they outnumber the live ones.
  void push_deadline(Micros deadline, uint32_t tid);
  void pop_deadline();
  // Keeps the live deadlines but that of `pushing`, which is being pushed anew.
  void drop_stale_deadlines(uint32_t pushing);
  void handle_received(const MadPacket& packet);
  void expire(Micros now);
  void retry_or_fail(uint32_t tid);
  Micros next_deadline() const;

  Transport& transport_;
  const Clock& clock_;
  DispatcherOptions options_;
  LogSink& log_;
  RequestHandler request_handler_;
  std::map<uint8_t, RequestHandler> class_handlers_;
  uint32_t tid_counter_ = 0;
  // Requests live in reused slots, queued and in flight alike, and the queue
  // and the in-flight map hold slot numbers: a request is some 400 bytes, and
  // allocating one per MAD (a deque block and a map node each) cost the
  // bring-up's millions of MADs a malloc and a free apiece.
  std::vector<Pending> slots_;
  std::vector<uint32_t> free_slots_;
  std::deque<uint32_t> queue_;
  // In flight, keyed by the low 32 bits of the TID (the kernel, and
  // umad2sim, own the top 32): a table of 2^k entries where TID t always
  // sits at t mod 2^k, so a lookup is one load and a compare. next_tid skips
  // a TID whose entry an older request still holds (one retrying), and the
  // table doubles to stay at most half full. A hash map here cost a node
  // allocation and a hash lookup per MAD.
  std::vector<Flight> flights_;
  size_t in_flight_ = 0;
  // Min-heap (std::greater) of (deadline, tid).
  std::vector<std::pair<Micros, uint32_t>> deadlines_;
  DispatcherStats stats_;
};

}  // namespace ibsm
