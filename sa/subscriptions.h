// Event subscriptions and Report forwarding (IBA 13.4.8.3 InformInfo,
// 15.2.5.12 InformInfoRecord, 13.4.8.2 Notice, 13.4.7 Report/ReportResponse).
//
// Set(InformInfo) with Subscribe 1 adds a subscription for the requester
// (its port is the subscriber; Reports go to the LID the request came from),
// Subscribe 0 removes the subscriber's subscription that agrees on every
// other field (with a non-zero GID the LID range is not compared, as
// OpenSM). Subscribing again with the same fields replaces the stored one.
// The answer echoes the InformInfo; an error answer echoes it with
// Subscribe 0 (o13-13.1.1, as OpenSM): records hold it even when status is
// non-zero, unlike run_query's error answers.
//
// Set validation, every failure ERR_REQ_INVALID (IBA 13.4.8.3, OpenSM):
//  - the requester is not a port of the subnet; Subscribe or IsGeneric above 1;
//  - GID non-zero and not a port of the subnet; GID zero and LIDRangeBegin
//    neither 0xFFFF (all) nor a unicast LID, or LIDRangeEnd (0: = Begin)
//    below Begin or above the unicast range;
//  - Type neither a notice type (0-4) nor 0xFFFF; a generic ProducerType
//    neither 1-4 nor 0xFFFFFF;
//  - unsubscribing a subscription that does not exist.
// Security traps (256-259) are for trusted requesters only (C15-0.2-1.16):
// naming one untrusted is ERR_REQ_DENIED (OpenSM: ERR_REQ_INVALID; the
// spec's "denied" says why, as query.h does for P_Key tables), and a
// wildcard subscription made untrusted never receives them.
// A full table: ERR_NO_RESOURCES. QPN 0 (QP0 takes no GMPs) reports to QP1,
// the GSI QP the Set came from (OpenSM always reports to the source QP).
//
// Get/GetTable(InformInfoRecord) match component-wise over SubscriberGID,
// Enum and the InformInfo fields; Enum numbers one subscriber's
// subscriptions from 0 (lowest free). QPN reads 0 for untrusted requesters
// (C15-0.2-1.16), before matching; an untrusted requester sees the
// subscriptions of ports it shares a partition with.
//
// Reports: publish() queues one Report(Notice) per matching subscription;
// take_due() hands out the MADs to send now, first sends and retries. The
// retry timeout is the subscriber's RespTimeValue (4.096 us * 2^value),
// clamped to [min_report_timeout, max_report_timeout]; after max_report_retries
// retries without a ReportResponse the Report is given up and counted. The
// subscription stays: OpenSM too only retires the MAD when a Report times
// out, and removes subscriptions when their port leaves the subnet (prune()).
// A slow or busy subscriber that still exists keeps getting later events.
// At most max_outstanding_reports Reports are in flight at once; the others
// wait, first in first out (TID order).
//
// import() installs the InformInfoRecords another SA answered to a trusted
// GetTable (a standby's copy of its master's, sa/mirror.h) in place of every
// subscription held, imported or subscribed here, for the reasons
// ServiceRegistry::import gives; Reports already queued stay. From each record:
//  - the subscriber: the port whose GID is SubscriberGID in `snapshot` (one
//    not in the subnet is dropped, as prune() would drop it). Its Reports go
//    to that port's base LID (prune() follows later LID changes), to the
//    record's QPN (a trusted read has it; an untrusted one reads 0, which
//    reports to QP1), retried on the record's RespTimeValue.
//  - Enum: the record's, unless this subscriber already has that one in the
//    import (OpenSM numbers every subscription 0): then the lowest free one.
//  - Trust (who may receive security traps 256-259): the wire does not say
//    whether a subscription was made with the SM_Key. One that names a
//    security trap was (both SAs refuse it otherwise); a wildcard one is
//    taken as untrusted and gets no security traps after the takeover.
//  - A subscription already held with the same subscriber and InformInfo
//    keeps its trust and its LID (when that is still the port's), so
//    importing one table twice changes nothing.
//  - Duplicates (same subscriber and subscription) keep the first; records
//    past max_subscriptions are dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/types.h"
#include "mad/transport.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/notice.h"
#include "sa/query.h"
#include "sa/registrations.h"
#include "sa/snapshot.h"

