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

void MadDispatcher::submit(MadPacket request, Completion done, RequestOptions options) {
  queue_.push_back(Pending{std::move(request), std::move(done), 0, 0, options});
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
  auto h = wire::decode_mad_header(p.packet.data);
  if (!h.ok()) return;
  const uint32_t kind = DispatcherStats::kind_key(h->mgmt_class, h->method, h->attr_id);
  ++stats_.sent_by_kind[kind];
  if (p.attempts > 1) ++stats_.retries_by_kind[kind];
}

void MadDispatcher::fill_window() {
  while (!queue_.empty() && static_cast<int>(in_flight_.size()) < options_.window) {
    uint32_t tid = next_tid();
    auto [it, inserted] = in_flight_.emplace(tid, std::move(queue_.front()));
    queue_.pop_front();
    transmit(tid, it->second);
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
  auto asked = wire::decode_mad_header(it->second.packet.data);
  if (asked.ok() && (asked->mgmt_class != h->mgmt_class || asked->attr_id != h->attr_id)) {
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
  Pending done = std::move(it->second);
  in_flight_.erase(it);
  ++stats_.responses;
  if (done.done) done.done(packet);
}

void MadDispatcher::retry_or_fail(uint32_t tid) {
  auto it = in_flight_.find(tid);
  if (it == in_flight_.end()) return;
  Pending& p = it->second;
  const int retries = p.options.retries >= 0 ? p.options.retries : options_.retries;
  if (p.attempts <= retries) {
    transmit(tid, p);
    return;
  }
  Pending failed = std::move(p);
  in_flight_.erase(it);
  ++stats_.timeouts;
  if (auto h = wire::decode_mad_header(failed.packet.data); h.ok())
    ++stats_.timeouts_by_kind[DispatcherStats::kind_key(h->mgmt_class, h->method, h->attr_id)];
  if (failed.done) failed.done(timeout_error(fmt::format("no response after {} attempts", failed.attempts)));
}

void MadDispatcher::expire(Micros now) {
  while (!deadlines_.empty() && deadlines_.top().first <= now) {
    auto [deadline, tid] = deadlines_.top();
    deadlines_.pop();
    auto it = in_flight_.find(tid);
    if (it == in_flight_.end() || it->second.deadline != deadline) continue;  // stale
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
