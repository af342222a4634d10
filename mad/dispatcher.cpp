#include "mad/dispatcher.h"

#include <algorithm>

#include "mad/wire/mad_header.h"

namespace ibsm {

MadDispatcher::MadDispatcher(Transport& transport, const Clock& clock, DispatcherOptions options, LogSink& log)
    : transport_(transport), clock_(clock), options_(options), log_(log) {
  if (options_.window < 1) options_.window = 1;
  if (options_.retries < 0) options_.retries = 0;
}

uint32_t MadDispatcher::next_tid() {
  // Skip 0 and any TID still in flight (after 2^32 requests).
  do {
    ++tid_counter_;
  } while (tid_counter_ == 0 || in_flight_.count(tid_counter_));
  return tid_counter_;
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

void MadDispatcher::submit(MadPacket request, Completion done, RequestOptions options) {
  const uint32_t slot = take_slot();
  Pending& p = slots_[slot];
  p.packet = request;
  p.done = std::move(done);
  p.attempts = 0;
  p.deadline = 0;
  p.options = options;
  auto h = wire::decode_mad_header(p.packet.data);
  p.kind = h.ok() ? DispatcherStats::kind_key(h->mgmt_class, h->method, h->attr_id) : 0;
  queue_.push_back(slot);
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
  deadlines_.emplace(p.deadline, tid);
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
  while (!queue_.empty() && static_cast<int>(in_flight_.size()) < options_.window) {
    uint32_t tid = next_tid();
    const uint32_t slot = queue_.front();
    queue_.pop_front();
    in_flight_.emplace(tid, slot);
    transmit(tid, slots_[slot]);
  }
}

void MadDispatcher::handle_received(const MadPacket& packet) {
  auto h = wire::decode_mad_header(packet.data);
  if (!h.ok() || h->base_version != wire::mad_base_version) {
    ++stats_.malformed;
    log(log_, LogLevel::debug, Subsystem::mad, "dropped unreadable mad from lid {}", packet.address.lid);
    return;
  }
  if (auto c = class_handlers_.find(h->mgmt_class); c != class_handlers_.end() && !packet.send_timed_out) {
    c->second(packet);
    return;
  }
  if (!h->is_response() && h->method != wire::method::trap_repress && !packet.send_timed_out) {
    ++stats_.requests_in;
    if (request_handler_) request_handler_(packet);
    return;
  }
  uint32_t tid = static_cast<uint32_t>(h->tid);
  auto it = in_flight_.find(tid);
  if (it == in_flight_.end()) {
    ++stats_.unmatched;
    return;
  }
  // A response must answer what we asked: same class and attribute.
  const uint32_t slot = it->second;
  const uint32_t asked = slots_[slot].kind;
  if (asked != 0 && (DispatcherStats::kind_class(asked) != h->mgmt_class ||
                     DispatcherStats::kind_attr(asked) != h->attr_id)) {
    ++stats_.unmatched;
    log(log_, LogLevel::debug, Subsystem::mad, "response tid {} does not match its request (class 0x{:02x} attr 0x{:04x})",
        tid, h->mgmt_class, h->attr_id);
    return;
  }
  if (packet.send_timed_out) {
    // The layer below gave up on this attempt: retry now rather than at our deadline.
    retry_or_fail(tid);
    return;
  }
  // Free the slot before the completion runs: it may submit more.
  Completion done = std::move(slots_[slot].done);
  in_flight_.erase(it);
  free_slot(slot);
  ++stats_.responses;
  if (done) done(packet);
}

void MadDispatcher::retry_or_fail(uint32_t tid) {
  auto it = in_flight_.find(tid);
  if (it == in_flight_.end()) return;
  const uint32_t slot = it->second;
  Pending& p = slots_[slot];
  const int retries = p.options.retries >= 0 ? p.options.retries : options_.retries;
  if (p.attempts <= retries) {
    transmit(tid, p);
    return;
  }
  Completion done = std::move(p.done);
  const int attempts = p.attempts;
  const uint32_t kind = p.kind;
  in_flight_.erase(it);
  free_slot(slot);
  ++stats_.timeouts;
  if (kind != 0) ++stats_.timeouts_by_kind[kind];
  if (done) done(timeout_error(fmt::format("no response after {} attempts", attempts)));
}

void MadDispatcher::expire(Micros now) {
  while (!deadlines_.empty() && deadlines_.top().first <= now) {
    auto [deadline, tid] = deadlines_.top();
    deadlines_.pop();
    auto it = in_flight_.find(tid);
    if (it == in_flight_.end() || slots_[it->second].deadline != deadline) continue;  // stale
    retry_or_fail(tid);
  }
}

Micros MadDispatcher::next_deadline() const {
  // The heap's top may be stale; waiting until it is harmless (poll skips it).
  return deadlines_.empty() ? clock_.now() + options_.timeout : deadlines_.top().first;
}

std::optional<Micros> MadDispatcher::next_timer() const {
  // Queued requests with room in the window go out at the next poll.
  if (!queue_.empty() && static_cast<int>(in_flight_.size()) < options_.window) return clock_.now();
  if (in_flight_.empty()) return std::nullopt;
  return deadlines_.empty() ? std::nullopt : std::optional<Micros>(deadlines_.top().first);
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
  if (!deadlines_.empty()) deadlines_ = {};
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
