#include "sm/sweep/smp_issuer.h"

#include <fmt/format.h>

namespace ibsm {

void SmpIssuer::send(uint8_t method, const DrPath& path, uint16_t attr_id, uint32_t mod,
                     std::span<const uint8_t> payload, SmpSubject what, OnData ok) {
  MadPacket p;
  p.data = wire::build_dr_smp(method, attr_id, mod, 0, path, payload);
  d_.submit(p, [this, what = std::move(what), ok = std::move(ok), path](Result<MadPacket> r) {
    if (!r.ok()) return on_failure_(what, path, {false, r.status().message()});
    auto smp = wire::parse_smp(r->data);
    if (!smp.ok()) return on_failure_(what, path, {true, "unreadable response: " + smp.status().message()});
    if (smp->status() != 0) return on_failure_(what, path, {true, fmt::format("status 0x{:04x}", smp->status())});
    if (ok) ok(smp->data());
  }, options_);
}

}  // namespace ibsm
