// The SA's registrations as the SM's cache keeps them across a restart
// (issue 13, "state is lost across a restart"): pure functions from
// SaRegistrations to text and back. Opening, writing (atomically) and the
// wall clock are the edge's (tools/os/sa_cache.h).
//
// The text, one record a line, each wire record as the SA answers it to a
// trusted GetTable (IBA 15.2.5.14 ServiceRecord, 15.2.5.12
// InformInfoRecord, 15.2.5.17 MCMemberRecord), in hex:
//   ibsm-sa-registrations 1                the format and its version
//   saved-at <unix ms>                     the wall clock when it was written
//   service <hex> <ms left | infinite>     the lease's time left at saved-at
//   subscription <hex>
//   mcmember <hex>
//   checksum <16 hex digits>               FNV-1a 64 of every byte before this line
// A file that is cut short has no checksum line (or a wrong one) and is
// refused whole, as is one of another version: a restart then begins with
// no registrations, which is what a lost file would give, rather than half
// of them. Every error names the file and the line.
//
// Restoring (restore_registrations) applies what happened while the SM was
// down: a service whose lease ran out by `now` is dropped, the others keep
// the time left. (Subscribers and members whose ports are gone are dropped
// by the SA's import with the first snapshot, as a port that leaves is.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mad/base/status.h"
#include "sa/registrations.h"

namespace ibsm::sa {

inline constexpr int registrations_format_version = 1;

struct SavedRegistrations {
  int64_t saved_at_ms = 0;  // unix time, milliseconds
  SaRegistrations registrations;
  bool operator==(const SavedRegistrations&) const = default;
};

std::string encode_registrations(const SaRegistrations& registrations, int64_t saved_at_ms);
// `source` names the file in errors ("FILE:LINE: ...").
Result<SavedRegistrations> decode_registrations(std::string_view text, std::string_view source);

struct RestoredRegistrations {
  SaRegistrations registrations;
  size_t expired_services = 0;  // leases that ran out while the SM was down
};
// What of `saved` still holds at `now_ms` (unix ms); a clock that went back
// counts as no time passed.
RestoredRegistrations restore_registrations(SavedRegistrations saved, int64_t now_ms);

}  // namespace ibsm::sa
