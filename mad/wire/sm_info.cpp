#include "mad/wire/sm_info.h"

namespace ibsm::wire {

void encode(const SmInfo& x, std::span<uint8_t> data) { encode_struct(x, data, sm_info_size); }

Result<SmInfo> decode_sm_info(std::span<const uint8_t> data) { return decode_struct<SmInfo>(data, sm_info_size, "sminfo"); }

const char* sm_state_name(uint8_t s) {
  switch (s) {
    case wire::sm_state::not_active: return "NOT ACTIVE";
    case wire::sm_state::discovering: return "DISCOVERING";
    case wire::sm_state::standby: return "STANDBY";
    case wire::sm_state::master: return "MASTER";
    default: return "UNKNOWN";
  }
}

const char* sm_control_name(uint32_t m) {
  switch (m) {
    case wire::sm_info_control::handover: return "HANDOVER";
    case wire::sm_info_control::acknowledge: return "ACKNOWLEDGE";
    case wire::sm_info_control::disable: return "DISABLE";
    case wire::sm_info_control::standby: return "STANDBY";
    case wire::sm_info_control::discover: return "DISCOVER";
    default: return "UNKNOWN";
  }
}

}  // namespace ibsm::wire
