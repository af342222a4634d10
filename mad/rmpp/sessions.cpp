#include "mad/rmpp/sessions.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

namespace ibsm::rmpp {

SessionKey session_key(const MadAddress& peer, std::span<const uint8_t> mad) {
  assert(mad.size() >= wire::mad_header_size);
  uint64_t tid = 0;
  for (size_t i = 8; i < 16; ++i) tid = (tid << 8) | mad[i];  // TransactionID, bytes 8-15 (IBA 13.4.2)
  // The low 32 bits only: the layers on the way own the high ones (ib_umad
  // and umad2sim put the sending agent's number in bits 32-47 of every
  // request, an ACK included; ibsim routes by bits 48-63), so a peer's ACK
  // that echoes a segment's TID need not carry the high bits its request
  // arrived with. Keyed on all 64, the SA took such ACKs for nobody's and
  // resent the answer to a client that had left.
  tid &= 0xFFFFFFFF;
  return {.lid = peer.lid.value, .qp = peer.qp, .tid = tid, .mgmt_class = mad[1]};
}

RmppSessions::RmppSessions(MadSink sink, SessionsOptions options) : sink_(std::move(sink)), options_(options) {
  assert(options_.max_sessions >= 1);
}

bool RmppSessions::make_room() {
  if (sessions_.size() < options_.max_sessions) return true;
  auto oldest = sessions_.end();
  for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
    if (it->second.finished_at < 0) continue;
    if (oldest == sessions_.end() || it->second.finished_at < oldest->second.finished_at) oldest = it;
  }
  if (oldest == sessions_.end()) {
    // Every transfer is still running: take the oldest send that never got an ACK.
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (!it->second.sender || it->second.sender->last_acked() != 0) continue;
      if (oldest == sessions_.end() || it->second.started_at < oldest->second.started_at) oldest = it;
    }
    if (oldest == sessions_.end()) return false;
    ++evicted_;
  }
  sessions_.erase(oldest);
  return true;
}

bool RmppSessions::cancel(const SessionKey& key) { return sessions_.erase(key) > 0; }

void RmppSessions::after_event(const SessionKey& key, Session& s, Micros now) {
  if (s.state() == TransferState::active || s.finished_at >= 0) return;
  s.finished_at = now;
  if (s.receiver && s.state() == TransferState::done && !s.delivered) {
    s.delivered = true;
    const auto header = s.receiver->header();
    deliveries_.push_back({.key = key,
                           .peer = s.receiver->peer(),
                           .header = std::vector<uint8_t>(header.begin(), header.end()),
                           .data = s.receiver->take_data()});
  }
}

Status RmppSessions::start_send(const MadAddress& peer, std::span<const uint8_t> header, std::vector<uint8_t> data,
                                Micros now) {
  if (header.size() < options_.sender.layout.data_offset)
    return invalid_argument_error(fmt::format("rmpp header of {} bytes, need {}", header.size(),
                                              options_.sender.layout.data_offset));
  if (data.size() > max_data_bytes(options_.sender.layout))
    return invalid_argument_error(fmt::format("rmpp payload of {} bytes too large", data.size()));
  const SessionKey key = session_key(peer, header);
  if (auto it = sessions_.find(key); it != sessions_.end()) {
    if (it->second.state() == TransferState::active)
      return failed_precondition_error(fmt::format("rmpp transfer to lid {} tid 0x{:x} already active", key.lid, key.tid));
    sessions_.erase(it);
  }
  if (!make_room()) {
    ++refused_;
    return unavailable_error(fmt::format("rmpp: {} transfers active, none to lid {} started", sessions_.size(), key.lid));
  }
  Session& s = sessions_[key];
  s.started_at = now;
  s.sender = std::make_unique<RmppSender>(peer, header, std::move(data), sink_, options_.sender);
  s.sender->start(now);
  after_event(key, s, now);
  return Status::ok_status();
}

