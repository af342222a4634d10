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
  // Built in a packet kept for it (write_dr_smp writes all 256 bytes; the
  // address stays the default, the permissive LID), and the request's
  // parts moved straight into its slot: per SMP, these copies and moves
  // were a fair part of the LFT programming's cost.
  wire::write_dr_smp(packet_.data, method, attr_id, mod, 0, path, payload, *m_key);
  uint32_t slot;
  if (free_slots_.empty()) {
    slot = static_cast<uint32_t>(in_flight_.size());
    in_flight_.push_back(InFlight{std::move(what), std::move(ok), std::move(failed), path});
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    InFlight& request = in_flight_[slot];
    request.what = std::move(what);
    request.ok = std::move(ok);
    request.failed = std::move(failed);
    request.path = path;
  }
  d_.submit(packet_, [this, slot](Result<MadPacket>&& r) { complete(slot, r); }, options_);
  if (queue_limit_ != 0 && d_.queued() >= queue_limit_) d_.run_until_queued_below(queue_limit_ / 2 + 1);
}

void SmpIssuer::complete(uint32_t slot, const Result<MadPacket>& r) {
  // The common case first: a good answer needs only its handler, taken out
  // of the slot (moving the whole request out cost the bring-up's 2.3M LFT
  // Sets a string, two functions and a path apiece).
  if (r.ok()) {
    auto smp = wire::parse_smp(r->data);
    if (smp.ok() && smp->status() == 0) {
      OnData ok = std::move(in_flight_[slot].ok);
      release(slot);  // before the handler: it may send more SMPs
      if (ok) ok(smp->data());
      return;
    }
  }
  InFlight q = std::move(in_flight_[slot]);
  release(slot);
  auto fail = [&](SmpFailure f) {
    on_failure_(q.what, q.path, f);
    if (q.failed) q.failed();
  };
  if (!r.ok()) return fail({false, r.status().message()});
  auto smp = wire::parse_smp(r->data);
  if (!smp.ok()) return fail({true, "unreadable response: " + smp.status().message()});
  fail({true, fmt::format("status 0x{:04x}", smp->status())});
}

void SmpIssuer::release(uint32_t slot) {
  in_flight_[slot].ok = nullptr;
  in_flight_[slot].failed = nullptr;
  free_slots_.push_back(slot);
}

}  // namespace ibsm
