#include "mad/rmpp/receiver.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace ibsm::rmpp {

namespace st = wire::rmpp_status;

RmppReceiver::RmppReceiver(const MadAddress& peer, MadSink sink, Micros now, ReceiverOptions options)
    : peer_(peer), sink_(std::move(sink)), options_(options), end_deadline_(now + options.total_timeout) {
  assert(options_.window >= 1);
}

std::span<const uint8_t> RmppReceiver::reply_template(std::span<const uint8_t> mad) const {
  if (started_) return first_header_;
  return mad;
}

void RmppReceiver::ack(std::span<const uint8_t> tmpl) {
  MadPacket packet;
  packet.address = peer_;
  // The ACK names the last segment received in order and the window's new end
  // (IBA 13.6.2.1; mad_rmpp.c format_ack), with the DATA's method R bit flipped.
  packet.data = make_control(tmpl,
                             {.type = wire::rmpp_type::ack,
                              .segment = expected_ - 1,
                              .new_window_last = window_last_,
                              .resp_time = options_.resp_time},
                             true, options_.layout);
  ++acks_sent_;
  sink_(packet);
}

void RmppReceiver::end(uint8_t type, uint8_t status, std::span<const uint8_t> tmpl) {
  MadPacket packet;
  packet.address = peer_;
  packet.data = make_control(tmpl, {.type = type, .status = status, .resp_time = options_.resp_time}, true,
                             options_.layout);
  sink_(packet);
  state_ = TransferState::aborted;
  abort_status_ = status;
}

void RmppReceiver::handle(std::span<const uint8_t> mad, Micros now) {
  if (mad.size() < wire::mad_size || state_ == TransferState::aborted) return;
  (void)now;
  auto decoded = wire::decode_rmpp_header(mad);
  if (!decoded.ok()) return;
  const wire::RmppHeader& r = *decoded;
  if (!r.active()) return;  // a plain MAD is not part of any transfer
  // Once started, only this transfer's MADs: same class and TID (IBA 13.4.2).
  if (started_ && (mad[1] != first_header_[1] || std::memcmp(mad.data() + 8, first_header_.data() + 8, 8) != 0))
    return;

  if (state_ == TransferState::done) {
    // The sender missed our last ACK and resent: acknowledge again (Linux
    // keeps a finished transfer for that, mad_rmpp.c complete_rmpp).
    if (r.version == wire::rmpp_version && r.type == wire::rmpp_type::data && r.status == st::normal) ack(first_header_);
    return;
  }
  if (auto problem = header_problem(r)) return end(wire::rmpp_type::abort, *problem, reply_template(mad));
  switch (r.type) {
    case wire::rmpp_type::data: return handle_data(mad, r);
    case wire::rmpp_type::abort:
      // The sender gave up; its status is its business (an illegal one changes nothing here).
      state_ = TransferState::aborted;
      abort_status_ = r.status;
      aborted_by_peer_ = true;
      return;
    default:
      return;  // ACK and STOP go to senders: not ours to act on
  }
}

