// RMPP segmentation (IBA 13.6): how a class payload is cut into 256-byte
// DATA segments, the PayloadLength rules, and the control MADs (ACK, STOP,
// ABORT). Pure functions; the state machines are in sender.h and receiver.h.
//
// Every segment repeats the bytes before the class data (common MAD header,
// RMPP header, class header: for the SA the 20-byte SA header, IBA 15.2.1.1)
// and carries the next `segment_data()` bytes (200 for the SA). PayloadLength
// counts everything after the RMPP header, so the class header of *every*
// segment is counted: 220 bytes per SA segment. This is what Linux's ib_mad
// sends (drivers/infiniband/core/mad.c: seg_rmpp_size = mad_size - 36;
// mad_rmpp.c send_next_seg: first segment seg_count * seg_rmpp_size - pad,
// last segment seg_rmpp_size - pad, the others 0) and what its receiver uses
// to size the reassembled MAD (get_mad_len), so we follow it exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "mad/transport.h"
#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/rmpp.h"

namespace ibsm::rmpp {

// RRespTime 0x1F: "no time value provided" (IBA 13.6.2.1; ib_mad.h
// IB_MGMT_RMPP_NO_RESPTIME). Linux ignores the field on receipt.
inline constexpr uint8_t no_resp_time = 0x1F;

// Where a class's data starts in a MAD: wire::sa_data_offset (56) for the SA.
struct Layout {
  size_t data_offset = wire::sa_data_offset;

  // Class data bytes per segment (200 for the SA).
  constexpr size_t segment_data() const { return wire::mad_size - data_offset; }
  // Bytes after the RMPP header per segment, counted by PayloadLength (220).
  constexpr size_t segment_payload() const { return wire::mad_size - wire::rmpp_header_end; }
  // The class header repeated in each segment (20 for the SA).
  constexpr size_t class_header() const { return data_offset - wire::rmpp_header_end; }
};

// Segments needed for `data_bytes` of class data: at least one, so an empty
// answer still goes out as one DATA segment (First|Last).
uint32_t segment_count(size_t data_bytes, const Layout& layout);
// PayloadLength of the first segment (the whole transfer) and of the last one.
uint32_t total_payload_length(size_t data_bytes, const Layout& layout);
uint32_t last_payload_length(size_t data_bytes, const Layout& layout);
// The largest transfer RMPP can describe (PayloadLength is 32 bits).
size_t max_data_bytes(const Layout& layout);

// DATA segment `segment` (1-based) of `data`: `header` supplies the first
// layout.data_offset bytes (its RMPP bytes are replaced).
wire::MadBuffer make_data_segment(std::span<const uint8_t> header, std::span<const uint8_t> data,
                                  uint32_t segment, const Layout& layout, uint8_t resp_time = no_resp_time);

// An ACK, STOP or ABORT built on the first data_offset bytes of `tmpl`. With
// `flip_method` the R bit is toggled: Linux answers a MAD with the method of
// the opposite direction (mad_rmpp.c format_ack, nack_recv), so the ACKs of a
// GetTableResp carry GetTable, and so do we.
struct Control {
  uint8_t type = wire::rmpp_type::ack;
  uint8_t status = wire::rmpp_status::normal;
  uint32_t segment = 0;          // Data1
  uint32_t new_window_last = 0;  // Data2
  uint8_t resp_time = no_resp_time;
};
wire::MadBuffer make_control(std::span<const uint8_t> tmpl, const Control& c, bool flip_method, const Layout& layout);

// What is wrong with the RMPP header of an active MAD, as the ABORT status to
// answer with: unsupported_version (only version 1 exists, IBA 13.6.2.1),
// bad_rmpp_type; nullopt when the header is usable.
std::optional<uint8_t> header_problem(const wire::RmppHeader& h);

// ABORT status codes are 118-127 (IBA 13.6.2.1 table 176; ib_mad.h
// IB_MGMT_RMPP_STATUS_ABORT_MIN/MAX); STOP carries resources_exhausted.
constexpr bool is_abort_status(uint8_t s) {
  return s >= wire::rmpp_status::total_time_too_long && s <= wire::rmpp_status::unspecified;
}

// Sends one MAD; the owner of a transfer passes it to its transport.
using MadSink = std::function<void(const MadPacket&)>;

// Where a transfer stands.
enum class TransferState : uint8_t {
  active,
  done,     // sender: the last segment was acknowledged; receiver: all data arrived
  aborted,  // by us (we sent ABORT or STOP) or by the peer; see abort_status()
};
const char* transfer_state_name(TransferState s);
// A readable name of an RMPP status code ("too_many_retries").
const char* rmpp_status_name(uint8_t status);

}  // namespace ibsm::rmpp