bool RmppSessions::handle(const MadPacket& packet, Micros now) {
  const std::span<const uint8_t> mad(packet.data);
  auto decoded = wire::decode_rmpp_header(mad);
  if (!decoded.ok() || !decoded->active()) return false;
  // Active with RMPPVersion 0 and RMPPType 0 is no transfer: it is what a
  // libibumad client writes for a request it leaves to the kernel to
  // segment (osmtest's MultiPathRecord GetMulti), and umad2sim hands it on
  // untouched. It is one whole MAD, taken as a plain one (OpenSM serves it
  // so); answering it with an ABORT would be read as the answer.
  if (decoded->version == 0 && decoded->type == wire::rmpp_type::none) return false;
  const wire::RmppHeader& r = *decoded;
  const SessionKey key = session_key(packet.address, mad);

  if (auto it = sessions_.find(key); it != sessions_.end() && it->second.sender && r.type == wire::rmpp_type::data &&
                                      r.segment_number() == 1 && r.first()) {
    // The peer answers a transfer we sent with one of its own under the same
    // TID (a GetMulti answered by a GetMultiResp): a sender never receives
    // DATA, so the answer starts a receiver in its place.
    sessions_.erase(it);
  }
  if (auto it = sessions_.find(key); it != sessions_.end()) {
    Session& s = it->second;
    if (s.sender) s.sender->handle(mad, now);
    else s.receiver->handle(mad, now);
    after_event(key, s, now);
    return true;
  }

  const Layout& layout = options_.receiver.layout;
  auto reply = [&](uint8_t type, uint8_t status) {
    MadPacket out;
    out.address = packet.address;
    out.data = make_control(mad, {.type = type, .status = status, .resp_time = options_.receiver.resp_time}, true,
                            layout);
    sink_(out);
  };
  // No transfer of this key. A bad header is answered all the same (Linux's
  // ib_process_rmpp_recv_wc does); ACK, STOP, ABORT and DATA other than a
  // first segment belong to nothing we know and are dropped.
  if (auto problem = header_problem(r)) {
    reply(wire::rmpp_type::abort, *problem);
    return true;
  }
  if (r.type != wire::rmpp_type::data || r.segment_number() != 1 || !r.first()) return true;
  if (!make_room()) {
    ++refused_;
    reply(wire::rmpp_type::stop, wire::rmpp_status::resources_exhausted);
    return true;
  }
  Session& s = sessions_[key];
  s.started_at = now;
  s.receiver = std::make_unique<RmppReceiver>(packet.address, sink_, now, options_.receiver);
  s.receiver->handle(mad, now);
  after_event(key, s, now);
  return true;
}

void RmppSessions::poll(Micros now) {
  for (auto& [key, s] : sessions_) {
    if (s.state() != TransferState::active) continue;
    if (s.sender) s.sender->poll(now);
    else s.receiver->poll(now);
    after_event(key, s, now);
  }
  std::erase_if(sessions_, [&](const auto& entry) {
    return entry.second.finished_at >= 0 && entry.second.finished_at + options_.linger <= now;
  });
}

std::optional<Micros> RmppSessions::next_deadline() const {
  std::optional<Micros> next;
  auto consider = [&](Micros t) { next = next ? std::min(*next, t) : t; };
  for (const auto& [key, s] : sessions_) {
    if (s.finished_at >= 0) consider(s.finished_at + options_.linger);
    else if (auto d = s.deadline()) consider(*d);
  }
  return next;
}

std::vector<Delivery> RmppSessions::take_deliveries() { return std::exchange(deliveries_, {}); }

size_t RmppSessions::active() const {
  return static_cast<size_t>(std::count_if(sessions_.begin(), sessions_.end(), [](const auto& entry) {
    return entry.second.state() == TransferState::active;
  }));
}

std::optional<TransferState> RmppSessions::state(const SessionKey& key) const {
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return std::nullopt;
  return it->second.state();
}

std::optional<uint8_t> RmppSessions::abort_status(const SessionKey& key) const {
  auto it = sessions_.find(key);
  if (it == sessions_.end()) return std::nullopt;
  return it->second.abort_status();
}

}  // namespace ibsm::rmpp
