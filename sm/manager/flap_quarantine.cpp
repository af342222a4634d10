#include "sm/manager/flap_quarantine.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace ibsm {
namespace {

PortKey key_of(const Fabric& f, NodeIndex n, uint8_t port) { return PortKey{f.node(n).node_guid, PortNum{port}}; }

// fn(lower end's key, one end, the other) for every link of `f` once.
template <typename Fn>
void for_each_link(const Fabric& f, Fn&& fn) {
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(p);
      if (!port.connected()) continue;
      const PortKey a = key_of(f, NodeIndex{i}, p), b = key_of(f, port.remote_node, port.remote_port);
      if (a < b) fn(a, PortRef{NodeIndex{i}, p}, PortRef{port.remote_node, port.remote_port});
    }
  }
}

// Whether `after` still cables port `end` of `before` to the same peer port.
// (Looked up in place: two maps of every link, built each sweep for a cable
// or two that changed, were the larger part of this at 42k LIDs in
// bench/reroute.sh.)
bool still_linked(const Fabric& before, PortRef end, const Fabric& after) {
  const Port& was = before.node(end.node).port(end.port);
  const auto n = after.find_by_node_guid(before.node(end.node).node_guid);
  if (!n || end.port > after.node(*n).num_ports) return false;
  const Port& is = after.node(*n).port(end.port);
  return is.connected() && is.remote_port == was.remote_port &&
         after.node(is.remote_node).node_guid == before.node(was.remote_node).node_guid;
}

// The end of a link to hold down: a switch port, the one the SM reaches
// over fewer hops (then the lower GUID); none when the link touches the SM's
// own node or has no switch end.
std::optional<std::pair<PortRef, PortRef>> end_to_hold(const SubnetSnapshot& s, PortRef a, PortRef b) {
  if (a.node == s.sm_port.node || b.node == s.sm_port.node) return std::nullopt;
  const Fabric& f = s.fabric;
  auto hops = [&](PortRef r) { return r.node.value < s.paths.size() ? s.paths[r.node.value].hops() : 64; };
  const bool a_sw = f.node(a.node).is_switch(), b_sw = f.node(b.node).is_switch();
  if (!a_sw && !b_sw) return std::nullopt;
  if (!b_sw || (a_sw && std::pair{hops(a), f.node(a.node).node_guid} <= std::pair{hops(b), f.node(b.node).node_guid}))
    return std::pair{a, b};
  return std::pair{b, a};
}

}  // namespace

std::string describe_port(PortKey port, const std::string& description) {
  return fmt::format("port {} of {} (\"{}\")", port.port, port.node, description);
}

bool FlapQuarantine::involves_held(PortKey a, PortKey b) const {
  if (is_held(a) || is_held(b)) return true;
  for (const auto& [k, q] : held_)
    if (q.peer == a || q.peer == b) return true;
  return false;
}

std::vector<PortKey> FlapQuarantine::observe(const SubnetSnapshot* before, const SubnetSnapshot& after, Micros now) {
  std::vector<PortKey> disable;
  // Held ports found up again: held down again.
  if (!held_.empty()) {
    for_each_link(after.fabric, [&](PortKey, PortRef x, PortRef y) {
      const PortKey a = key_of(after.fabric, x.node, x.port), b = key_of(after.fabric, y.node, y.port);
      if (is_held(a)) disable.push_back(a);
      if (is_held(b)) disable.push_back(b);
    });
  }
  if (options_.threshold == 0 || !before) return disable;
  for_each_link(before->fabric, [&](PortKey lower, PortRef x, PortRef y) {
    if (still_linked(before->fabric, x, after.fabric)) return;
    const PortKey a = key_of(before->fabric, x.node, x.port), b = key_of(before->fabric, y.node, y.port);
    if (involves_held(a, b)) return;  // the hold itself takes the link down
    auto hold = end_to_hold(*before, x, y);
    if (!hold) return;
    std::deque<Micros>& lost = losses_[lower];
    lost.push_back(now);
    while (!lost.empty() && now - lost.front() >= options_.window) lost.pop_front();
    if (lost.size() < options_.threshold) return;
    const Fabric& f = before->fabric;
    QuarantinedPort q;
    q.port = key_of(f, hold->first.node, hold->first.port);
    q.description = f.node(hold->first.node).description;
    q.peer = key_of(f, hold->second.node, hold->second.port);
    q.peer_description = f.node(hold->second.node).description;
    q.losses = static_cast<uint32_t>(lost.size());
    q.since = now;
    if (options_.hold > 0) q.until = now + options_.hold;
    losses_.erase(lower);
    ++quarantined_total_;
    disable.push_back(q.port);
    held_.emplace(q.port, std::move(q));
  });
  // Counts whose window has passed are forgotten.
  for (auto it = losses_.begin(); it != losses_.end();) {
    while (!it->second.empty() && now - it->second.front() >= options_.window) it->second.pop_front();
    it = it->second.empty() ? losses_.erase(it) : std::next(it);
  }
  return disable;
}

std::vector<QuarantinedPort> FlapQuarantine::take_expired(Micros now) {
  std::vector<QuarantinedPort> out;
  for (auto it = held_.begin(); it != held_.end();) {
    if (it->second.until && now >= *it->second.until) {
      out.push_back(std::move(it->second));
      it = held_.erase(it);
    } else {
      ++it;
    }
  }
  return out;
}

std::optional<Micros> FlapQuarantine::next_deadline() const {
  std::optional<Micros> t;
  for (const auto& [k, q] : held_)
    if (q.until && (!t || *q.until < *t)) t = q.until;
  return t;
}

Result<QuarantinedPort> FlapQuarantine::release(PortKey port) {
  auto it = held_.find(port);
  if (it == held_.end()) return not_found_error(fmt::format("port {} of {} is not quarantined", port.port, port.node));
  QuarantinedPort q = std::move(it->second);
  held_.erase(it);
  return q;
}

std::vector<SweepProblem> FlapQuarantine::problems() const {
  std::vector<SweepProblem> out;
  for (const auto& [k, q] : held_) {
    SweepProblem p;
    p.kind = SweepProblemKind::quarantined;
    p.node = q.port.node;
    p.port = q.port.port;
    p.text = fmt::format("{} quarantined: its link to {} went down {} times; held down {}",
                         describe_port(q.port, q.description), describe_port(q.peer, q.peer_description), q.losses,
                         q.until ? "until its hold ends or it is released" : "until it is released");
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace ibsm
