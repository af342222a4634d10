// The RMPP transfers of one agent (the SA, an SA client): many at once, keyed
// by peer LID, QP, TID and class, in a table of bounded size. Received
// RMPP-active MADs are routed to their transfer; a first DATA segment opens a
// receiver; finished transfers linger a while (to re-ACK a resent last
// segment, as Linux keeps them 10 s) and then go. A full table refuses new
// transfers: senders get an error (the SA answers NoResources), receivers a
// STOP resources_exhausted, so memory never grows with what peers send.
#pragma once

#include <cstdint>
#include <compare>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <variant>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/status.h"
#include "mad/rmpp/receiver.h"
#include "mad/rmpp/sender.h"
#include "mad/rmpp/segments.h"
#include "mad/transport.h"

namespace ibsm::rmpp {

struct SessionKey {
  uint16_t lid = 0;
  uint32_t qp = 0;
  uint64_t tid = 0;
  uint8_t mgmt_class = 0;
  auto operator<=>(const SessionKey&) const = default;
};
// The key of a MAD from (or to) `peer`.
SessionKey session_key(const MadAddress& peer, std::span<const uint8_t> mad);

struct SessionsOptions {
  size_t max_sessions = 256;
  // How long a finished transfer stays (Linux: 10 s, mad_rmpp.c complete_rmpp).
  Micros linger = 10'000'000;
  SenderOptions sender;
  ReceiverOptions receiver;
};

// A transfer whose data all arrived.
struct Delivery {
  SessionKey key;
  MadAddress peer;
  std::vector<uint8_t> header;  // the first segment's bytes before the class data
  std::vector<uint8_t> data;
};

class RmppSessions {
 public:
  explicit RmppSessions(MadSink sink, SessionsOptions options = {});

  // Starts sending `data` to `peer` (see RmppSender). Fails with unavailable
  // when the table is full of active transfers, with failed_precondition when
  // this key is active already.
  Status start_send(const MadAddress& peer, std::span<const uint8_t> header, std::vector<uint8_t> data, Micros now);

  // A received MAD. Returns false when it is not RMPP-active (the caller's to
  // handle as a plain MAD); true when the table took it, whatever it did.
  // Offer every received MAD of the class here first: the ACKs of an SA answer
  // come back with the request's method (GetTable, R bit clear) and the RMPP
  // active flag, and must not be taken for new requests.
  bool handle(const MadPacket& packet, Micros now);
  // Timeouts of active transfers, expiry of finished ones.
  void poll(Micros now);
  std::optional<Micros> next_deadline() const;

  // Transfers received whole since the last call, in completion order.
  std::vector<Delivery> take_deliveries();

  size_t size() const { return sessions_.size(); }
  size_t active() const;
  // The state of a transfer still in the table.
  std::optional<TransferState> state(const SessionKey& key) const;
  std::optional<uint8_t> abort_status(const SessionKey& key) const;
  // Forgets a transfer without a word to the peer (the peer has moved on:
  // it reused the TID for another request). Returns whether there was one.
  bool cancel(const SessionKey& key);
  uint64_t refused() const { return refused_; }  // transfers turned away, table full
  uint64_t evicted() const { return evicted_; }  // unacknowledged sends dropped to make room

 private:
  struct Session {
    std::unique_ptr<RmppSender> sender;      // one of the two
    std::unique_ptr<RmppReceiver> receiver;
    Micros started_at = 0;
    Micros finished_at = -1;                 // when it left the active state
    bool delivered = false;
    TransferState state() const { return sender ? sender->state() : receiver->state(); }
    uint8_t abort_status() const { return sender ? sender->abort_status() : receiver->abort_status(); }
    std::optional<Micros> deadline() const { return sender ? sender->next_deadline() : receiver->next_deadline(); }
  };
  // Room for one more: evicts the longest-finished transfer if the table is
  // full, else the oldest send the peer never acknowledged at all.
  bool make_room();
  void after_event(const SessionKey& key, Session& s, Micros now);

  MadSink sink_;
  SessionsOptions options_;
  std::map<SessionKey, Session> sessions_;
  std::vector<Delivery> deliveries_;
  uint64_t refused_ = 0;
  uint64_t evicted_ = 0;
};

}  // namespace ibsm::rmpp
