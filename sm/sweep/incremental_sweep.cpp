#include "sm/sweep/incremental_sweep.h"

#include <deque>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "mad/wire/switch_info.h"
#include "sm/sweep/routing_step.h"
#include "sm/sweep/smp_issuer.h"

namespace ibsm {
namespace {

// Rounds of reading before the pass gives up: each round reads the far ends
// of the links the previous one found changed, so a change spreads at most
// this far before a heavy sweep is the cheaper way.
constexpr int kMaxRounds = 16;

// Where `path` leads in `f` from `local`, over cabled ports; nullopt when a
// hop crosses no cable.
std::optional<NodeIndex> walk(const Fabric& f, NodeIndex local, const DrPath& path) {
  NodeIndex at = local;
  for (int h = 1; h <= path.hops(); ++h) {
    const Node& n = f.node(at);
    const uint8_t p = path.port(h);
    if (p == 0 || p > n.num_ports || !n.port(p).connected()) return std::nullopt;
    at = n.port(p).remote_node;
  }
  return at;
}

class RegionRediscovery {
 public:
  RegionRediscovery(MadDispatcher& d, const IncrementalInput& in, LogSink& log)
      : d_(d), in_(in), log_(log),
        smp_(d, [this](const SmpSubject& what, const DrPath& path, const SmpFailure& failure) {
          failed_.insert(what.node);
          last_failure_ = fmt::format("{} (dr path {}): {}", what.text(), path, failure.why);
        }) {}

  Result<DiscoveryResult> run() {
    seed();
    // A switch named that the subnet no longer has (its trap came as it
    // went) is passed over; when none is left the pass cannot start.
    for (Guid g : in_.switches) {
      auto n = r_.fabric.find_by_node_guid(g);
      if (n && r_.fabric.node(*n).is_switch()) pending_.insert(g);
    }
    if (pending_.empty())
      return doubt(fmt::format("none of the {} switches named is in the subnet", in_.switches.size()));
    for (int round = 0; !pending_.empty() || !pending_ca_ports_.empty(); ++round) {
      if (round == kMaxRounds) return doubt(fmt::format("the change spreads beyond {} rounds", kMaxRounds));
      if (Status s = read_round(); !s.ok()) return s;
      if (!probes_.empty()) {
        if (Status s = discover_new(); !s.ok()) return s;
      }
      IBSM_RETURN_IF_ERROR(fix_paths());
    }
    drop_unreachable();
    return std::move(r_);
  }

 private:
  Status doubt(std::string why) { return failed_precondition_error(std::move(why)); }

  // The last snapshot as a discovery would have found it.
  void seed() {
    const SubnetSnapshot& s = in_.last;
    r_.fabric = s.fabric;
    r_.paths = s.paths;
    r_.switch_info = s.switch_info;
    r_.port_info = s.port_info;
    r_.local_node = s.sm_port.node;
    r_.local_port = s.sm_port.port;
    r_.paths.resize(r_.fabric.node_count());
    r_.switch_info.resize(r_.fabric.node_count());
    r_.port_info.resize(r_.fabric.node_count());
    for (uint32_t i = 0; i < r_.fabric.node_count(); ++i)
      r_.port_info[i].resize(size_t{r_.fabric.node(NodeIndex{i}).num_ports} + 1);
  }

  // Pending switches whose path crosses another pending one wait a round:
  // that one may show the cable on the way gone, and the path changes.
  std::vector<Guid> readable_now() {
    std::vector<Guid> now, later;
    for (Guid g : pending_) {
      auto n = r_.fabric.find_by_node_guid(g);
      if (!n || !reachable(*n)) continue;  // cut off by a link that went: dropped at the end
      bool crosses = false;
      const DrPath& path = r_.paths[n->value];
      for (int h = 1; h < path.hops() && !crosses; ++h) {
        DrPath prefix = path;
        while (prefix.hops() > h) prefix = prefix.parent();
        auto on_path = walk(r_.fabric, r_.local_node, prefix);
        crosses = on_path && pending_.count(r_.fabric.node(*on_path).node_guid) != 0;
      }
      (crosses ? later : now).push_back(g);
    }
    if (now.empty()) now.swap(later);  // paths that cross each other: all at once
    pending_.clear();
    pending_.insert(later.begin(), later.end());
    return now;
  }

