#include "mad/dispatcher.h"

#include <algorithm>
#include <functional>

#include "mad/wire/mad_header.h"

namespace ibsm {

namespace {

// What the dispatcher reads of a MAD's header. A MadPacket always holds 256
// bytes, so nothing can be short: read in place, not through the general
// decoder (twice per MAD, that showed in the bring-up's profile).
struct Head {
  uint8_t base_version;
  uint8_t mgmt_class;
  uint8_t method;
  uint16_t attr_id;
  uint32_t tid;  // the low 32 bits, ours

  explicit Head(const std::array<uint8_t, kMadSize>& mad)
      : base_version(static_cast<uint8_t>(wire::get_field(mad, wire::mad_fields::base_version))),
        mgmt_class(static_cast<uint8_t>(wire::get_field(mad, wire::mad_fields::mgmt_class))),
        method(static_cast<uint8_t>(wire::get_field(mad, wire::mad_fields::method))),
        attr_id(static_cast<uint16_t>(wire::get_field(mad, wire::mad_fields::attribute_id))),
        tid(static_cast<uint32_t>(wire::get_field(mad, wire::mad_fields::transaction_id))) {}
  bool is_response() const { return wire::is_response_method(method); }
};

}  // namespace

MadDispatcher::MadDispatcher(Transport& transport, const Clock& clock, DispatcherOptions options, LogSink& log)
    : transport_(transport), clock_(clock), options_(options), log_(log) {
  if (options_.window < 1) options_.window = 1;
  if (options_.retries < 0) options_.retries = 0;
}

uint32_t MadDispatcher::next_tid() {
  // Skip 0 and any TID whose entry an older request in flight holds (one
  // still retrying, or after 2^32 requests the same TID). The table is at
  // most half full, so this ends.
  const size_t mask = flights_.size() - 1;
  do {
    ++tid_counter_;
  } while (tid_counter_ == 0 || flights_[tid_counter_ & mask].tid != 0);
  return tid_counter_;
}

void MadDispatcher::reserve_flight() {
  if ((in_flight_ + 1) * 2 <= flights_.size()) return;
  // Doubling keeps every TID at its own entry: TIDs apart mod 2^k are apart
  // mod 2^(k+1).
  std::vector<Flight> bigger(std::max<size_t>(64, flights_.size() * 2));
  for (const Flight& f : flights_) {
    if (f.tid != 0) bigger[f.tid & (bigger.size() - 1)] = f;
  }
  flights_ = std::move(bigger);
}

void MadDispatcher::end_flight(Flight& f) {
  f.tid = 0;
  --in_flight_;
}

void MadDispatcher::push_deadline(Micros deadline, uint32_t tid) {
  // Answers leave their deadlines behind; once those outnumber the live
  // ones by far, they go all at once. A heap of every deadline still in the
  // future grew to a million entries in a bring-up over SimFabric, whose
  // MADs take microseconds of virtual time against a 200 ms timeout.
  if (deadlines_.size() >= std::max<size_t>(64, 4 * in_flight_)) drop_stale_deadlines(tid);
  deadlines_.emplace_back(deadline, tid);
  std::push_heap(deadlines_.begin(), deadlines_.end(), std::greater<>());
}

void MadDispatcher::pop_deadline() {
  std::pop_heap(deadlines_.begin(), deadlines_.end(), std::greater<>());
  deadlines_.pop_back();
}

void MadDispatcher::drop_stale_deadlines(uint32_t pushing) {
  deadlines_.clear();
  for (const Flight& f : flights_) {
    if (f.tid != 0 && f.tid != pushing) deadlines_.emplace_back(slots_[f.slot].deadline, f.tid);
  }
  std::make_heap(deadlines_.begin(), deadlines_.end(), std::greater<>());
}

uint32_t MadDispatcher::take_slot() {
  if (free_slots_.empty()) {
    slots_.emplace_back();
    return static_cast<uint32_t>(slots_.size() - 1);
  }
  const uint32_t slot = free_slots_.back();
  free_slots_.pop_back();
  return slot;
}

void MadDispatcher::free_slot(uint32_t slot) {
  slots_[slot].done = nullptr;
  free_slots_.push_back(slot);
}

void MadDispatcher::submit(const MadPacket& request, Completion done, RequestOptions options) {
  const uint32_t slot = take_slot();
  Pending& p = slots_[slot];
  p.packet = request;
  p.done = std::move(done);
  p.attempts = 0;
  p.deadline = 0;
  p.options = options;
  const Head h(p.packet.data);
  p.kind = DispatcherStats::kind_key(h.mgmt_class, h.method, h.attr_id);
  queue_.push_back(slot);
  stats_.most_queued = std::max(stats_.most_queued, queue_.size());
}

Status MadDispatcher::send_now(const MadPacket& packet) {
  Status s = transport_.send(packet);
  if (s.ok()) {
    ++stats_.sent;
  } else {
    ++stats_.send_errors;
  }
  return s;
}

void MadDispatcher::transmit(uint32_t tid, Pending& p) {
  // Low 32 bits are ours; the high 32 are left zero for the kernel to fill.
  wire::set_field(p.packet.data, wire::mad_fields::transaction_id, tid);
  const Micros timeout = p.options.timeout > 0 ? p.options.timeout : options_.timeout;
  p.packet.response_timeout_ms = static_cast<uint32_t>(std::max<Micros>(1, timeout / 1000));
  ++p.attempts;
  p.deadline = clock_.now() + timeout;
  push_deadline(p.deadline, tid);
  Status s = transport_.send(p.packet);
  if (!s.ok()) {
    // Counted and left to time out: a transient send failure gets the same
    // retries as a lost MAD.
    ++stats_.send_errors;
    log(log_, LogLevel::debug, Subsystem::mad, "send of tid {} failed: {}", tid, s.message());
    return;
  }
  ++stats_.sent;
  if (p.attempts > 1) ++stats_.retries;
  if (p.kind == 0) return;  // no readable header
  ++stats_.sent_by_kind[p.kind];
  if (p.attempts > 1) ++stats_.retries_by_kind[p.kind];
}

void MadDispatcher::fill_window() {
  while (!queue_.empty() && static_cast<int>(in_flight_) < options_.window) {
    reserve_flight();
    const uint32_t tid = next_tid();
    const uint32_t slot = queue_.front();
    queue_.pop_front();
    flights_[tid & (flights_.size() - 1)] = {tid, slot};
    ++in_flight_;
    transmit(tid, slots_[slot]);
  }
}

void MadDispatcher::handle_received(const MadPacket& packet) {
  const Head h(packet.data);
  if (h.base_version != wire::mad_base_version) {
    ++stats_.malformed;
    log(log_, LogLevel::debug, Subsystem::mad, "dropped unreadable mad from lid {}", packet.address.lid);
    return;
  }
  if (!class_handlers_.empty() && !packet.send_timed_out) {
    if (auto c = class_handlers_.find(h.mgmt_class); c != class_handlers_.end()) {
      c->second(packet);
      return;
    }
  }
  if (!h.is_response() && h.method != wire::method::trap_repress && !packet.send_timed_out) {
    ++stats_.requests_in;
    if (request_handler_) request_handler_(packet);
    return;
  }
  Flight* f = find_flight(h.tid);
  if (f == nullptr) {
    ++stats_.unmatched;
    return;
  }
  // A response must answer what we asked: same class and attribute.
  const uint32_t slot = f->slot;
  const uint32_t asked = slots_[slot].kind;
  if (asked != 0 && (DispatcherStats::kind_class(asked) != h.mgmt_class ||
                     DispatcherStats::kind_attr(asked) != h.attr_id)) {
    ++stats_.unmatched;
    log(log_, LogLevel::debug, Subsystem::mad, "response tid {} does not match its request (class 0x{:02x} attr 0x{:04x})",
        h.tid, h.mgmt_class, h.attr_id);
    return;
  }
  if (packet.send_timed_out) {
    // The layer below gave up on this attempt: retry now rather than at our deadline.
    retry_or_fail(h.tid);
    return;
  }
  // Free the slot before the completion runs: it may submit more.
  Completion done = std::move(slots_[slot].done);
  end_flight(*f);
  free_slot(slot);
  ++stats_.responses;
  if (done) done(packet);
}

void MadDispatcher::retry_or_fail(uint32_t tid) {
  Flight* f = find_flight(tid);
  if (f == nullptr) return;
  const uint32_t slot = f->slot;
  Pending& p = slots_[slot];
  const int retries = p.options.retries >= 0 ? p.options.retries : options_.retries;
  if (p.attempts <= retries) {
    transmit(tid, p);
    return;
  }
  Completion done = std::move(p.done);
  const int attempts = p.attempts;
  const uint32_t kind = p.kind;
  end_flight(*f);
  free_slot(slot);
  ++stats_.timeouts;
  if (kind != 0) ++stats_.timeouts_by_kind[kind];
  if (done) done(timeout_error(fmt::format("no response after {} attempts", attempts)));
}

void MadDispatcher::expire(Micros now) {
  while (!deadlines_.empty() && deadlines_.front().first <= now) {
    const auto [deadline, tid] = deadlines_.front();
    pop_deadline();
    const Flight* f = find_flight(tid);
    if (f == nullptr || slots_[f->slot].deadline != deadline) continue;  // stale
    retry_or_fail(tid);
  }
}

Micros MadDispatcher::next_deadline() const {
  // The heap's top may be stale; waiting until it is harmless (poll skips it).
  return deadlines_.empty() ? clock_.now() + options_.timeout : deadlines_.front().first;
}

std::optional<Micros> MadDispatcher::next_timer() const {
  // Queued requests with room in the window go out at the next poll.
  if (!queue_.empty() && static_cast<int>(in_flight_) < options_.window) return clock_.now();
  if (in_flight_ == 0) return std::nullopt;
  return deadlines_.empty() ? std::nullopt : std::optional<Micros>(deadlines_.front().first);
}

void MadDispatcher::poll() {
  while (auto packet = transport_.receive()) handle_received(*packet);
  expire(clock_.now());
  fill_window();
  if (idle()) release_idle_memory();
}

void MadDispatcher::release_idle_memory() {
  // Nothing in flight: every deadline left is stale. A discovery queues a
  // whole BFS level at once (100k requests on 42k LIDs, some 40 MB of
  // slots), and in virtual time a 200 ms timeout outlives a phase's sends;
  // kept, both would sit at the SM's peak memory for nothing.
  if (deadlines_.size() > 64) deadlines_ = {};
  deadlines_.clear();
  if (slots_.size() > kKeptSlots) {
    slots_ = {};
    free_slots_ = {};
  }
}

void MadDispatcher::run_until_idle() {
  poll();
  while (!idle()) {
    Micros wait = next_deadline() - clock_.now();
    transport_.wait(std::max<Micros>(wait, 0));
    poll();
  }
}

void MadDispatcher::run_until_queued_below(size_t n) {
  poll();
  while (queue_.size() >= n && !queue_.empty()) {
    Micros wait = next_deadline() - clock_.now();
    transport_.wait(std::max<Micros>(wait, 0));
    poll();
  }
}

}  // namespace ibsm
