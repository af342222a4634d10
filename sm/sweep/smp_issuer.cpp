#include "sm/sweep/smp_issuer.h"

#include <fmt/format.h>

namespace ibsm {

std::string SmpSubject::text() const {
  if (!pattern_) return text_;
  return fmt::format(fmt::runtime(pattern_), number_, node);
}

void SmpIssuer::send(uint8_t method, const DrPath& path, uint16_t attr_id, uint32_t mod,
                     std::span<const uint8_t> payload, SmpSubject what, OnData ok, OnFailed failed) {
  const std::optional<uint64_t> m_key = m_keys_ ? m_keys_->key(path) : uint64_t{0};
  if (!m_key) {
    if (failed) failed();
    return;
  }
  MadPacket p;
  p.data = wire::build_dr_smp(method, attr_id, mod, 0, path, payload, *m_key);
  d_.submit(p, [this, what = std::move(what), ok = std::move(ok), failed = std::move(failed), path](Result<MadPacket> r) {
    auto fail = [&](SmpFailure f) {
      on_failure_(what, path, f);
      if (failed) failed();
    };
    if (!r.ok()) return fail({false, r.status().message()});
    auto smp = wire::parse_smp(r->data);
    if (!smp.ok()) return fail({true, "unreadable response: " + smp.status().message()});
    if (smp->status() != 0) return fail({true, fmt::format("status 0x{:04x}", smp->status())});
    if (ok) ok(smp->data());
  }, options_);
  if (queue_limit_ != 0 && d_.queued() >= queue_limit_) d_.run_until_queued_below(queue_limit_ / 2 + 1);
}

}  // namespace ibsm