  // One round: SwitchInfo of the switches that can be read now, once (a
  // path across a cable that went costs one timeout, not every retry), then
  // every PortInfo of those that answered; and the PortInfo of the CA ports
  // at the far end of links that came.
  Status read_round() {
    struct Read {
      NodeIndex node;
      std::optional<wire::SwitchInfo> si;
      std::vector<std::optional<wire::PortInfo>> ports;
    };
    std::vector<std::unique_ptr<Read>> reads;
    failed_.clear();
    RequestOptions once;
    once.retries = 0;
    smp_.set_request_options(once);
    for (Guid g : readable_now()) {
      const NodeIndex n = *r_.fabric.find_by_node_guid(g);
      auto& rd = *reads.emplace_back(std::make_unique<Read>());
      rd.node = n;
      rd.ports.resize(size_t{r_.fabric.node(n).num_ports} + 1);
      tried_[g] = r_.paths[n.value];
      smp_.get(r_.paths[n.value], wire::smp_attr::switch_info, 0, {fmt::format("SwitchInfo of switch {}", g), g},
               [&rd](std::span<const uint8_t> data) {
                 if (auto si = wire::decode_switch_info(data); si.ok()) rd.si = *si;
               });
    }
    smp_.run();
    smp_.set_request_options(RequestOptions{});
    for (auto& rdp : reads) {
      Read& rd = *rdp;
      if (!rd.si) continue;
      const Node& node = r_.fabric.node(rd.node);
      for (unsigned p = 0; p <= node.num_ports; ++p)
        smp_.get(r_.paths[rd.node.value], wire::smp_attr::port_info, p,
                 {fmt::format("PortInfo {} of switch {}", p, node.node_guid), node.node_guid},
                 [&rd, p](std::span<const uint8_t> data) {
                   if (auto pi = wire::decode_port_info(data); pi.ok()) rd.ports[p] = *pi;
                 });
    }
    std::vector<std::pair<PortRef, std::optional<wire::PortInfo>>> ca_reads;
    ca_reads.reserve(pending_ca_ports_.size());
    for (const auto& [guid, port] : pending_ca_ports_) {
      auto n = r_.fabric.find_by_node_guid(guid);
      if (!n || !path_into(r_, *n, port)) continue;
      ca_reads.emplace_back(PortRef{*n, port}, std::nullopt);
    }
    pending_ca_ports_.clear();
    for (auto& [ref, answer] : ca_reads) {
      const Guid g = r_.fabric.node(ref.node).node_guid;
      smp_.get(*path_into(r_, ref.node, ref.port), wire::smp_attr::port_info, ref.port,
               {fmt::format("PortInfo {} of ca {}", ref.port, g), g}, [&answer](std::span<const uint8_t> data) {
                 if (auto pi = wire::decode_port_info(data); pi.ok()) answer = *pi;
               });
    }
    smp_.run();

    for (auto& rd : reads) {
      const Guid g = r_.fabric.node(rd->node).node_guid;
      bool complete = rd->si.has_value();
      for (const auto& p : rd->ports) complete &= p.has_value();
      if (!complete) {
        // Its path may cross a link that went down: tried again once the
        // paths avoid what this round found gone.
        retry_.insert(g);
        continue;
      }
      retry_.erase(g);
      read_.insert(g);
      IBSM_RETURN_IF_ERROR(apply_switch(rd->node, *rd->si, rd->ports));
    }
    for (auto& [ref, answer] : ca_reads)
      if (answer) store(ref.node, ref.port, *answer);
    return {};
  }

