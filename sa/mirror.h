// A standby SM's copy of its master's SA state (issue: "nothing lost in a
// takeover"): it reads the master SA's ServiceRecord, InformInfoRecord and
// MCMemberRecord tables with GetTable, over RMPP, with the client `ibsm query` uses
// (SaClientCall), keeps the latest complete copy, and installs it into the
// SaAgent that serves once this SM is master (apply_to).
//
// One read is three calls at once, each GetTable with an empty ComponentMask
// (every record) and the SM_Key, so that the master answers as to a trusted
// requester: ServiceKeys and subscriber QPNs included, every member of every
// multicast group with its PortGID, JoinState and MLID, and (in ibsm's SA)
// records of every partition. A read succeeds when all answer with success;
// then its records replace the copy, and the copy is stamped with the time
// the read completed. A read that fails (an answer with an error status, no
// answer after the retries, an RMPP transfer aborted, a record that does not
// decode) leaves the previous copy as it was, and is counted.
//
// Driving, like SaClientCall and the agent (single-threaded, clock-free):
//  - start(master_sa, now) each poll of the master while STANDBY; a read
//    under way from that master goes on (start does nothing); one from
//    another address is abandoned for the new one.
//  - handle(packet, now) for every SA MAD the port receives, before the
//    SaAgent: it takes the responses under its own TIDs (true) and leaves
//    every other MAD to the agent (false).
//  - poll(now) at or after next_deadline().
//  - apply_to(agent, now) once, at the takeover (before the agent answers
//    anyone as master): the copy replaces the agent's services,
//    subscriptions and multicast groups (with their MLIDs, so the groups'
//    forwarding stays as it was), leases restart at `now` (service_records.h
//    says why).
//
// TIDs: a read's two calls use TIDs whose low 32 bits count up from
// tid_base and wrap within [tid_base, tid_base + 0xFFFF]; the high 32 are
// left zero (the kernel's). The default range 0x4D52'0000-0x4D52'FFFF ("MR")
// lies far from the dispatcher's SMP TIDs (counting up from 1; SMPs are
// another class anyway) and from the low 32 bits of the SA's Reports
// (SubscriptionOptions::first_tid, counting up from 1), the only other SA
// requests this port sends; ReportResponses under those TIDs stay the agent's.
//
// What a takeover can still lose:
//  - what changed on the master after the last completed read (one poll
//    period and a read at most): a service registered since is missing, one
//    deleted since comes back (until its owner deletes it again or its lease
//    ends), and the same for subscriptions made or withdrawn;
//  - the Reports the master had queued or in flight: nobody resends them;
//  - the trust of wildcard subscriptions made with the SM_Key: the wire does
//    not carry it, and they get no security traps afterwards (subscriptions.h);
//  - subscribers whose ports the new master's snapshot lacks (dropped, as a
//    port that leaves is);
//  - multicast groups without members (none listed): a predefined one comes
//    back from this SM's own partitions, at its own MLID (mc_member_records.h);
//  - from an OpenSM master, what it does not answer (below).
// Leases are not lost but lengthened: each restarts at the takeover.
//
// Against an OpenSM master (osm_sa_service_record.c, osm_sa_informinfo.c,
// osm_sa_mad_ctrl.c): both tables are served to GetTable. sm_key must then
// be OpenSM's sa_key option (default 1), not its sm_key: a MAD with any
// other non-zero key is dropped unanswered (the read times out), and with
// key 0 ServiceKeys read as zeros and QPNs as 0. OpenSM filters both tables
// by partition even for a trusted requester: services whose ServiceP_Key
// the standby's port lacks, and subscriptions of ports that share no
// partition with it, are not answered and so not mirrored. It numbers every
// subscription Enum 0 (Subscriptions::import renumbers). It ignores SA MADs
// during its first sweep: such a read fails and the next poll tries again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "mad/base/clock.h"
#include "mad/base/log.h"
#include "mad/base/status.h"
#include "mad/rmpp/sessions.h"
#include "mad/transport.h"
#include "sa/agent.h"
#include "sa/client.h"
#include "sa/registrations.h"

namespace ibsm::sa {

struct SaMirrorOptions {
  // The SM_Key the master's SA trusts (ibsm: its sm_key; OpenSM: sa_key).
  uint64_t sm_key = 0;
  // Per call: the wait for an answer, and the resends of the request.
  SaClientOptions call;
  // Low 32 bits of the first TID; the mirror uses tid_base .. tid_base + 0xFFFF.
  uint32_t tid_base = 0x4D52'0000;
};

struct SaMirrorCounters {
  uint64_t reads_started = 0;
  uint64_t reads_ok = 0;
  uint64_t reads_failed = 0;     // the copy stayed as it was
  uint64_t reads_abandoned = 0;  // start() for another master while one was under way
  // Records in the copy.
  uint64_t services_held = 0;
  uint64_t subscriptions_held = 0;
  uint64_t multicast_members_held = 0;  // MCMemberRecords: one per member of every group
};

// The latest complete read.
struct SaMirrorCopy {
  SaRegistrations registrations;
  MadAddress master;    // the SA it was read from
  Micros read_at = 0;   // when the read completed
};

class SaMirror {
 public:
  explicit SaMirror(rmpp::MadSink sink, SaMirrorOptions options = {}, LogSink& log = null_log_sink());
  ~SaMirror();
  SaMirror(const SaMirror&) = delete;
  SaMirror& operator=(const SaMirror&) = delete;

  // Begins one read of the SA at `master_sa` (sa_address(master's LID)).
  void start(MadAddress master_sa, Micros now);
  // A received SA MAD; true when it was a response to one of the mirror's calls.
  bool handle(const MadPacket& packet, Micros now);
  void poll(Micros now);
  std::optional<Micros> next_deadline() const;
  bool busy() const { return read_ != nullptr; }

  // Installs the copy into `agent` (SaAgent::import); nothing when no read
  // ever completed (the agent keeps what it has), which returns nullopt.
  std::optional<SaImportResult> apply_to(SaAgent& agent, Micros now) const;

  const std::optional<SaMirrorCopy>& copy() const { return copy_; }
  const SaMirrorCounters& counters() const { return counters_; }
  // Why the last failed read failed (ok while none has).
  const Status& last_error() const { return last_error_; }

 private:
  struct Read;
  void finish(Micros now);
  uint64_t next_tid();
  bool ours(uint64_t tid) const;

  rmpp::MadSink sink_;
  SaMirrorOptions options_;
  LogSink& log_;
  std::unique_ptr<Read> read_;
  std::optional<SaMirrorCopy> copy_;
  SaMirrorCounters counters_;
  Status last_error_;
  uint32_t tid_offset_ = 0;  // the next TID is tid_base + tid_offset_ (16 bits)
};

}  // namespace ibsm::sa
