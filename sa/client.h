// The client side of one SA request (IBA 15.4): sends it, resends it when no
// answer comes in time, takes a plain answer or reassembles an RMPP one
// (ACKing each window as Linux's ib_mad receiver does), and ends with the
// answer's status and records. `ibsm query` runs it over UmadTransport, tests
// over SimFabric; it does RMPP itself, so through ibsim (which carries single
// MADs only) it still gets whole tables.
//
// Single-threaded and clock-free like the agent: feed it every MAD the port
// receives (handle), poll it at or after next_deadline(). run_sa_call() is
// the blocking loop for a client that has nothing else to do.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/status.h"
#include "mad/rmpp/sessions.h"
#include "mad/transport.h"

namespace ibsm::sa {

struct SaRequest {
  uint8_t method = 0;               // wire::method::get, get_table, set, delete_, get_multi
  uint16_t attribute = 0;           // wire::sa_attr::*
  uint32_t attr_mod = 0;
  uint64_t component_mask = 0;
  uint64_t sm_key = 0;              // 0 unless the caller is trusted (saquery --smkey)
  std::vector<uint8_t> data;        // the record template; GetMulti or more than 200 bytes go by RMPP
  uint64_t tid = 0;                 // chosen by the caller: unique among its requests in flight
};

struct SaClientOptions {
  Micros timeout = 1'000'000;  // per attempt, until the first answer MAD arrives (a request
                               // sent by RMPP: the whole wait, (retries + 1) times this, no resend)
  int retries = 3;             // further attempts after the first
  rmpp::SessionsOptions rmpp;
};

struct SaAnswer {
  uint8_t method = 0;        // GetResp, GetTableResp, ...
  uint16_t status = 0;       // the MAD status word
  uint16_t attr_offset = 0;  // record stride in 8-byte words
  bool by_rmpp = false;
  std::vector<uint8_t> data; // the SA data: every record, each attr_offset*8 bytes

  size_t record_count() const { return attr_offset == 0 ? (data.empty() ? 0 : 1) : data.size() / (attr_offset * 8u); }
  std::span<const uint8_t> record(size_t i) const {
    const size_t stride = attr_offset == 0 ? data.size() : attr_offset * 8u;
    return std::span<const uint8_t>(data).subspan(i * stride, stride);
  }
};

class SaClientCall {
 public:
  SaClientCall(rmpp::MadSink sink, MadAddress sa, SaRequest request, SaClientOptions options = {});

  void start(Micros now);
  // Any MAD the port received; returns true if it belonged to this call.
  bool handle(const MadPacket& packet, Micros now);
  void poll(Micros now);
  std::optional<Micros> next_deadline() const;

  bool done() const { return result_.has_value(); }
  // Once done: the answer, or why there is none (deadline_exceeded after the
  // retries, aborted for an RMPP transfer the SA or we ended).
  const Result<SaAnswer>& result() const { return *result_; }
  int attempts() const { return attempts_; }

 private:
  void send_request(Micros now);

  rmpp::MadSink sink_;
  MadAddress sa_;
  SaRequest request_;
  SaClientOptions options_;
  rmpp::RmppSessions rmpp_;
  wire::MadBuffer request_mad_{};
  int attempts_ = 0;
  Micros deadline_ = 0;
  bool receiving_ = false;  // an RMPP answer is arriving: its own timers apply
  bool sent_by_rmpp_ = false;  // the request itself went as an RMPP transfer (GetMulti)
  std::optional<Result<SaAnswer>> result_;
};

// Sends `request` through `port` to the SA at `sa` and waits for the answer,
// reading the port until then (MADs for others are dropped).
Result<SaAnswer> run_sa_call(Transport& port, const Clock& clock, const MadAddress& sa, SaRequest request,
                             SaClientOptions options = {});

// The address of the SA: the SM's LID (the port's SMLID), QP1 with the GSI Q_Key.
MadAddress sa_address(Lid sm_lid);

// The request as one MAD (common and SA headers, the template in the data):
// what SaClientCall sends when the request fits one MAD.
wire::MadBuffer encode_request(const SaRequest& request);

// A port's join of `mgid` as a full member, selecting what Linux IPoIB
// selects to join an existing group: MGID, PortGID, P_Key (the default
// partition's), JoinState (IBA 15.2.5.17). A proxy join also needs sm_key.
SaRequest full_member_join(const wire::Gid& mgid, const wire::Gid& port_gid);

}  // namespace ibsm::sa