  Status apply_switch(NodeIndex n, const wire::SwitchInfo& si, const std::vector<std::optional<wire::PortInfo>>& ports) {
    Node& node = r_.fabric.node(n);
    if (ports[0]->lid != node.port(0).base_lid || ports[0]->lmc != node.port(0).lmc)
      return doubt(fmt::format("switch {}: lid {} (was {}): changed behind the sm's back", node.node_guid,
                               ports[0]->lid, node.port(0).base_lid));
    r_.switch_info[n.value] = si;
    node.enhanced_port0 = si.enhanced_port0;
    store(n, 0, *ports[0]);
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const wire::PortInfo& pi = *ports[p];
      const Port before = node.port(p);
      store(n, p, pi);
      const bool up = pi.port_state != PortState::down;
      const bool settled = settled_.count({node.node_guid, p}) != 0;
      if (before.connected() && (!up || (!settled && pi.port_state != before.state))) {
        // Gone, or bounced since the last sweep (its peer may be another now).
        went_away(PortRef{n, p});
      }
      if (up && !r_.fabric.node(n).port(p).connected()) {
        if (r_.paths[n.value].full()) return doubt(fmt::format("switch {} port {}: beyond 63 hops", node.node_guid, p));
        probes_.push_back({r_.paths[n.value].extended(p), PortRef{n, p}});
      }
    }
    return {};
  }

  // The cable at `at` is gone: both ends free; the far end is read (a
  // switch) or marked down (a CA: it is reached through that cable only).
  void went_away(PortRef at) {
    const Port& p = r_.fabric.node(at.node).port(at.port);
    const PortRef far{p.remote_node, p.remote_port};
    r_.fabric.disconnect(at);
    Node& remote = r_.fabric.node(far.node);
    settled_.insert({remote.node_guid, far.port});
    if (remote.is_switch()) {
      if (!read_.count(remote.node_guid)) pending_.insert(remote.node_guid);
      return;
    }
    remote.port(far.port).state = PortState::down;
    r_.port_info[far.node.value][far.port] = wire::PortInfo{};  // not read: a full discovery would not reach it
  }

  // Outward from the ports that came up: known nodes are linked, new ones
  // discovered with what is beyond them (discover_from).
  Status discover_new() {
    std::vector<DiscoveryProbe> probes = std::move(probes_);
    probes_.clear();
    const size_t known = r_.fabric.node_count();
    DiscoveryOptions o;
    o.query_switch_info = true;
    o.keep_port_info = true;
    r_.problems.clear();
    r_ = discover_from(d_, std::move(r_), probes, o, log_);
    if (!r_.problems.empty())
      return doubt(fmt::format("dr path {}: {}", r_.problems.front().path, r_.problems.front().what));
    for (size_t i = known; i < r_.fabric.node_count(); ++i) read_.insert(r_.fabric.node(NodeIndex{static_cast<uint32_t>(i)}).node_guid);
    for (const DiscoveryProbe& p : probes) {
      const Port& port = r_.fabric.node(p.via.node).port(p.via.port);
      if (!port.connected()) continue;
      settled_.insert({r_.fabric.node(p.via.node).node_guid, p.via.port});
      settled_.insert({r_.fabric.node(port.remote_node).node_guid, port.remote_port});
    }
    // The known ends of the new links (from the probes, or from a new node
    // back to a known one) still show the state read before: read now.
    for (uint32_t i = 0; i < known; ++i) {
      const Node& node = r_.fabric.node(NodeIndex{i});
      for (uint8_t p = 1; p <= node.num_ports; ++p) {
        const Port& port = node.port(p);
        if (!port.connected() || port.state != PortState::down) continue;
        settled_.insert({node.node_guid, p});
        if (node.is_switch()) {
          if (!read_.count(node.node_guid)) pending_.insert(node.node_guid);
        } else {
          pending_ca_ports_.insert({node.node_guid, p});
        }
      }
    }
    return {};
  }

  // What a discovery keeps of a PortInfo read: the same as a full one.
  void store(NodeIndex n, uint8_t port, const wire::PortInfo& pi) {
    r_.port_info[n.value][port] = pi;
    store_port_info(r_.fabric.node(n), port, pi);
  }

