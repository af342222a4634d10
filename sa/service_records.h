// The SA's ServiceRecord registry (IBA 15.2.5.14): services that ports
// register with Set, find with Get/GetTable and withdraw with Delete, each
// kept for its lease.
//
// Identity: a record is named by ServiceID, ServiceGID and ServiceP_Key
// together (what OpenSM calls the record's RID); a Set with the identity of
// a stored record replaces it and restarts its lease.
//
// Set and Delete:
//  - The ComponentMask must select ServiceID and ServiceGID (the identity;
//    without them there is nothing to register or find):
//    ERR_REQ_INSUFFICIENT_COMPONENTS (IBA 15.2.1.1 table 187; OpenSM answers
//    ERR_REQ_INVALID). A mask bit that names no component: ERR_REQ_INVALID.
//  - ServiceLease not selected: an infinite lease; ServiceP_Key not
//    selected: the default P_Key 0xFFFF (both as OpenSM does), for Delete too
//    so that the identity a Set answered with is the one a Delete names.
//  - ServiceGID's interface ID must be a port GUID of this subnet, whatever
//    its prefix (OpenSM finds the port by the interface ID alone; osmtest
//    sends a zero or byte-swapped prefix): ERR_REQ_GID_INVALID. The record
//    keeps the GID as given (as OpenSM stores the record it received).
//  - Only the owner may register, replace or delete: the ServiceGID's port
//    must be the requester's port, unless the request carried the SM_Key
//    (trusted): ERR_REQ_DENIED. (OpenSM does not check ownership.)
//  - A selected ServiceP_Key must be in the P_Key tables of the requester
//    and of the ServiceGID's port (trusted requests excepted): ERR_REQ_INVALID
//    (IBA 15.2.5.14 via OpenSM's observable behaviour).
//  - A full table: ERR_NO_RESOURCES. Delete of nothing: ERR_NO_RECORDS.
//  - Answered with the record as stored (the lease as granted, in seconds).
//
// Get/GetTable match stored records against the template on the selected
// components (component_mask.h), like run_query: Get answers exactly one
// (ERR_NO_RECORDS / ERR_TOO_MANY_RECORDS otherwise), GetTable every match.
// An untrusted requester sees only records whose ServiceP_Key its port holds
// (a record with the invalid P_Key 0 is seen by all).
//
// ServiceKey is zero in every answer to an untrusted requester (IBA
// 15.2.5.14; OpenSM does the same), but matching uses the stored key: a
// requester that knows a 128-bit key may find its records by it, and one
// that does not cannot guess it.
//
// An expired record is never answered nor replaced in place, even before
// expire() removes it: the lease is checked against `now` at every request.
//
// import() installs the records another SA answered to a trusted GetTable
// (a standby's copy of its master's, sa/mirror.h), so that this registry
// serves them exactly as the master did:
//  - Owner: the registry keeps no owner beside the record; "the owner" is
//    the port ServiceGID names, checked against the requester at each
//    Set and Delete. A record read over the wire therefore carries its owner.
//  - ServiceKey: only a trusted read has it (an untrusted one reads zeros,
//    and a client finding its records by key would no longer find them).
//  - Lease: the wire's ServiceLease is the lease granted, not the time left
//    (ibsm answers the record as stored; OpenSM counts the time left in a
//    field of its own and answers the granted lease too). The lease is
//    therefore restarted at import: the master granted it at or before its
//    last Set, which came before the takeover, so a service never expires
//    here earlier than on the master. It may live longer, by the time from
//    the client's last Set to the takeover: a client that still exists
//    does not notice, one that left leaves a stale record that long.
//  - Replacing: the registry becomes the import, whatever it held before
//    (imported or registered here): after a takeover the master's state is
//    the subnet's, and a record this SM held from an earlier mastership
//    that the master has since deleted must not come back. A record the
//    master no longer has is gone after the next import.
//  - Idempotent: a record already held from an import with the very same
//    bytes keeps its lease end, so importing one table twice changes
//    nothing. (A lease the client refreshed on the master reads the same
//    bytes too: import at takeover, not at every read, so that the restart
//    happens after the last refresh the master saw.)
//  - Duplicate identities keep the first; records past max_records are dropped.
//  - A restore from the SM's cache knows each lease's time left
//    (`lease_left`, in the order of `records`): such a lease ends that long
//    after `now`, not a whole lease later.
//
// held() is the other way: every live record as a trusted GetTable answers
// it, with the time left of its lease (nullopt: infinite), for the cache.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "mad/base/clock.h"
#include "mad/wire/sa/service_record.h"
#include "sa/query.h"
#include "sa/registrations.h"
#include "sa/snapshot.h"

namespace ibsm::sa {

struct ServiceRegistryOptions {
  size_t max_records = 65536;  // Set of a new record beyond this: ERR_NO_RESOURCES
};

class ServiceRegistry {
 public:
  explicit ServiceRegistry(ServiceRegistryOptions options = {}) : options_(options) {}

  // Set, Get, GetTable and Delete of ServiceRecord; any other attribute
  // answers unsupported_attribute, any other method unsupported_method.
  SaQueryResult handle(const SaSnapshot& snapshot, const SaQuery& query, Micros now);

  // Installs `records` in place of everything held (see the header comment);
  // finite leases start at `now`.
  ImportResult import(std::vector<wire::ServiceRecord> records, Micros now,
                      const std::vector<std::optional<Micros>>& lease_left = {});

  struct Held {
    wire::ServiceRecord record;
    std::optional<Micros> lease_left;  // nullopt: an infinite lease
  };
  // The live records at `now`, in GetTable order.
  std::vector<Held> held(Micros now) const;

  // Drops every record whose lease ended at or before `now`.
  void expire(Micros now);
  // When the earliest finite lease ends; nullopt when none does.
  std::optional<Micros> next_expiry() const;
  // Stored records, expired ones that expire() has not yet removed included.
  size_t size() const { return records_.size(); }

 private:
  // ServiceID, ServiceGID, ServiceP_Key: also the answer order of GetTable.
  using Key = std::tuple<uint64_t, std::array<uint8_t, 16>, uint16_t>;
  struct Stored {
    wire::ServiceRecord record;
    std::optional<Micros> expires;  // nullopt: infinite lease
    bool imported = false;          // installed by a mirror's import(), not by a Set here or a restore
  };

  bool live(const Stored& s, Micros now) const { return !s.expires || *s.expires > now; }
  void erase(std::map<Key, Stored>::iterator it);
  SaQueryResult set(const SaSnapshot& s, const SaQuery& q, Micros now);
  SaQueryResult remove(const SaSnapshot& s, const SaQuery& q, Micros now);
  SaQueryResult get(const SaSnapshot& s, const SaQuery& q, Micros now) const;

  ServiceRegistryOptions options_;
  std::map<Key, Stored> records_;
  std::set<std::pair<Micros, Key>> leases_;  // finite leases by end time
};

}  // namespace ibsm::sa
