// The notices the SM itself issues when end ports come and go between two
// snapshots (IBA 14.2.5.1 table 146 and 13.4.8.2): trap 64 "GID in service"
// for a port that appeared, trap 65 "GID out of service" for one that left.
// Subscriptions (subscriptions.h) forward them as Reports.
//
// Each is a generic notice from a class manager (ProducerType 4) issued by
// the SM: IssuerLID is the SM's LID, IssuerGID the SM port's GID. Type is
// subnet management (3), as OpenSM sends them. DataDetails of traps 64-67
// hold 6 reserved bytes and then the GID of the port (or multicast group)
// the trap is about: notice bytes 16-31.
#pragma once

#include <vector>

#include "mad/base/types.h"
#include "mad/wire/field.h"
#include "mad/wire/notice.h"
#include "sa/snapshot.h"

namespace ibsm::sa {

// The GID in the DataDetails of traps 64-67, from the start of the notice.
inline constexpr wire::Field notice_subject_gid{128, 128, "GID"};

constexpr bool is_gid_service_trap(uint16_t trap) {
  return trap >= wire::trap_number::gid_in_service && trap <= wire::trap_number::mcast_group_deleted;
}

// A notice the SM issues (the generic class-manager notice described above)
// about `subject`: trap 64-67, from the SM at `sm_lid` whose port GID is `sm_gid`.
wire::Notice sm_notice(uint16_t trap, Lid sm_lid, const wire::Gid& sm_gid, const wire::Gid& subject);

// The GID a trap 64-67 notice is about.
wire::Gid notice_details_gid(const wire::Notice& n);
void set_notice_details_gid(wire::Notice& n, const wire::Gid& gid);

// Traps 65 and 64 for the end ports of `before` missing from `after` and
// those of `after` missing from `before`, in ascending port GUID order. A
// port's GID uses the prefix of the snapshot it is in. The issuer GID is the
// port owning `sm_lid` in `after` (zero when none does).
std::vector<wire::Notice> notices_between(const SaSnapshot& before, const SaSnapshot& after, Lid sm_lid);

}  // namespace ibsm::sa
