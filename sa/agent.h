// The SA agent (IBA 15): class 0x03 on QP1 of the SM port. It reads every
// SA MAD the port receives, answers each request from the current snapshot,
// and sends multi-record answers with RMPP done here, in user space, so it
// works the same on SimFabric, on ibsim (which carries single MADs) and on
// hardware (where Linux's ib_mad does RMPP on the client side).
//
// Every request gets an answer (issue 5): an unknown attribute or method, a
// bad version, a bad component mask, a request before the first snapshot
// each get the spec's status. Only what cannot be answered is dropped, and
// counted: a MAD too broken to read, or a response nobody asked for.
//
// Which method answers what (IBA 15.4):
//  Get, Set -> GetResp, one record in one MAD;
//  GetTable -> GetTableResp, every record, always RMPP (even none: one
//    First|Last segment, as OpenSM and Linux expect);
//  GetMulti -> GetMultiResp, RMPP (MultiPathRecord; the request may itself be
//    an RMPP transfer, reassembled here);
//  Delete -> DeleteResp, the deleted record;
//  an error of any method -> one plain MAD with the status, the request's
//    SA header and data echoed.
//
// Single-threaded and clock-free: the owner feeds received SA MADs to
// handle(), calls poll() at or after next_deadline(), and swaps in a new
// snapshot once the switches carry the routes it describes (set_snapshot), so
// a query is never answered with a path the fabric does not yet have.
//
// Multicast groups (MCMemberRecord, mc_member_records.h) are held here too;
// the SM learns their changes through take_multicast_changes() and multicast().
//
// import() is the takeover: the registrations a standby read from its master
// (sa/mirror.h) replace this agent's own, as the registries document. It is
// also the restart: what the SM's cache kept (sa/registrations_codec.h).
// registrations() is the other way, for the cache; registrations_changes()
// counts what may have changed them, so the owner knows when to save.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/rmpp/sessions.h"
#include "mad/transport.h"
#include "mad/wire/notice.h"
#include "sa/mc_member_records.h"
#include "sa/query.h"
#include "sa/registrations.h"
#include "sa/service_records.h"
#include "sa/snapshot.h"
#include "sa/subscriptions.h"

namespace ibsm::sa {

struct SaAgentOptions {
  // Requests carrying this SM_Key are trusted (P_Key records, keys shown).
  uint64_t sm_key = 0;
  // ClassPortInfo:RespTimeValue: 4.096 us * 2^value. The SA answers at once;
  // 18 (1.07 s) leaves room for an RMPP answer of many segments.
  uint8_t resp_time_value = 18;
  // Largest request the agent reassembles (a MultiPathRecord with its GIDs).
  size_t max_request_bytes = 16 * 1024;
  rmpp::SessionsOptions rmpp;
  ServiceRegistryOptions services;
  SubscriptionOptions subscriptions;
  McGroupsOptions multicast;
};

// What an answer was: the request's attribute and method, and the status
// the answer carried (0: success).
struct SaAnswerKind {
  uint16_t attribute = 0;
  uint8_t method = 0;
  uint16_t status = 0;
  auto operator<=>(const SaAnswerKind&) const = default;
};

struct SaAgentCounters {
  uint64_t received = 0;          // SA MADs handed to handle()
  uint64_t requests = 0;          // requests read (a reassembled transfer counts once)
  uint64_t answered = 0;          // answered with success
  uint64_t errors = 0;            // answered with an error status
  uint64_t malformed_dropped = 0; // too broken to answer (not a readable SA MAD)
  uint64_t unexpected_responses = 0;
  uint64_t duplicates = 0;        // a request whose answer is still being sent (its RMPP transfer is active)
  uint64_t tid_reused = 0;        // another request under the TID of an answer still being sent: that answer dropped
  uint64_t rmpp_answers = 0;      // answers sent as RMPP transfers
  uint64_t rmpp_refused = 0;      // too many transfers active: answered NO_RESOURCES
  uint64_t rmpp_requests = 0;     // requests that came as RMPP transfers
  uint64_t report_responses = 0;  // ReportResponses to our Reports
  // Every answered request by its kind (answered + errors in all).
  std::map<SaAnswerKind, uint64_t> answers_by_kind;
};

struct SaImportResult {
  ImportResult services;
  ImportResult subscriptions;
  // No snapshot yet: the subscriptions wait for the first (their
  // subscribers' ports and LIDs come from it) and are installed by set_snapshot.
  bool subscriptions_deferred = false;
  ImportResult multicast;
  bool multicast_deferred = false;  // likewise the groups (their members' ports)
};

class SaAgent {
 public:
  // A request without its TID (and RMPP header): two requests under one TID
  // are the same request when these are equal.
  struct RequestIdentity {
    std::array<uint8_t, 36> header{};
    std::vector<uint8_t> data;
    bool operator==(const RequestIdentity&) const = default;
  };

  explicit SaAgent(rmpp::MadSink sink, SaAgentOptions options = {}, LogSink& log = null_log_sink());
  ~SaAgent();
  SaAgent(const SaAgent&) = delete;
  SaAgent& operator=(const SaAgent&) = delete;

  // The subnet to answer from, from now on. Queries in progress keep the
  // snapshot they started with (RMPP answers hold their bytes). Subscribers
  // that left go; the ports that left or came are reported (traps 65/64) to
  // those subscribed.
  void set_snapshot(std::shared_ptr<const SaSnapshot> snapshot, Micros now);
  // A notice for the subscribers (a trap the SM received, say).
  void publish(const wire::Notice& notice, Micros now);
  const std::shared_ptr<const SaSnapshot>& snapshot() const { return snapshot_; }

