// The SMs a manager test meets, as the election and the role see them: an
// SMInfo and the port it came from (LID = the GUID's low bits).
#pragma once

#include <cstdint>

#include "mad/base/types.h"
#include "mad/wire/sm_info.h"
#include "sm/manager/election.h"

namespace ibsm::testing {

inline wire::SmInfo info(uint64_t guid, uint8_t priority, uint8_t state) {
  wire::SmInfo i;
  i.guid = Guid{guid};
  i.priority = priority;
  i.sm_state = state;
  return i;
}

inline RemoteSm remote(uint64_t guid, uint8_t priority, uint8_t state) {
  RemoteSm r;
  r.port_guid = Guid{guid};
  r.lid = Lid{static_cast<uint16_t>(guid)};
  r.info = info(guid, priority, state);
  return r;
}

}  // namespace ibsm::testing
