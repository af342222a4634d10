#include "sm/manager/port_hold.h"

#include <array>
#include <memory>

#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "mad/wire/smp.h"
#include "sm/sweep/port_settings.h"

namespace ibsm {
namespace {

MadPacket port_info_smp(uint8_t method, const DrPath& path, PortNum port, const wire::PortInfo* value) {
  std::array<uint8_t, wire::smp_data_size> payload{};
  if (value) wire::encode(*value, payload);
  MadPacket p;
  p.data = wire::build_dr_smp(method, wire::smp_attr::port_info, port.value, 0, path, payload);
  return p;
}

Result<wire::PortInfo> port_info_of(const Result<MadPacket>& answer) {
  if (!answer.ok()) return answer.status();
  auto smp = wire::parse_smp(answer->data);
  if (!smp.ok()) return smp.status();
  if (smp->status() != 0) return failed_precondition_error(fmt::format("PortInfo status 0x{:04x}", smp->status()));
  return wire::decode_port_info(smp->data());
}

}  // namespace

void set_port_phys_state(MadDispatcher& dispatcher, const DrPath& switch_path, PortNum port, PhysState phys,
                         std::function<void(Status)> done) {
  dispatcher.submit(port_info_smp(wire::method::get, switch_path, port, nullptr),
                    [&dispatcher, switch_path, port, phys, done = std::move(done)](Result<MadPacket> r) mutable {
                      auto current = port_info_of(r);
                      if (!current.ok()) return done(current.status());
                      const wire::PortInfo want = port_phys_state_change(*current, phys);
                      dispatcher.submit(port_info_smp(wire::method::set, switch_path, port, &want),
                                        [done = std::move(done)](Result<MadPacket> set) {
                                          auto held = port_info_of(set);
                                          done(held.ok() ? Status{} : held.status());
                                        });
                    });
}

}  // namespace ibsm
