// The receiving side of one RMPP transfer (IBA 13.6.3, the receiver's flow):
// takes DATA segments in order, acknowledges them window by window, re-ACKs
// duplicates and out-of-order segments with the last in-order one, checks the
// First/Last flags against SegmentNumber and PayloadLength (ABORT with the
// matching status), gives up after a total time (ABORT total_time_too_long),
// and delivers the class header and the reassembled class data once the Last
// segment is in. Speaks to any RMPP sender: Linux's ib_mad, OpenSM, ours.
//
// Single-threaded and clock-free, like RmppSender.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "mad/base/clock.h"
#include "mad/rmpp/segments.h"
#include "mad/transport.h"
#include "mad/wire/mad_header.h"

namespace ibsm::rmpp {

struct ReceiverOptions {
  // Segments granted per ACK. Linux grants max(mad_recvq_size >> 3, 1), 64
  // with its default receive queue of 512 (mad_rmpp.c window_size).
  uint32_t window = 64;
  // From the first segment to the last; Linux's receiver allows 40 s.
  Micros total_timeout = 40'000'000;
  // A transfer announcing or reaching more class data than this is refused
  // with STOP resources_exhausted: memory stays bounded whatever a peer sends.
  size_t max_data_bytes = size_t{64} << 20;
  uint8_t resp_time = no_resp_time;
  Layout layout;
};

class RmppReceiver {
 public:
  // The total timer runs from `now`: create the receiver when the first
  // segment arrives.
  RmppReceiver(const MadAddress& peer, MadSink sink, Micros now, ReceiverOptions options = {});

  // A MAD from the peer for this transfer (DATA, STOP, ABORT, or garbage).
  void handle(std::span<const uint8_t> mad, Micros now);
  void poll(Micros now);
  std::optional<Micros> next_deadline() const;

  TransferState state() const { return state_; }
  uint8_t abort_status() const { return abort_status_; }
  bool aborted_by_peer() const { return aborted_by_peer_; }

  // Once done: the first segment's bytes before the class data (MAD header,
  // class header) and the class data, PayloadLength's padding removed.
  std::span<const uint8_t> header() const { return first_header_; }
  const std::vector<uint8_t>& data() const { return data_; }
  std::vector<uint8_t> take_data() { return std::move(data_); }

  uint32_t expected_segment() const { return expected_; }
  uint32_t window_last() const { return window_last_; }
  uint64_t acks_sent() const { return acks_sent_; }
  const MadAddress& peer() const { return peer_; }

 private:
  void handle_data(std::span<const uint8_t> mad, const wire::RmppHeader& r);
  void accept_first(std::span<const uint8_t> mad, const wire::RmppHeader& r);
  void ack(std::span<const uint8_t> tmpl);
  // Ends the transfer from our side with ABORT (or STOP) and `status`.
  void end(uint8_t type, uint8_t status, std::span<const uint8_t> tmpl);
  std::span<const uint8_t> reply_template(std::span<const uint8_t> mad) const;

  MadAddress peer_;
  MadSink sink_;
  ReceiverOptions options_;
  TransferState state_ = TransferState::active;
  uint8_t abort_status_ = 0;
  bool aborted_by_peer_ = false;
  bool started_ = false;            // segment 1 is in
  std::vector<uint8_t> first_header_;
  uint32_t expected_ = 1;           // next in-order segment
  uint32_t window_last_ = 1;        // the last segment we granted
  uint32_t announced_ = 0;          // PayloadLength of segment 1 (0: not given)
  std::vector<uint8_t> data_;
  Micros end_deadline_ = 0;
  uint64_t acks_sent_ = 0;
};

}  // namespace ibsm::rmpp
