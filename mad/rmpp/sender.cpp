#include "mad/rmpp/sender.h"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace ibsm::rmpp {

namespace st = wire::rmpp_status;

RmppSender::RmppSender(const MadAddress& peer, std::span<const uint8_t> header, std::vector<uint8_t> data,
                       MadSink sink, SenderOptions options)
    : peer_(peer),
      header_(header.begin(), header.end()),
      data_(std::move(data)),
      sink_(std::move(sink)),
      options_(options) {
  assert(header_.size() >= options_.layout.data_offset);
  assert(data_.size() <= max_data_bytes(options_.layout));
  count_ = rmpp::segment_count(data_.size(), options_.layout);
  retries_left_ = options_.retries;
}

void RmppSender::start(Micros now) {
  assert(!started_);
  started_ = true;
  end_deadline_ = now + options_.total_timeout;
  send_up_to_window(now);
}

void RmppSender::emit(const wire::MadBuffer& mad) {
  MadPacket packet;
  packet.data = mad;
  packet.address = peer_;
  sink_(packet);
}

void RmppSender::send_segment(uint32_t segment) {
  emit(make_data_segment(header_, data_, segment, options_.layout, options_.resp_time));
  ++segments_sent_;
}

void RmppSender::send_up_to_window(Micros now) {
  const uint32_t last = std::min(window_last_, count_);
  for (; next_ <= last; ++next_) send_segment(next_);
  ack_deadline_ = now + options_.ack_timeout;
}

void RmppSender::abort(uint8_t status, std::span<const uint8_t> tmpl, bool flip_method) {
  emit(make_control(tmpl, {.type = wire::rmpp_type::abort, .status = status, .resp_time = options_.resp_time},
                    flip_method, options_.layout));
  state_ = TransferState::aborted;
  abort_status_ = status;
}

void RmppSender::handle(std::span<const uint8_t> mad, Micros now) {
  if (state_ != TransferState::active || !started_ || mad.size() < wire::mad_size) return;
  // Only this transfer's MADs: same class and TID (bytes 1 and 8-15, IBA 13.4.2).
  if (mad[1] != header_[1] || std::memcmp(mad.data() + 8, header_.data() + 8, 8) != 0) return;
  auto decoded = wire::decode_rmpp_header(mad);
  if (!decoded.ok()) return;
  const wire::RmppHeader& r = *decoded;
  if (!r.active()) return;
  // Our ABORTs are built on our own header: the peer sees the method of our
  // DATA, as Linux's nack_recv produces by flipping the ACK's method.
  if (auto problem = header_problem(r)) return abort(*problem, header_, false);

  switch (r.type) {
    case wire::rmpp_type::data:
      return;  // a sender receives no DATA for its own transfer (no double-sided RMPP)
    case wire::rmpp_type::stop:
      // STOP means the receiver ran out of resources (IBA 13.6.2.1); any
      // other status is illegal (mad_rmpp.c process_rmpp_stop).
      if (r.status != st::resources_exhausted) return abort(st::illegal_status, header_, false);
      state_ = TransferState::aborted;
      abort_status_ = r.status;
      aborted_by_peer_ = true;
      return;
    case wire::rmpp_type::abort:
      if (!is_abort_status(r.status)) return abort(st::illegal_status, header_, false);
      state_ = TransferState::aborted;
      abort_status_ = r.status;
      aborted_by_peer_ = true;
      return;
    default: break;  // ACK
  }

  // ACK (IBA 13.6.3.1; the checks and their order as in mad_rmpp.c process_rmpp_ack).
  if (r.status != st::normal) return abort(st::illegal_status, header_, false);
  const uint32_t acked = r.segment_number();
  const uint32_t new_window_last = r.new_window_last();
  // A receiver must let us send at least what it acknowledges.
  if (new_window_last < acked) return abort(st::new_window_last_too_small, header_, false);
  // It cannot acknowledge what we may not have sent.
  if (acked > count_ || acked > window_last_) return abort(st::segment_number_too_big, header_, false);
  // An older ACK overtaken by a newer one (reordered, duplicated): no news.
  // Only the ACK's own NewWindowLast below its SegmentNumber is an error; a
  // stale ACK's window below the current one is not, or reordering on the
  // wire would abort healthy transfers.
  if (acked < last_ack_ || new_window_last < window_last_) return;
  // A repeat of the last ACK (the receiver re-acknowledges duplicates and
  // out-of-order segments) changes nothing: the ACK timer keeps running.
  const bool news = acked > last_ack_ || new_window_last > window_last_;
  if (acked > last_ack_) {
    last_ack_ = acked;
    retries_left_ = options_.retries;
  }
  window_last_ = new_window_last;
  if (last_ack_ == count_) {
    state_ = TransferState::done;
    return;
  }
  if (!news) return;
  // A resend may have rewound next_ below what is now acknowledged.
  next_ = std::max(next_, last_ack_ + 1);
  send_up_to_window(now);
}

void RmppSender::poll(Micros now) {
  if (state_ != TransferState::active || !started_) return;
  if (now >= end_deadline_) return abort(st::total_time_too_long, header_, false);
  if (now < ack_deadline_) return;
  if (retries_left_ <= 0) return abort(st::too_many_retries, header_, false);
  --retries_left_;
  ++resends_;
  // Go back to the first unacknowledged segment and resend the window
  // (mad_rmpp.c ib_retry_rmpp, then the window as sends complete).
  next_ = last_ack_ + 1;
  send_up_to_window(now);
}

std::optional<Micros> RmppSender::next_deadline() const {
  if (state_ != TransferState::active || !started_) return std::nullopt;
  return std::min(ack_deadline_, end_deadline_);
}

}  // namespace ibsm::rmpp
