// The sending side of one RMPP transfer (IBA 13.6.3, the sender's flow): cuts
// a class payload into DATA segments, sends them as the receiver's window
// allows, follows ACKs, resends the window from the last acknowledged segment
// on a timeout, and ends done (the last segment acknowledged) or aborted.
// Interoperates with Linux's ib_mad RMPP receiver (mad_rmpp.c), which is what
// every SA client on a host uses.
//
// Which answers use RMPP: every SubnAdmGetTableResp, even of one segment or
// no record at all (OpenSM's osm_sa_respond marks each one RMPP-active, and
// Linux then sends a single DATA segment with First|Last); a SubnAdmGetResp
// never (one record, one plain MAD).
//
// Single-threaded and clock-free: the owner feeds received MADs to handle(),
// calls poll(now) at or after next_deadline(), and sends what comes out of the
// sink.
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

struct SenderOptions {
  // How long to wait for an ACK before resending the window. Linux waits the
  // request's timeout, at most 2 s (mad_rmpp.c send_next_seg).
  Micros ack_timeout = 2'000'000;
  // Resends of a window without progress before giving up with ABORT
  // too_many_retries; any progress restores the count (as Linux does).
  int retries = 3;
  // The whole transfer; longer ends with ABORT total_time_too_long. Linux's
  // receiver gives a transfer 40 s.
  Micros total_timeout = 40'000'000;
  uint8_t resp_time = no_resp_time;
  Layout layout;
};

class RmppSender {
 public:
  // `header`: at least layout.data_offset bytes: the common MAD header (the
  // response's method, TID, attribute) and the class header (for the SA: the
  // SM_Key, AttributeOffset and ComponentMask of every segment). `data`: the
  // class data (the SA records), of any length up to max_data_bytes().
  RmppSender(const MadAddress& peer, std::span<const uint8_t> header, std::vector<uint8_t> data, MadSink sink,
             SenderOptions options = {});

  // Sends the first segment (the window starts at one segment, IBA 13.6.3.1;
  // Linux's init_newwin). Call once.
  void start(Micros now);
  // An RMPP MAD from the peer for this transfer (ACK, STOP, ABORT). Anything
  // else is ignored.
  void handle(std::span<const uint8_t> mad, Micros now);
  // Resends or gives up when the ACK is overdue; ends a transfer that took too long.
  void poll(Micros now);
  // When poll() has work next; nullopt once the transfer has ended.
  std::optional<Micros> next_deadline() const;

  TransferState state() const { return state_; }
  // The status the transfer ended with (0 while active or done).
  uint8_t abort_status() const { return abort_status_; }
  // The peer ended it (its STOP or ABORT) rather than we.
  bool aborted_by_peer() const { return aborted_by_peer_; }

  uint32_t segment_count() const { return count_; }
  uint32_t last_acked() const { return last_ack_; }
  uint32_t window_last() const { return window_last_; }
  uint64_t segments_sent() const { return segments_sent_; }  // resends included
  uint64_t resends() const { return resends_; }              // windows resent on timeout
  const MadAddress& peer() const { return peer_; }

 private:
  void send_up_to_window(Micros now);
  void send_segment(uint32_t segment);
  // Ends the transfer from our side: ABORT with `status`, built on `tmpl`.
  void abort(uint8_t status, std::span<const uint8_t> tmpl, bool flip_method);
  void emit(const wire::MadBuffer& mad);

  MadAddress peer_;
  std::vector<uint8_t> header_;
  std::vector<uint8_t> data_;
  MadSink sink_;
  SenderOptions options_;
  uint32_t count_ = 1;
  TransferState state_ = TransferState::active;
  uint8_t abort_status_ = 0;
  bool aborted_by_peer_ = false;
  bool started_ = false;
  uint32_t last_ack_ = 0;     // highest segment the receiver acknowledged
  uint32_t window_last_ = 1;  // highest segment it lets us send
  uint32_t next_ = 1;         // next segment to send
  int retries_left_ = 0;
  Micros ack_deadline_ = 0;
  Micros end_deadline_ = 0;
  uint64_t segments_sent_ = 0;
  uint64_t resends_ = 0;
};

}  // namespace ibsm::rmpp
