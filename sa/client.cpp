#include "sa/client.h"

#include "mad/wire/p_key_table.h"

#include "mad/wire/sa/mc_member_record.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/rmpp.h"
#include "mad/wire/sa_header.h"

namespace ibsm::sa {
namespace {

constexpr uint32_t kGsiQKey = 0x80010000;  // IBA 13.4.1: QP1's well-known Q_Key

}  // namespace

MadAddress sa_address(Lid sm_lid) {
  MadAddress a;
  a.lid = sm_lid;
  a.qp = 1;
  a.qkey = kGsiQKey;
  return a;
}

wire::MadBuffer encode_request(const SaRequest& request) {
  wire::SaMad m;
  m.header.method = request.method;
  m.header.tid = request.tid;
  m.header.attr_id = request.attribute;
  m.header.attr_mod = request.attr_mod;
  m.sa.sm_key = request.sm_key;
  m.sa.component_mask = request.component_mask;
  std::copy_n(request.data.begin(), std::min(request.data.size(), m.data.size()), m.data.begin());
  wire::MadBuffer out{};
  wire::encode(m, out);
  return out;
}

SaRequest full_member_join(const wire::Gid& mgid, const wire::Gid& port_gid) {
  namespace f = wire::mc_member_record_fields;
  auto bit = [](const wire::Field& field) { return wire::component_bit(wire::mc_member_record_components, field); };
  wire::McMemberRecord r;
  r.mgid = mgid;
  r.port_gid = port_gid;
  r.p_key = wire::default_p_key;
  r.join_state = wire::mc_join_state::full_member;
  SaRequest req;
  req.method = wire::method::set;
  req.attribute = wire::sa_attr::mc_member_record;
  req.component_mask = bit(f::mgid) | bit(f::port_gid) | bit(f::p_key) | bit(f::join_state);
  req.data.assign(wire::sa_record_size::mc_member, 0);
  wire::encode(r, req.data);
  return req;
}

SaClientCall::SaClientCall(rmpp::MadSink sink, MadAddress sa, SaRequest request, SaClientOptions options)
    : sink_(std::move(sink)), sa_(sa), request_(std::move(request)), options_(options), rmpp_(sink_, options_.rmpp) {
  request_mad_ = encode_request(request_);
}

void SaClientCall::send_request(Micros now) {
  ++attempts_;
  deadline_ = now + options_.timeout;
  MadPacket p;
  p.data = request_mad_;
  p.address = sa_;
  p.response_timeout_ms = static_cast<uint32_t>(std::max<Micros>(1, options_.timeout / 1000));
  sink_(p);
}

void SaClientCall::start(Micros now) {
  if (request_.method == wire::method::get_multi || request_.data.size() > wire::sa_data_size) {
    // Linux sends GetMulti as an RMPP transfer (the request may carry many
    // GIDs); the answer then comes back as a transfer of its own.
    sent_by_rmpp_ = true;
    ++attempts_;
    deadline_ = now + options_.timeout * (options_.retries + 1);
    Status s = rmpp_.start_send(sa_, std::span<const uint8_t>(request_mad_).first(wire::sa_data_offset), request_.data, now);
    if (!s.ok()) result_ = s;
    return;
  }
  send_request(now);
}

bool SaClientCall::handle(const MadPacket& packet, Micros now) {
  if (done()) return false;
  const std::span<const uint8_t> mad(packet.data);
  auto h = wire::decode_mad_header(mad);
  // The low 32 bits only: the kernel's MAD layer puts its own agent number
  // in the high 32 bits of a request's TID (ib_umad).
  if (!h.ok() || h->mgmt_class != wire::mgmt_class::subn_adm || static_cast<uint32_t>(h->tid) != static_cast<uint32_t>(request_.tid))
    return false;
  // The layer below gave up on this attempt and handed our own request back
  // (ibsim does so at once when the port's SM LID names no SA any more):
  // that attempt is lost, the next goes out now, and it is no answer.
  if (packet.send_timed_out) {
    if (!receiving_) deadline_ = now;
    return true;
  }
  auto rmpp = wire::decode_rmpp_header(mad);
  // Active with no RMPP type: an SA that leaves RMPP to the kernel (OpenSM)
  // sent its answer through a layer without it (umad2sim carries one MAD):
  // what came is the whole answer, read like a plain one.
  if (rmpp.ok() && rmpp->active() && rmpp->type != wire::rmpp_type::none) {
    // Either direction: the SA's ACKs of a request we sent by RMPP, its STOP
    // or ABORT of our ACKs (with the request's method), the answer's DATA.
    rmpp_.handle(packet, now);
    if (rmpp->type == wire::rmpp_type::data) receiving_ = true;
    for (auto& d : rmpp_.take_deliveries()) {
      SaAnswer a;
      auto dh = wire::decode_mad_header(d.header);
      auto sh = wire::decode_sa_header(d.header);
      a.method = dh.ok() ? dh->method : h->method;
      a.status = dh.ok() ? dh->status : h->status;
      a.attr_offset = sh.ok() ? sh->attr_offset : 0;
      a.by_rmpp = true;
      a.data = std::move(d.data);
      // The last segment is padded to a whole MAD; keep whole records only.
      if (a.attr_offset != 0) a.data.resize(a.data.size() - a.data.size() % (a.attr_offset * 8u));
      result_ = std::move(a);
    }
    if (!done()) {
      const auto state = rmpp_.state(rmpp::session_key(packet.address, mad));  // ours or the SA's transfer
      if (state == rmpp::TransferState::aborted)
        result_ = unavailable_error(fmt::format("the RMPP transfer was aborted ({})",
                                                          rmpp::rmpp_status_name(*rmpp_.abort_status(
                                                              rmpp::session_key(packet.address, mad)))));
    }
    return true;
  }
  // A request with our TID is not an answer (our own, echoed).
  if (!h->is_response()) return false;
  auto sa = wire::decode_sa_header(mad);
  SaAnswer a;
  a.method = h->method;
  a.status = h->status;
  a.attr_offset = sa.ok() ? sa->attr_offset : 0;
  if (a.status == 0) {
    const size_t stride = a.attr_offset * 8u;
    size_t n = a.attr_offset == 0 ? wire::sa_data_size : std::min<size_t>(stride, wire::sa_data_size);
    // A table in one MAD: every whole record it holds, but the zeros that pad
    // it out (a MAD carries no record count).
    // (AttributeOffset 0 in a GetTableResp: no records at all, IBA 15.2.4.)
    if (h->method == wire::method::get_table_resp) {
      n = 0;
      for (size_t at = 0; stride != 0 && at + stride <= wire::sa_data_size; at += stride) {
        auto rec = mad.subspan(wire::sa_data_offset + at, stride);
        if (std::all_of(rec.begin(), rec.end(), [](uint8_t b) { return b == 0; })) break;
        n = at + stride;
      }
    }
    a.data.assign(mad.begin() + wire::sa_data_offset, mad.begin() + wire::sa_data_offset + static_cast<std::ptrdiff_t>(n));
  }
  result_ = std::move(a);
  return true;
}

void SaClientCall::poll(Micros now) {
  if (done()) return;
  rmpp_.poll(now);
  if (receiving_) {
    if (rmpp_.active() == 0 && !done()) result_ = unavailable_error("the SA's RMPP answer ended incomplete");
    return;
  }
  if (now < deadline_) return;
  if (attempts_ <= options_.retries && !sent_by_rmpp_) {
    send_request(now);
    return;
  }
  result_ = timeout_error(fmt::format("no answer from the SA at lid {} after {} attempts", sa_.lid, attempts_));
}

std::optional<Micros> SaClientCall::next_deadline() const {
  if (done()) return std::nullopt;
  if (receiving_) return rmpp_.next_deadline();
  return deadline_;
}

Result<SaAnswer> run_sa_call(Transport& port, const Clock& clock, const MadAddress& sa, SaRequest request,
                             SaClientOptions options) {
  Status send_failure;
  SaClientCall call(
      [&](const MadPacket& p) {
        Status s = port.send(p);
        if (!s.ok()) send_failure = s;
      },
      sa, std::move(request), options);
  call.start(clock.now());
  while (!call.done()) {
    if (!send_failure.ok()) return send_failure;
    while (auto p = port.receive()) call.handle(*p, clock.now());
    call.poll(clock.now());
    if (call.done()) break;
    const Micros next = call.next_deadline().value_or(clock.now());
    port.wait(std::clamp<Micros>(next - clock.now(), 0, 100'000));
  }
  return call.result();
}

}  // namespace ibsm::sa
