#include "sm/manager/sweep_retry.h"

#include <algorithm>

#include "mad/wire/constants.h"
#include "mad/wire/smp.h"

namespace ibsm {

void SweepRetry::succeeded() {
  pending_ = thawed_ = by_probe_ = false;
  failures_ = 0;
  probes_.reset();
}

void SweepRetry::failed(Micros now, const std::vector<SweepProblem>& problems, Micros cap) {
  ++failures_;
  pending_ = true;
  thawed_ = by_probe_ = false;
  // At once the first time; then 1 s, doubling, up to the cap.
  Micros delay = 0;
  if (failures_ > 1) {
    const uint32_t doublings = std::min<uint32_t>(failures_ - 2, 20);
    delay = std::min<Micros>(Micros{1'000'000} << doublings, std::max<Micros>(cap, 1'000'000));
  }
  retry_at_ = now + delay;
  next_probe_ = now + kProbeInterval;
  auto probes = std::make_shared<std::vector<Probe>>();
  // The sweep itself saw these paths silent: a probe that answers is the
  // change. The local port was silent when the sweep could not run at all.
  probes->push_back(Probe{DrPath{}, problems.empty()});
  for (const SweepProblem& p : problems) {
    if (probes->size() > kMaxProbes) break;
    if (p.kind != SweepProblemKind::silent && p.kind != SweepProblemKind::missing) continue;
    if (std::none_of(probes->begin(), probes->end(), [&](const Probe& q) { return q.path == p.path; }))
      probes->push_back(Probe{p.path, true});
  }
  probes_ = std::move(probes);
}

Micros SweepRetry::next_deadline() const {
  if (!pending_) return INT64_MAX;
  if (thawed_) return 0;
  return std::min(retry_at_, next_probe_);
}

bool SweepRetry::poll(Micros now, MadDispatcher& dispatcher, uint64_t m_key) {
  if (!probe_due(now)) return false;
  next_probe_ = now + kProbeInterval;
  bool sent = false;
  for (size_t i = 0; i < probes_->size(); ++i) {
    Probe& probe = (*probes_)[i];
    if (probe.in_flight) continue;
    probe.in_flight = true;
    MadPacket p;
    p.data = wire::build_dr_smp(wire::method::get, wire::smp_attr::node_info, 0, 0, probe.path, {}, m_key);
    std::weak_ptr<std::vector<Probe>> weak = probes_;
    dispatcher.submit(
        p,
        [this, weak, i](Result<MadPacket> r) {
          auto probes = weak.lock();
          if (!probes || probes != probes_) return;  // a later failure or a success replaced them
          Probe& q = (*probes)[i];
          q.in_flight = false;
          if (!r.ok()) {
            q.silent_once = true;
          } else if (q.silent_once && !by_probe_) {
            thawed_ = by_probe_ = true;
            ++thaws_;
          }
        },
        RequestOptions{.retries = 0});
    sent = true;
  }
  return sent;
}

}  // namespace ibsm