  bool reachable(NodeIndex n) const { return n.value < reached_.size() ? reached_[n.value] : true; }

  // Every reachable node gets a path that still leads to it: its old one
  // when it does, else one hop beyond the node it is first reached from.
  Status fix_paths() {
    const Fabric& f = r_.fabric;
    r_.paths.resize(f.node_count());
    std::vector<bool> suspect(f.node_count(), false);
    for (Guid g : retry_)
      if (auto n = f.find_by_node_guid(g)) suspect[n->value] = true;
    // First around the switches that did not answer (they may be gone, and
    // a path through them would fail too), then through them.
    std::vector<bool> placed(f.node_count(), false);
    IBSM_RETURN_IF_ERROR(place_paths(suspect, placed));
    IBSM_RETURN_IF_ERROR(place_paths(std::vector<bool>(f.node_count(), false), placed));
    reached_ = std::move(placed);
    // A switch that did not answer is read again once its path changed (it
    // crossed a link found gone since). While the path is the same, the node
    // before it on the path is read first (one cable pulled on the way), then
    // all its neighbours: their ports toward it may be down (a switch lost
    // shows at all of them in one round). When they were read too, the
    // switch is silent: the missing-node rule belongs to the heavy sweep.
    for (Guid g : retry_) {
      auto n = f.find_by_node_guid(g);
      if (!n || !reached_[n->value] || pending_.count(g)) continue;
      const DrPath& path = r_.paths[n->value];
      if (tried_[g] != path) {
        pending_.insert(g);
        continue;
      }
      if (!asked_before_.count(g)) {
        asked_before_.insert(g);
        auto before = path.hops() > 1 ? walk(f, r_.local_node, path.parent()) : std::nullopt;
        if (before && f.node(*before).is_switch() && !read_.count(f.node(*before).node_guid)) {
          if (!retry_.count(f.node(*before).node_guid)) pending_.insert(f.node(*before).node_guid);
          continue;
        }
      }
      bool waiting = false;
      const Node& node = f.node(*n);
      for (uint8_t p = 1; p <= node.num_ports; ++p) {
        if (!node.port(p).connected()) continue;
        const Node& peer = f.node(node.port(p).remote_node);
        if (!peer.is_switch() || read_.count(peer.node_guid)) continue;
        waiting = true;
        if (!retry_.count(peer.node_guid)) pending_.insert(peer.node_guid);  // else its own turn decides
      }
      if (!waiting) return doubt(fmt::format("switch {} does not answer: {}", g, last_failure_));
    }
    return {};
  }

  // Breadth-first from the SM over the cables, forwarding through no
  // `avoid` node: each node reached that has no place yet keeps its old path
  // if that still leads to it without crossing an `avoid` node, else gets
  // the path one hop beyond the node it is first reached from.
  Status place_paths(const std::vector<bool>& avoid, std::vector<bool>& placed) {
    const Fabric& f = r_.fabric;
    std::vector<bool> seen(f.node_count(), false);
    std::deque<NodeIndex> queue{r_.local_node};
    seen[r_.local_node.value] = true;
    placed[r_.local_node.value] = true;
    while (!queue.empty()) {
      const NodeIndex at = queue.front();
      queue.pop_front();
      const Node& node = f.node(at);
      if (avoid[at.value] || (!node.is_switch() && at != r_.local_node)) continue;  // forwards no SMP
      for (uint8_t p = 1; p <= node.num_ports; ++p) {
        const Port& port = node.port(p);
        if (!port.connected() || seen[port.remote_node.value]) continue;
        const NodeIndex next = port.remote_node;
        seen[next.value] = true;
        queue.push_back(next);
        if (placed[next.value]) continue;
        placed[next.value] = true;
        if (leads_to(r_.paths[next.value], next, avoid)) continue;
        if (r_.paths[at.value].full()) return doubt(fmt::format("node {}: beyond 63 hops", f.node(next).node_guid));
        r_.paths[next.value] = r_.paths[at.value].extended(p);
      }
    }
    return {};
  }

