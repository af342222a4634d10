#include "sm/manager/election.h"

namespace ibsm {

bool outranks(uint8_t priority_a, Guid guid_a, uint8_t priority_b, Guid guid_b) {
  if (priority_a != priority_b) return priority_a > priority_b;
  return guid_a.value < guid_b.value;
}

bool outranks(const wire::SmInfo& a, const wire::SmInfo& b) { return outranks(a.priority, a.guid, b.priority, b.guid); }

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::become_master: return "become master";
    case Verdict::stay_master: return "stay master";
    case Verdict::follow: return "follow";
    case Verdict::hand_over: return "hand over";
  }
  return "?";
}

namespace {

// The best ranked of `others` in one of `states` that outranks `self`
// (or any, when `must_outrank` is false).
const RemoteSm* best(const wire::SmInfo& self, const std::vector<RemoteSm>& others, std::initializer_list<uint8_t> states,
                     bool must_outrank) {
  const RemoteSm* top = nullptr;
  for (const RemoteSm& o : others) {
    bool wanted = false;
    for (uint8_t s : states) wanted = wanted || o.info.sm_state == s;
    if (!wanted || o.port_guid == self.guid) continue;
    if (must_outrank && !outranks(o.info, self)) continue;
    if (!top || outranks(o.info, top->info)) top = &o;
  }
  return top;
}

}  // namespace

Election elect_while_discovering(const wire::SmInfo& self, const std::vector<RemoteSm>& others) {
  namespace st = wire::sm_state;
  if (const RemoteSm* m = best(self, others, {st::master}, false)) return {Verdict::follow, *m};
  if (const RemoteSm* h = best(self, others, {st::discovering, st::standby}, true)) return {Verdict::follow, *h};
  return {Verdict::become_master, std::nullopt};
}

Election elect_while_master(const wire::SmInfo& self, const std::vector<RemoteSm>& others) {
  namespace st = wire::sm_state;
  if (const RemoteSm* m = best(self, others, {st::master}, true)) return {Verdict::hand_over, *m};
  if (const RemoteSm* s = best(self, others, {st::standby}, true)) return {Verdict::hand_over, *s};
  return {Verdict::stay_master, std::nullopt};
}

}  // namespace ibsm
