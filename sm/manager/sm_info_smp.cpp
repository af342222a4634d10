#include "sm/manager/sm_info_smp.h"

#include <array>

#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "mad/wire/smp.h"

namespace ibsm {

MadPacket sm_info_smp(uint8_t method, uint32_t modifier, const DrPath& path, const wire::SmInfo& sender) {
  std::array<uint8_t, wire::smp_data_size> payload{};
  wire::encode(sender, payload);
  MadPacket p;
  p.data = wire::build_dr_smp(method, wire::smp_attr::sm_info, modifier, 0, path, payload);
  return p;
}

Result<wire::SmInfo> sm_info_of(const Result<MadPacket>& answer) {
  if (!answer.ok()) return answer.status();
  auto smp = wire::parse_smp(answer->data);
  if (!smp.ok()) return smp.status();
  if (smp->status() != 0) return failed_precondition_error(fmt::format("status 0x{:04x}", smp->status()));
  auto info = wire::decode_sm_info(smp->data());
  if (!info.ok()) return invalid_argument_error("unreadable SMInfo: " + info.status().message());
  return *info;
}

}  // namespace ibsm