  // Whether `path` leads to `n` over cables, crossing no `avoid` node on the way.
  bool leads_to(const DrPath& path, NodeIndex n, const std::vector<bool>& avoid) const {
    const Fabric& f = r_.fabric;
    NodeIndex at = r_.local_node;
    for (int h = 1; h <= path.hops(); ++h) {
      if (h > 1 && avoid[at.value]) return false;
      const Node& node = f.node(at);
      const uint8_t p = path.port(h);
      if (p == 0 || p > node.num_ports || !node.port(p).connected()) return false;
      at = node.port(p).remote_node;
    }
    return at == n;
  }

  // The nodes no path reaches any more leave the fabric, and every table
  // indexed by node follows the new numbering.
  void drop_unreachable() {
    const Fabric& f = r_.fabric;
    if (std::all_of(reached_.begin(), reached_.end(), [](bool b) { return b; })) return;
    DiscoveryResult out;
    std::vector<NodeIndex> renumber(f.node_count());
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      if (!reached_[i]) continue;
      Node n = f.node(NodeIndex{i});
      for (Port& p : n.ports) {
        p.remote_node = NodeIndex{};
        p.remote_port = 0;
      }
      auto added = out.fabric.add_node(std::move(n));
      renumber[i] = *added;  // GUIDs were unique in the fabric they come from
      out.paths.push_back(r_.paths[i]);
      out.switch_info.push_back(r_.switch_info[i]);
      out.port_info.push_back(std::move(r_.port_info[i]));
    }
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      if (!reached_[i]) {
        log(log_, LogLevel::info, Subsystem::sweep, "incremental: node {} (\"{}\") is cut off: gone",
            f.node(NodeIndex{i}).node_guid, f.node(NodeIndex{i}).description);
        continue;
      }
      const Node& n = f.node(NodeIndex{i});
      for (uint8_t p = 1; p <= n.num_ports; ++p) {
        const Port& port = n.port(p);
        if (!port.connected() || !reached_[port.remote_node.value]) continue;
        const PortRef a{renumber[i], p}, b{renumber[port.remote_node.value], port.remote_port};
        if (a < b) (void)out.fabric.connect(a, b);
      }
    }
    out.local_node = renumber[r_.local_node.value];
    out.local_port = r_.local_port;
    out.smps_sent = r_.smps_sent;
    r_ = std::move(out);
  }

  MadDispatcher& d_;
  const IncrementalInput& in_;
  LogSink& log_;
  SmpIssuer smp_;
  DiscoveryResult r_;
  std::set<Guid> pending_;                          // switches to read in the next round
  std::set<std::pair<Guid, uint8_t>> pending_ca_ports_;  // CA ports at the far end of a new link
  std::unordered_set<Guid> read_;                   // read whole in this pass (re-read, or new)
  std::set<std::pair<Guid, uint8_t>> settled_;     // ports whose link this pass already judged
  std::set<Guid> retry_;                            // did not answer; again on a new path
  std::set<Guid> asked_before_;                     // ... and the node before it on its path was read
  std::unordered_map<Guid, DrPath> tried_;         // the path each switch was last read on
  std::unordered_set<Guid> failed_;
  std::string last_failure_;
  std::vector<DiscoveryProbe> probes_;
  std::vector<bool> reached_;
};

// The last routing, kept for a fabric the engine says needs no new tables:
// each switch's table moves to the switch's index in `now`, its row shared
// with the last snapshot's (a repair copies only the rows it changes).
SweepRoutes kept_routes(const SubnetSnapshot& last, const SweepRoutes& routes, const Fabric& now) {
  SweepRoutes r;
  r.engine = routes.engine;
  r.check = routes.check;
  r.check_ok = routes.check_ok;
  r.port_routes = routes.port_routes;
  r.route_check = routes.route_check;
  r.path_sl = routes.path_sl;
  r.engine_used = routes.engine_used;
  r.lfts.resize(now.node_count());
  for (uint32_t i = 0; i < last.fabric.node_count(); ++i) {
    auto n = now.find_by_node_guid(last.fabric.node(NodeIndex{i}).node_guid);
    if (n && i < last.lfts.size()) r.lfts.share_from(n->value, last.lfts, i);
  }
  return r;
}

