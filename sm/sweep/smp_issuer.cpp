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
  InFlight request{std::move(what), std::move(ok), std::move(failed), path};
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(in_flight_.size());
    in_flight_.push_back(std::move(request));
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    in_flight_[slot] = std::move(request);
  }
  d_.submit(p, [this, slot](Result<MadPacket> r) { complete(slot, std::move(r)); }, options_);
  if (queue_limit_ != 0 && d_.queued() >= queue_limit_) d_.run_until_queued_below(queue_limit_ / 2 + 1);
}

void SmpIssuer::complete(uint32_t slot, Result<MadPacket> r) {
  // Out of its slot first: the handlers may send more SMPs.
  InFlight q = std::move(in_flight_[slot]);
  in_flight_[slot].ok = nullptr;
  in_flight_[slot].failed = nullptr;
  free_slots_.push_back(slot);
  auto fail = [&](SmpFailure f) {
    on_failure_(q.what, q.path, f);
    if (q.failed) q.failed();
  };
  if (!r.ok()) return fail({false, r.status().message()});
  auto smp = wire::parse_smp(r->data);
  if (!smp.ok()) return fail({true, "unreadable response: " + smp.status().message()});
  if (smp->status() != 0) return fail({true, fmt::format("status 0x{:04x}", smp->status())});
  if (q.ok) q.ok(smp->data());
}

}  // namespace ibsm
