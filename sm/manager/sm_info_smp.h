// The SMInfo SMPs one SM sends another (IBA 14.4.1): a Get that polls or
// re-reads it, and a Set carrying a control modifier (HANDOVER,
// ACKNOWLEDGE); both along a directed route, with the sender's SMInfo as
// data, and the SMInfo an answer carries.
#pragma once

#include <cstdint>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/transport.h"
#include "mad/wire/sm_info.h"

namespace ibsm {

MadPacket sm_info_smp(uint8_t method, uint32_t modifier, const DrPath& path, const wire::SmInfo& sender);

// The SMInfo in `answer`, or why there is none: no answer, an error status,
// an unreadable SMP or SMInfo.
Result<wire::SmInfo> sm_info_of(const Result<MadPacket>& answer);

}  // namespace ibsm