// A switch that came has no row in the last tables: one that routes
// nowhere (its own LIDs to port 0), of the others' length, for the repair
// to fill in.
void give_new_switches_rows(SharedLfts& lfts, const Fabric& now) {
  size_t entries = 0;
  for (size_t i = 0; i < lfts.size() && entries == 0; ++i) entries = lfts[i].size();
  for (uint32_t i = 0; i < now.node_count() && entries > 0; ++i) {
    const Node& n = now.node(NodeIndex{i});
    if (!n.is_switch() || !lfts[i].empty()) continue;
    LftRow row(entries, kNoRoute);
    const Port& p0 = n.port(0);
    for (uint32_t k = 0; k < (1u << p0.lmc); ++k)
      if (p0.base_lid.value + k < entries) row[p0.base_lid.value + k] = 0;
    lfts.assign(i, std::move(row));
  }
}

// The last routes mended for `now` by their engine; a switch lost or one
// that came is given to both sides uncabled (with_same_switches). nullopt:
// route afresh.
std::optional<SweepRoutes> mended_routes(const IncrementalInput& input, const Fabric& now, LogSink& log) {
  if (auto same = with_same_switches(input.last.fabric, now)) {
    SweepRoutes kept = kept_routes(input.last, *input.last_routes, same->now);
    give_new_switches_rows(kept.lfts, same->now);
    return repair_routes(same->before, std::move(kept), same->now, log, &now);
  }
  return repair_routes(input.last.fabric, kept_routes(input.last, *input.last_routes, now), now, log);
}

}  // namespace

Result<DiscoveryResult> rediscover_region(MadDispatcher& dispatcher, const IncrementalInput& input, LogSink& log) {
  const uint64_t sent0 = dispatcher.stats().sent;
  const uint64_t timeouts0 = dispatcher.stats().timeouts;
  auto r = RegionRediscovery(dispatcher, input, log).run();
  if (r.ok()) {
    r->smps_sent = dispatcher.stats().sent - sent0;
    r->smps_timed_out = dispatcher.stats().timeouts - timeouts0;
  }
  return r;
}

Result<SweepReport> incremental_sweep(MadDispatcher& dispatcher, const Clock& clock, SweepState& state,
                                      const SweepConfig& config, const IncrementalInput& input, LogSink& log) {
  const Micros t0 = clock.now();
  const uint64_t sent0 = dispatcher.stats().sent;
  auto found = rediscover_region(dispatcher, input, log);
  if (!found.ok()) return found.status();
  PhaseReport phase{"rediscover region", clock.now() - t0, dispatcher.stats().sent - sent0};
  ibsm::log(log, LogLevel::info, Subsystem::sweep, "phase {}: {:.3f} ms, {} mads, {} switches named", phase.name,
      phase.elapsed / 1000.0, phase.mads, input.switches.size());
  SweepConfig c = config;
  if (input.last_routes && input.last_routes->engine_used) {
    // The engine decides whether the change needs new tables (OpenSM's
    // routing engines answer the same question through their ucast cache).
    c.route = [&input, route = config.route, &log](const Fabric& now) -> Result<SweepRoutes> {
      if (input.last_routes->engine_used->needs_reroute(input.last.fabric, now)) {
        // Mended where the engine can (OpenSM's unicast cache); else afresh.
        if (input.repair_routes) {
          if (auto mended = mended_routes(input, now, log)) return std::move(*mended);
        }
        return route(now);
      }
      ibsm::log(log, LogLevel::info, Subsystem::routing, "{}: the change needs no new routes; tables kept",
                input.last_routes->engine);
      return kept_routes(input.last, *input.last_routes, now);
    };
  }
  return configure_found_subnet(dispatcher, clock, state, c, std::move(*found), std::move(phase), log);
}

}  // namespace ibsm