  // Installs `registrations`, read from another SA, in place of this agent's
  // services and subscriptions (ServiceRegistry::import, Subscriptions::import):
  // finite leases restart at `now`, subscribers are found in the snapshot.
  SaImportResult import(SaRegistrations registrations, Micros now);
  // What this agent holds, as a trusted GetTable of each table would answer
  // it, services with their leases' time left at `now`; subscriptions and
  // groups imported but waiting for the first snapshot as they came.
  SaRegistrations registrations(Micros now) const;
  // Goes up whenever the registrations may have changed: a successful Set
  // or Delete of a ServiceRecord, InformInfo or MCMemberRecord, an import,
  // a lease that ended, a subscriber or member that left with a snapshot.
  uint64_t registrations_changes() const { return registrations_changes_; }

  // The partitions whose predefined multicast groups the SA keeps
  // (mc_predefined.h); nullptr, the default: OpenSM's built-in default
  // partition. Applied at once when a snapshot is held, else with the first.
  void set_partitions(std::shared_ptr<const PartitionConfig> partitions, Micros now);
  // The multicast groups, for the SM's trees (McGroups::members), and the
  // MLIDs whose groups were created, deleted or changed members since the
  // last call, ascending.
  const McGroups& multicast() const { return multicast_.groups(); }
  std::vector<Lid> take_multicast_changes() { return multicast_.take_changes(); }
  // The MFTs the SM programmed (over the snapshot's NodeIndex), served as
  // MulticastForwardingTableRecords; tables of another fabric are not.
  void set_multicast_tables(std::shared_ptr<const MulticastTables> tables) { multicast_tables_ = std::move(tables); }

  // A received MAD of the SA class: a request, an RMPP segment or ACK, a
  // ReportResponse. Answers go out through the sink.
  void handle(const MadPacket& packet, Micros now);
  // RMPP timeouts and resends, service leases, Reports due.
  void poll(Micros now);
  std::optional<Micros> next_deadline() const;

  const SaAgentCounters& counters() const { return counters_; }
  // Called as each answer's first MAD has gone to the sink, with the `now`
  // the request was handed over at: the owner, which has a clock, measures
  // the latency (the agent has none).
  using AnswerListener = std::function<void(const SaAnswerKind& kind, Micros arrived)>;
  void set_answer_listener(AnswerListener listener) { on_answer_ = std::move(listener); }
  const rmpp::RmppSessions& rmpp_sessions() const { return rmpp_; }
  const ServiceRegistry& services() const { return services_; }
  const Subscriptions& subscriptions() const { return subscriptions_; }
  const MulticastRegistry& multicast_registry() const { return multicast_; }

 private:
  // A request whose bytes are whole: `header` the first 56 bytes (common,
  // RMPP and SA headers), `data` its SA data (200 bytes, or more when it came
  // by RMPP).
  void serve(const MadAddress& peer, std::span<const uint8_t> header, std::span<const uint8_t> data, Micros now);
  // One plain MAD: the request's header with the response method, `status`,
  // and `data` (at most 200 bytes) as SA data.
  void send_single(const MadAddress& peer, std::span<const uint8_t> header, uint8_t method, uint16_t status,
                   uint16_t attr_offset, std::span<const uint8_t> data);
  void send_result(const MadAddress& peer, std::span<const uint8_t> header, uint8_t request_method,
                   SaQueryResult result, std::span<const uint8_t> request_data, Micros now);
  SaQueryResult answer(const SaQuery& query, std::span<const uint8_t> data, Micros now);
  // Whether a request under the key of an RMPP answer still being sent is a
  // resend of the request it answers (a duplicate) rather than a new one.
  bool same_request(const rmpp::SessionKey& key, std::span<const uint8_t> header, std::span<const uint8_t> data) const;
  // Traps 66/67 for the groups created and deleted since the last call.
  void publish_multicast_events(Micros now);
  void remember_request(const rmpp::SessionKey& key, std::span<const uint8_t> header, std::span<const uint8_t> data);
  // Counts the answer to the request whose header is `request_header`.
  void note_answer(std::span<const uint8_t> request_header, uint16_t status);
  // Services, subscriptions and multicast members held: when any count moved
  // across a step, the registrations changed.
  std::array<size_t, 3> registration_counts() const;
  void note_if_changed(const std::array<size_t, 3>& before);

  rmpp::MadSink sink_;
  SaAgentOptions options_;
  LogSink& log_;
  std::shared_ptr<const SaSnapshot> snapshot_;
  std::shared_ptr<const MulticastTables> multicast_tables_;
  rmpp::RmppSessions rmpp_;
  ServiceRegistry services_;
  Subscriptions subscriptions_;
  MulticastRegistry multicast_;
  SaAgentCounters counters_;
  AnswerListener on_answer_;
  Micros arrived_ = 0;  // the `now` of the request being handled
  // Subscriptions imported before the first snapshot, installed with it.
  std::optional<std::vector<wire::InformInfoRecord>> pending_import_;
  std::optional<std::vector<wire::McMemberRecord>> pending_multicast_import_;
  // The requests whose answers are RMPP transfers, by the transfers' keys;
  // entries of transfers no longer active are pruned as the map grows.
  std::map<rmpp::SessionKey, RequestIdentity> rmpp_requests_;
  uint64_t registrations_changes_ = 0;
};

}  // namespace ibsm::sa