void RmppReceiver::handle_data(std::span<const uint8_t> mad, const wire::RmppHeader& r) {
  const Layout& layout = options_.layout;
  const auto tmpl = reply_template(mad);
  // DATA carries no status (mad_rmpp.c process_rmpp_data: illegal status).
  if (r.status != st::normal) return end(wire::rmpp_type::abort, st::illegal_status, tmpl);
  // First is set on segment 1 and only there (IBA 13.6.2.1).
  const uint32_t seg = r.segment_number();
  if ((seg == 1) != r.first()) return end(wire::rmpp_type::abort, st::inconsistent_first_and_segment_number, tmpl);

  if (!started_) {
    // Before segment 1 there is nothing to acknowledge: later segments are
    // dropped quietly, as Linux drops segments of a transfer it does not know.
    if (seg == 1) accept_first(mad, r);
    return;
  }
  if (seg != expected_) {
    // A duplicate, or out of order: dropped, and the last in-order segment
    // acknowledged again so a sender that lost our ACK learns where we are.
    ack(tmpl);
    return;
  }

  // In order. Check Last and PayloadLength against what segment 1 announced.
  const uint32_t per_segment = static_cast<uint32_t>(layout.segment_payload());
  const uint32_t announced_count = announced_ == 0 ? 0 : (announced_ + per_segment - 1) / per_segment;
  if (r.last()) {
    const uint32_t len = r.payload_length();
    const bool len_ok = len >= layout.class_header() && len <= per_segment &&
                        (announced_ == 0 ||
                         (seg == announced_count && len == announced_ - (announced_count - 1) * per_segment));
    if (!len_ok) return end(wire::rmpp_type::abort, st::inconsistent_last_and_payload_length, tmpl);
  } else if (announced_ != 0 && seg >= announced_count) {
    return end(wire::rmpp_type::abort, st::inconsistent_last_and_payload_length, tmpl);
  }
  const size_t bytes = r.last() ? r.payload_length() - layout.class_header() : layout.segment_data();
  if (data_.size() + bytes > options_.max_data_bytes)
    return end(wire::rmpp_type::stop, st::resources_exhausted, tmpl);
  const auto body = mad.subspan(layout.data_offset, bytes);
  data_.insert(data_.end(), body.begin(), body.end());
  ++expected_;

  if (r.last()) {
    state_ = TransferState::done;
    ack(tmpl);
  } else if (seg == window_last_) {
    window_last_ += options_.window;
    ack(tmpl);
  }
}

void RmppReceiver::accept_first(std::span<const uint8_t> mad, const wire::RmppHeader& r) {
  const Layout& layout = options_.layout;
  const uint32_t len = r.payload_length();
  const uint32_t per_segment = static_cast<uint32_t>(layout.segment_payload());
  // One segment: PayloadLength is that segment's; more: the whole transfer's,
  // so more than one segment's worth (0 = not stated, tolerated).
  const bool len_ok = r.last() ? len >= layout.class_header() && len <= per_segment : len == 0 || len > per_segment;
  if (!len_ok) return end(wire::rmpp_type::abort, st::inconsistent_last_and_payload_length, mad);
  if (!r.last() && len != 0) {
    const uint64_t segments = (uint64_t{len} + per_segment - 1) / per_segment;
    if (segments * layout.segment_data() > options_.max_data_bytes)
      return end(wire::rmpp_type::stop, st::resources_exhausted, mad);
  }
  const size_t bytes = r.last() ? len - layout.class_header() : layout.segment_data();
  if (bytes > options_.max_data_bytes) return end(wire::rmpp_type::stop, st::resources_exhausted, mad);

  started_ = true;
  announced_ = r.last() ? 0 : len;
  first_header_.assign(mad.begin(), mad.begin() + static_cast<std::ptrdiff_t>(layout.data_offset));
  const auto body = mad.subspan(layout.data_offset, bytes);
  data_.assign(body.begin(), body.end());
  expected_ = 2;
  if (r.last()) {
    // Linux acknowledges a one-segment transfer with window 1 (start_rmpp
    // completes before it opens the window).
    state_ = TransferState::done;
  } else {
    window_last_ = 1 + options_.window;
  }
  ack(first_header_);
}

void RmppReceiver::poll(Micros now) {
  if (state_ != TransferState::active) return;
  if (now >= end_deadline_) {
    // Nothing accepted yet: no transfer to name in an ABORT, just forget it.
    if (!started_) {
      state_ = TransferState::aborted;
      abort_status_ = st::total_time_too_long;
      return;
    }
    end(wire::rmpp_type::abort, st::total_time_too_long, first_header_);
  }
}

std::optional<Micros> RmppReceiver::next_deadline() const {
  if (state_ != TransferState::active) return std::nullopt;
  return end_deadline_;
}

}  // namespace ibsm::rmpp