namespace ibsm::sa {

struct SubscriptionOptions {
  size_t max_subscriptions = 65536;
  size_t max_pending_reports = 65536;  // Reports queued or awaiting a response; more are dropped
  // Reports sent and not yet answered or given up: more wait their turn, so
  // that a burst (every port of a fabric coming up) does not flood QP1.
  size_t max_outstanding_reports = 64;
  int max_report_retries = 3;          // OpenSM's transaction_retries default
  Micros min_report_timeout = 200'000;     // OpenSM's transaction_timeout default (200 ms)
  Micros max_report_timeout = 10'000'000;  // RespTimeValue 31 would be 2.4 hours
  uint64_t first_tid = 0x0000'5250'0000'0001ULL;  // Reports' TIDs count up from here
};

struct ReportCounters {
  uint64_t sent = 0;          // first sends
  uint64_t retried = 0;       // resends after a timeout
  uint64_t acknowledged = 0;  // ended by a ReportResponse
  uint64_t given_up = 0;      // no response after every retry
  uint64_t dropped = 0;       // never sent: the pending queue was full, or the subscriber left
};

class Subscriptions {
 public:
  explicit Subscriptions(SubscriptionOptions options = {}) : options_(options), next_tid_(options.first_tid) {}

  // Set(InformInfo) and Get/GetTable(InformInfoRecord); other attributes
  // answer unsupported_attribute, other methods unsupported_method.
  SaQueryResult handle(const SaSnapshot& snapshot, const SaQuery& query, Micros now);

  // Queues a Report of `notice` to every subscription it matches.
  void publish(const wire::Notice& notice, Micros now);
  // The Report MADs to send at `now`: first sends and retries.
  std::vector<MadPacket> take_due(Micros now);
  // A ReportResponse (by TID) ends its Report's retries; anything else is ignored.
  void on_report_response(const MadPacket& response);
  // When take_due next has something to do: a send, a retry or a give-up
  // (nullopt when nothing is pending, or only Reports waiting for the window).
  std::optional<Micros> next_deadline() const;

  // Installs `records` in place of every subscription held (see the header
  // comment), subscribers found in `snapshot`.
  ImportResult import(std::vector<wire::InformInfoRecord> records, const SaSnapshot& snapshot);
  // Every subscription as a trusted GetTable answers it (QPNs included), for
  // the cache: what import() takes back.
  std::vector<wire::InformInfoRecord> records() const;

  // Drops the subscriptions (and their queued Reports) of ports no longer
  // in `snapshot`, and follows subscribers whose LIDs changed.
  void prune(const SaSnapshot& snapshot);

  size_t size() const { return subs_.size(); }
  size_t pending_reports() const { return pending_.size(); }  // queued and in flight
  size_t outstanding_reports() const { return in_flight_; }
  const ReportCounters& counters() const { return counters_; }

 private:
  struct Subscription {
    Guid port;       // the subscriber's port
    wire::Gid gid;   // SubscriberGID
    Lid lid;         // where its Reports go
    uint16_t enum_ = 0;
    wire::InformInfo info;  // as subscribed (Subscribe 1)
    bool trusted = false;   // subscribed with the SM_Key
  };
  struct Pending {
    MadPacket packet;
    Guid port;
    Micros timeout = 0;
    Micros next_send = 0;
    int attempts = 0;  // sends so far
  };

  SaQueryResult set(const SaSnapshot& s, const SaQuery& q, Micros now);
  std::map<uint32_t, Pending>::iterator retire(std::map<uint32_t, Pending>::iterator it);
  SaQueryResult get_records(const SaSnapshot& s, const SaQuery& q) const;
  bool matches(const Subscription& sub, const wire::Notice& n) const;
  Micros report_timeout(const Subscription& sub) const;

  SubscriptionOptions options_;
  std::vector<Subscription> subs_;  // by subscriber GID, then Enum
  std::map<uint32_t, Pending> pending_;  // by the TID's low 32 bits
  uint64_t next_tid_;
  size_t in_flight_ = 0;  // pending_ entries sent at least once
  ReportCounters counters_;
};

}  // namespace ibsm::sa
