// The SA state that clients create and a standby SM must carry over a
// takeover (issue: "nothing lost in a takeover"): the ServiceRecords and the
// InformInfo subscriptions, as another SA answers them to a trusted GetTable
// (sa/mirror.h reads them, the registries install them).
//
// Only what the wire tells: a ServiceRecord as stored (ServiceLease is the
// lease granted, not the time left, in ibsm's SA and in OpenSM's alike), an
// InformInfoRecord (SubscriberGID, Enum, the InformInfo with its QPN and
// RespTimeValue). What the records do not carry, the importing registry
// derives and documents (service_records.h, subscriptions.h,
// mc_member_records.h). Multicast groups come as the MCMemberRecords of
// every member (a trusted GetTable lists each), MLIDs included.
//
// One thing the wire does not carry, a restore from the SM's cache does
// (sa/registrations_codec.h): how long each service's lease has left.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "mad/base/clock.h"

#include "mad/wire/sa/inform_info_record.h"
#include "mad/wire/sa/mc_member_record.h"
#include "mad/wire/sa/service_record.h"

namespace ibsm::sa {

struct SaRegistrations {
  std::vector<wire::ServiceRecord> services;
  std::vector<wire::InformInfoRecord> subscriptions;
  std::vector<wire::McMemberRecord> multicast;
  // The time left of each service's lease, in the order of `services`, when
  // known. Empty (a mirror read), or nullopt for a service: its lease
  // restarts whole at the import. Infinite leases ignore it.
  std::vector<std::optional<Micros>> service_lease_left;
  bool operator==(const SaRegistrations&) const = default;
};

// What one import did.
struct ImportResult {
  size_t installed = 0;  // records now held from the import
  size_t dropped = 0;    // records not installed: a duplicate, no room, a subscriber not in the subnet
  bool operator==(const ImportResult&) const = default;
};

}  // namespace ibsm::sa
