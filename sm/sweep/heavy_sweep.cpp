#include "sm/sweep/heavy_sweep.h"

#include <array>
#include <cstring>
#include <memory>

#include "mad/wire/linear_forwarding_table.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/smp.h"
#include "sm/fabric/lfts.h"
#include "sm/sweep/configured_subnet.h"
#include "sm/sweep/missing_nodes.h"
#include "sm/sweep/partition_plan.h"
#include "sm/sweep/smp_issuer.h"

namespace ibsm {
namespace {

constexpr size_t kLftBlock = wire::lft_block_size;
// SMPs queued at once: enough to keep any window full, few enough that the
// queue costs a few MB (a queued SMP is some 600 bytes).
constexpr size_t kQueuedSmps = 4096;

std::string port_name(const Node& n, uint8_t port) {
  return fmt::format("{} {} port {}", n.is_switch() ? "switch" : "ca", n.node_guid, port);
}

// The failure text of a PortInfo Set that moves a port to `to` (for SmpSubject::lazy).
const char* state_change_pattern(const Node& n, PortState to) {
  if (to == PortState::armed) return n.is_switch() ? "PortInfo Armed on switch {1} port {0}" : "PortInfo Armed on ca {1} port {0}";
  return n.is_switch() ? "PortInfo Active on switch {1} port {0}" : "PortInfo Active on ca {1} port {0}";
}

class HeavySweep {
 public:
  HeavySweep(MadDispatcher& d, const Clock& clock, SweepState& state, const SweepConfig& config, LogSink& log)
      : d_(d), clock_(clock), state_(state), config_(config), log_(log),
        smp_(d, [this](const SmpSubject& what, const DrPath& path, const SmpFailure& failure) {
          // Named by GUID and port; the rest of the fabric is still configured.
          problem({failure.answered ? SweepProblemKind::smp_failed : SweepProblemKind::silent, what.node, what.port,
                   fmt::format("{} (dr path {}): {}", what.text(), path, failure.why), path});
        }) {
    // Answers are handled while later SMPs are still being sent: each
    // phase's handlers only fill in what the phase has already set up.
    smp_.set_queue_limit(kQueuedSmps);
  }
  // A route check still running reads configured_ (or with_missing_): it
  // ends before they go.
  ~HeavySweep() {
    if (report_.routes.pending_check) report_.routes.pending_check->wait();
  }
  HeavySweep(const HeavySweep&) = delete;
  HeavySweep& operator=(const HeavySweep&) = delete;

  // `found`: the fabric as an incremental pass rebuilt it (its MADs in
  // `found_phase`); without it the whole fabric is discovered.
  Result<SweepReport> run(std::optional<DiscoveryResult> found = std::nullopt, PhaseReport found_phase = {}) {
    if (found) {
      report_.discovery = std::move(*found);
      map_discovery_problems();
      report_.phases.push_back(std::move(found_phase));
    } else {
      phase("discover", [&] { discover(); });
    }
    if (!report_.discovery.local_node.valid()) return unavailable_error("the local port did not answer NodeInfo");
    if (config_.after_discovery && !config_.after_discovery(report_.discovery)) {
      report_.stopped_after_discovery = true;
      return std::move(report_);
    }

    Status lids;
    phase("assign lids", [&] { lids = assign(); });
    IBSM_RETURN_IF_ERROR(lids);

    Status routed;
    phase("route", [&] { routed = route(); });
    IBSM_RETURN_IF_ERROR(routed);

    phase("read switches", [&] { read_unknown_switches(); });
    phase("program switches", [&] { program_switches(); });
    phase("program partitions", [&] { program_partitions(); });
    phase("program ports", [&] { program_ports(); });
    phase("program vls", [&] { program_vls(); });
    phase("arm ports", [&] { change_states(PortState::init, PortState::armed); });
    phase("activate ports", [&] { change_states(PortState::armed, PortState::active); });
    // The route check, if it ran beside the programming and the arming: it
    // reads the port states of the fabric, so the states the ports answered
    // go in only once it is done.
    settle_route_check(report_.routes);
    for (const AnsweredState& s : answered_states_) configured_.node(s.node).port(s.port).state = s.state;

    remember_m_keys();
    report_.subnet_up = std::none_of(report_.problems.begin(), report_.problems.end(),
                                     [](const SweepProblem& p) { return p.blocks_subnet_up(); });
    ++state_.heavy_sweeps;
    report_.subnet = std::make_shared<const SubnetSnapshot>(take_snapshot());
    share_programmed_lfts(report_.subnet);
    return std::move(report_);
  }

 private:
  template <typename Fn>
  void phase(const char* name, Fn&& fn) {
    Micros t0 = clock_.now();
    uint64_t sent0 = d_.stats().sent;
    fn();
    PhaseReport p{name, clock_.now() - t0, d_.stats().sent - sent0};
    log(log_, LogLevel::info, Subsystem::sweep, "phase {}: {:.3f} ms, {} mads", p.name, p.elapsed / 1000.0, p.mads);
    report_.phases.push_back(std::move(p));
  }

  void discover() {
    DiscoveryOptions o;
    o.query_switch_info = true;
    o.keep_port_info = true;
    // Ports whose key is not known yet: the configured key first, then the
    // others ports were last known to hold (OpenSM's m_key_lookup).
    o.m_key_candidates = m_key_candidates(config_.subnet.m_key, config_.m_key_lookup ? state_.m_keys : Guid2MKey{});
    if (config_.m_key_lookup) o.known_m_keys = &state_.m_keys;
    report_.discovery = discover_fabric(d_, o, log_);
    smp_.set_m_keys(&report_.discovery.m_keys);
    map_discovery_problems();
  }

  void map_discovery_problems() {
    for (const auto& p : report_.discovery.problems)
      report_.problems.push_back({p.m_key_refused ? SweepProblemKind::m_key_refused
                                  : config_.expects_peer && config_.expects_peer(p.via_node, PortNum{p.via_port})
                                      ? SweepProblemKind::missing
                                      : SweepProblemKind::unreachable,
                                  p.via_node,
                                  p.via_node.is_zero() ? std::nullopt : std::optional<PortNum>(PortNum{p.via_port}),
                                  fmt::format("dr path {}: {}", p.path, p.what), p.path});
  }

  // The key each port holds after the sweep is the one the next sweep (and,
  // through the cache's guid2mkey, the next run) talks to it with. A port
  // that refused keeps what was known of it.
  void remember_m_keys() {
    const Fabric& f = found();
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& node = f.node(NodeIndex{i});
      const uint8_t first = node.is_switch() ? 0 : 1;
      const uint8_t last = node.is_switch() ? 0 : node.num_ports;
      for (uint8_t p = first; p <= last; ++p) {
        if (held_info_[i].size() <= p || held_info_[i][p].port_state == PortState::no_change) continue;
        std::optional<DrPath> path = path_into(NodeIndex{i}, p);
        if (!path || report_.discovery.m_keys.refused(*path)) continue;
        const Guid guid = node.port(p).guid;
        const uint64_t key = held_info_[i][p].m_key;
        if (key == 0) {
          state_.m_keys.erase(guid);
        } else {
          state_.m_keys[guid] = key;
        }
      }
    }
  }

  // Logged at once, and kept in the report.
  void problem(SweepProblem p) {
    ibsm::log(log_, LogLevel::error, Subsystem::sweep, "{}", p.text);
    report_.problems.push_back(std::move(p));
  }

  const Fabric& found() const { return report_.discovery.fabric; }
  const wire::PortInfo& current(NodeIndex n, uint8_t port) const { return report_.discovery.port_info[n.value][port]; }
  bool was_read(NodeIndex n, uint8_t port) const { return current(n, port).port_state != PortState::no_change; }

  Status assign() {
    LidOptions o = config_.lids;
    const Fabric& f = found();
    const Node& local = f.node(report_.discovery.local_node);
    o.sm_port_guid = local.is_switch() ? local.port(0).guid : local.port(report_.discovery.local_port).guid;
    auto a = assign_lids(f, o, &state_.guid2lid);
    if (!a.ok()) return a.status();
    for (const auto& w : a->warnings) log(log_, LogLevel::warn, Subsystem::sweep, "{}", w);
    // A port's first LID is no news on a fresh fabric: like OpenSM's
    // "Assigned port" lines (verbose), each is a debug line, and they are
    // counted in one info line (a cold bring-up of 42k LIDs logged 42k
    // lines before routing could start: bench/scale.sh). A LID taken from a
    // port is news.
    size_t first_lids = 0;
    for (const auto& c : a->changes) {
      if (c.reason == LidDropReason::no_lid) ++first_lids;
      const LogLevel level = c.reason == LidDropReason::moved    ? LogLevel::warn
                             : c.reason == LidDropReason::no_lid ? LogLevel::debug
                                                                 : LogLevel::info;
      if (log_.enabled(level, Subsystem::sweep)) log(log_, level, Subsystem::sweep, "{}", describe(c));
    }
    if (first_lids != 0) log(log_, LogLevel::info, Subsystem::sweep, "{} ports without a lid got one", first_lids);
    configured_ = f;
    IBSM_RETURN_IF_ERROR(apply_lids(*a, configured_));
    const AssignedLid* sm = a->find(o.sm_port_guid);
    if (!sm) return internal_error(fmt::format("the sm port {} got no lid", o.sm_port_guid));
    report_.sm_lid = sm->base;
    state_.guid2lid = a->guid2lid;
    report_.lids = std::move(*a);
    return {};
  }

  Status route() {
    size_t grafted = 0;
    if (config_.last_seen && count_problems(report_.problems, SweepProblemKind::missing) != 0)
      with_missing_ = with_missing_nodes(configured_, config_.last_seen->fabric, report_.problems, &grafted);
    auto routes = config_.route(grafted ? with_missing_ : configured_);
    if (!routes.ok()) return routes.status();
    report_.routes = std::move(*routes);
    if (grafted) {
      // Only the nodes this sweep found are programmed; the missing ones keep
      // their LIDs' routes in the switches' tables.
      log(log_, LogLevel::info, Subsystem::routing, "routes kept to {} missing nodes, routed as last seen", grafted);
      report_.routes.lfts.resize(configured_.node_count());
    }
    return {};
  }

  // A switch the SM has no memory of (it took over from another SM, or runs
  // without its cache) may hold tables already: its blocks up to its
  // LinearFDBTop are read, so only what differs is set. A takeover on an
  // unchanged fabric then sets no LFT block at all. A fresh switch (top 0)
  // costs nothing here.
  void read_unknown_switches() {
    const Fabric& f = found();
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& node = f.node(NodeIndex{i});
      if (!node.is_switch()) continue;
      const wire::SwitchInfo& si = report_.discovery.switch_info[i];
      SwitchMemory& mem = state_.switches[node.node_guid];
      const Lid lid = node.port(0).base_lid;
      if (si.linear_fdb_top == 0 || (!mem.lft.empty() && mem.lid == lid)) continue;
      mem = SwitchMemory{lid, si.linear_fdb_top, std::vector<uint8_t>(size_t{si.linear_fdb_top} + 1, kNoRoute)};
      const size_t blocks = size_t{si.linear_fdb_top} / kLftBlock + 1;
      for (size_t b = 0; b < blocks; ++b) {
        ++report_.lft_blocks_read;
        smp_.get(report_.discovery.paths[i], wire::smp_attr::linear_forwarding_table, static_cast<uint32_t>(b),
                 SmpSubject::lazy("LFT block {0} get on switch {1}", static_cast<uint32_t>(b), node.node_guid),
                 [&mem, b](std::span<const uint8_t> data) {
                   auto block = wire::decode_linear_forwarding_table(data);
                   if (!block.ok() || mem.lft.empty()) return;  // empty: a block failed, all forgotten
                   std::vector<uint8_t>& lft = mem.lft.edit();
                   for (size_t k = 0; k < kLftBlock && b * kLftBlock + k < lft.size(); ++k)
                     lft[b * kLftBlock + k] = block->ports[k];
                 },
                 forget_lft(node.node_guid));
      }
    }
    smp_.run();
  }

  // A block that could not be read or set leaves the switch's table
  // unknown: forgotten, so the next sweep reads it again before it sets
  // what differs. (Remembering the wanted table regardless once left a
  // block lost to SMP loss unset for good.)
  // `programmed`: the switch's table is being programmed, so it is not
  // shared with the snapshot either (share_programmed_lfts).
  SmpIssuer::OnFailed forget_lft(Guid switch_guid, std::optional<NodeIndex> programmed = std::nullopt) {
    return [this, switch_guid, programmed] {
      if (programmed) programmed_lft_[programmed->value] = false;
      state_.switches[switch_guid].lft.clear();
    };
  }

  // The switches' memory shares the rows the snapshot records for the
  // switches this sweep programmed (RememberedLft: one copy, not two). A
  // switch missing this sweep keeps its older row alive, not the older
  // snapshot.
  void share_programmed_lfts(const std::shared_ptr<const SubnetSnapshot>& s) {
    for (uint32_t i = 0; i < programmed_lft_.size() && i < s->lfts.size(); ++i) {
      if (!programmed_lft_[i]) continue;
      state_.switches[s->fabric.node(NodeIndex{i}).node_guid].lft = RememberedLft::shared(s->lfts.share(i));
    }
  }

  // SwitchInfo (LinearFDBTop, LifeTimeValue, clearing PortStateChange) and
  // the LFT blocks that differ from what the switch holds.
  void program_switches() {
    const Fabric& f = found();
    written_switch_info_.assign(f.node_count(), wire::SwitchInfo{});
    programmed_lft_.assign(f.node_count(), false);
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      NodeIndex n{i};
      const Node& node = f.node(n);
      if (!node.is_switch()) continue;
      const DrPath& path = report_.discovery.paths[i];
      const wire::SwitchInfo& si = report_.discovery.switch_info[i];
      written_switch_info_[i] = si;
      const std::vector<uint8_t>& lft = report_.routes.lfts[i];
      uint16_t top = lft.empty() ? 0 : static_cast<uint16_t>(lft.size() - 1);
      if (top > si.linear_fdb_cap && si.linear_fdb_cap != 0) {
        report_.problems.push_back({SweepProblemKind::lft_cap, node.node_guid, std::nullopt,
                                    fmt::format("switch {}: {} lids exceed its linear fdb cap {}", node.node_guid,
                                                top + 1, si.linear_fdb_cap)});
        continue;
      }
      written_switch_info_[i] = programmed_switch_info(si, top, config_.switch_life_time);
      wire::SwitchInfo want = si;
      want.linear_fdb_top = top;
      want.life_time_value = config_.switch_life_time;
      want.port_state_change = si.port_state_change;  // writing 1 clears it (IBA 14.2.5.4)
      if (want.linear_fdb_top != si.linear_fdb_top || want.life_time_value != si.life_time_value ||
          si.port_state_change) {
        ++report_.switch_info_sets;
        smp_.set(path, wire::smp_attr::switch_info, 0, want,
                 {fmt::format("SwitchInfo set on switch {}", node.node_guid), node.node_guid});
      }

      // What the switch holds: our memory of it, if the switch still is as we left it.
      SwitchMemory& mem = state_.switches[node.node_guid];
      // A switch found with another LID than we left it (rebooted, or another
      // SM had it) may hold any MFT: the multicast programming reads it
      // again. One no SM has programmed (LinearFDBTop 0) holds no entry.
      if (mem.lid != node.port(0).base_lid || mem.lid.value == 0) {
        mem.mft_known = si.linear_fdb_top == 0;
        mem.mft.clear();
        mem.mft_top = si.multicast_fdb_top;
      }
      bool trusted = !mem.lft.empty() && mem.lid == node.port(0).base_lid && mem.lid.value != 0 &&
                     mem.linear_fdb_top == si.linear_fdb_top;
      auto block_of = [&lft](size_t b) {
        wire::LinearForwardingTable block;
        const size_t first = b * kLftBlock;
        const size_t held = first < lft.size() ? std::min(kLftBlock, lft.size() - first) : 0;
        if (held > 0) std::memcpy(block.ports.data(), lft.data() + first, held);
        std::fill(block.ports.begin() + static_cast<std::ptrdiff_t>(held), block.ports.end(), kNoRoute);
        return block;
      };
      size_t blocks = lft.empty() ? 0 : (lft.size() + kLftBlock - 1) / kLftBlock;
      std::vector<uint16_t> differ;
      for (size_t b = 0; b < blocks; ++b) {
        bool same = trusted;
        const size_t first = b * kLftBlock;
        if (same && first + kLftBlock <= lft.size() && first + kLftBlock <= mem.lft.size()) {
          // A whole block on both sides, the common case: one compare (an
          // incremental sweep on 42k LIDs compares 2.3M blocks to set a few).
          same = std::memcmp(lft.data() + first, mem.lft.entries().data() + first, kLftBlock) == 0;
        } else {
          const wire::LinearForwardingTable block = block_of(b);
          for (size_t k = 0; k < kLftBlock && same; ++k) {
            size_t lid = first + k;
            const uint8_t held = lft_entry(mem.lft.entries(), lid);
            if (held != block.ports[k]) same = false;
          }
        }
        if (!same) differ.push_back(static_cast<uint16_t>(b));
      }
      // Remembered before the Sets go out: a failed one's handler, which
      // may run while later blocks are still being sent, forgets it again.
      // The table itself is shared with the snapshot once it is made
      // (share_programmed_lfts); nothing reads it before.
      mem.lid = configured_.node(n).port(0).base_lid;
      mem.linear_fdb_top = top;
      mem.lft.clear();
      programmed_lft_[i] = true;
      for (uint16_t b : differ) {
        ++report_.lft_blocks_sent;
        smp_.set(path, wire::smp_attr::linear_forwarding_table, b, block_of(b),
                 SmpSubject::lazy("LFT block {0} set on switch {1}", b, node.node_guid), {},
                 forget_lft(node.node_guid, n));
      }
    }
    smp_.run();
  }

  std::optional<DrPath> path_into(NodeIndex n, uint8_t port) const { return ibsm::path_into(report_.discovery, n, port); }

  std::optional<PeerCaps> peer_of(NodeIndex n, uint8_t port) const {
    const Port& p = found().node(n).port(port);
    if (!p.connected() || !was_read(p.remote_node, p.remote_port)) return std::nullopt;
    const wire::PortInfo& r = current(p.remote_node, p.remote_port);
    return PeerCaps{r.mtu_cap, r.vl_cap};
  }

  // PortInfo (LID, LMC, SM LID, prefix, MTU, VLs) where it differs, and the
  // default partition on CA ports.
  void program_ports() {
    std::vector<std::function<void()>> key_changes;
    SubnetSettings subnet = config_.subnet;
    subnet.sm_lid = report_.sm_lid;
    const Fabric& f = found();
    configured_info_.assign(report_.discovery.port_info.size(), {});
    held_info_ = report_.discovery.port_info;
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      NodeIndex n{i};
      const Node& node = f.node(n);
      for (uint8_t p = 0; p <= node.num_ports; ++p) {
        if (!was_read(n, p)) continue;
        bool external = node.is_switch() && p != 0;
        if (p != 0 && !node.port(p).connected()) continue;
        if (!node.is_switch() && p == 0) continue;
        std::optional<DrPath> reach = path_into(n, p);
        if (!reach) {
          report_.problems.push_back({SweepProblemKind::no_route_in, node.node_guid, PortNum{p},
                                      fmt::format("{}: no directed route enters through it", port_name(node, p))});
          continue;
        }
        const DrPath& path = *reach;
        if (report_.discovery.m_keys.refused(path)) continue;  // reported by discovery
        const Port& target = configured_.node(n).port(p);
        auto update = port_info_update(current(n, p), subnet, PortAddress{target.base_lid, target.lmc},
                                       p == 0 ? std::nullopt : peer_of(n, p), external,
                                       external ? enforcement_[i][p] : std::nullopt,
                                       wanted_vl_high_limit(vl_settings(), f, n, p));
        if (update && !worth_setting(node.node_guid, p, current(n, p), *update)) update.reset();
        if (update) {
          ++report_.port_info_sets;
          configured_info_for_write(i, p) = *update;
          // A port in INIT is armed by the same Set (IBA 14.2.5.6: PortState
          // 2 asks for ARMED, the one step on from INIT the port state machine
          // of IBA 7.2 allows; the port applies the Set's other components
          // while it is still in INIT). One Set per port instead of two: on
          // 42k LIDs 236k MADs fewer. Its state counts only once the answer
          // says so (the arm phase retries the ports it does not).
          if (current(n, p).port_state == PortState::init) {
            update->port_state = PortState::armed;
            ++report_.ports_armed;
          }
          // What the port holds if no answer tells: what we asked of it.
          apply_managed(held_info_[i][p], *update);
          auto send = [this, i, p, path, update = *update, guard = !external, is_switch = node.is_switch(),
                       guid = node.node_guid] {
            smp_.set(path, wire::smp_attr::port_info, p, update,
                     SmpSubject::lazy(is_switch ? "PortInfo set on switch {1} port {0}" : "PortInfo set on ca {1} port {0}",
                                      p, guid, PortNum{p}),
                     [this, i, p, path, guard, guid, asked = managed_fields(update),
                      asked_key = m_key_fields(update)](std::span<const uint8_t> data) {
                       auto pi = wire::decode_port_info(data);
                       if (!pi.ok()) return;
                       configured_info_for_write(i, p).port_state = pi->port_state;
                       // The GetResp of a Set carries the attribute as the port
                       // now holds it (IBA 13.4.5, Set): it keeps only what it can
                       // (ibsim forgets SubnetTimeout, GidPrefix, NeighborMTU),
                       // and the SA answers what the port holds.
                       held_info_[i][p] = *pi;
                       state_.ports[guid][p] = PortMemory{asked, managed_fields(*pi), asked_key, m_key_fields(*pi)};
                       // Its SMPs carry the key it now holds.
                       if (guard) report_.discovery.m_keys.set(path, pi->m_key);
                     });
          };
          // A Set that gives the port a new M_Key goes after every other SMP
          // to it, which still carry the old key.
          if (!external && update->m_key != current(n, p).m_key) {
            key_changes.push_back(std::move(send));
          } else {
            send();
          }
        }
      }
    }
    smp_.run();
    for (auto& send : key_changes) send();
    smp_.run();
  }

  // The VL settings with the policy's qos-setup and the SM's port.
  const VlSettings& vl_settings() {
    if (!vl_settings_) {
      vl_settings_ = config_.vl;
      vl_settings_->policy = config_.qos_policy;
      vl_settings_->sm_port = snapshot_sm_port();
    }
    return *vl_settings_;
  }

  // SL2VL and VL arbitration tables (sm/sweep/vl_programming.h), after
  // the ports' OperationalVLs are set: the tables are masked to them.
  void program_vls() {
    forget_reset_vl_tables(report_.discovery, state_.vl_tables);
    VlPlan plan = plan_vl_tables(found(), held_info_, report_.discovery.switch_info, vl_settings(),
                                 report_.routes.sl2vl, report_.routes.vl_arbitration);
    for (auto& p : plan.problems) problem(std::move(p));
    VlProgrammingCounts c = program_vl_tables(smp_, report_.discovery, plan, state_.vl_tables);
    report_.sl2vl_sets += c.sl2vl_sets;
    report_.vlarb_sets += c.vlarb_sets;
    report_.vl_tables_read += c.tables_read;
  }

  // False when the port holds exactly what it held after we last asked for
  // the same fields: it keeps only what it can, and asking again changes nothing.
  bool worth_setting(Guid node_guid, uint8_t port, const wire::PortInfo& now, const wire::PortInfo& want) const {
    auto node = state_.ports.find(node_guid);
    if (node == state_.ports.end()) return true;
    auto mem = node->second.find(port);
    if (mem == node->second.end()) return true;
    const PortMemory& m = mem->second;
    const bool fields = managed_fields(want) != managed_fields(now) &&
                        !(m.asked == managed_fields(want) && m.held == managed_fields(now));
    const bool keys = m_key_fields(want) != m_key_fields(now) &&
                      !(m.asked_key == m_key_fields(want) && m.held_key == m_key_fields(now));
    return fields || keys;
  }

  // P_Key tables (IBA 10.9, 14.2.5.7) as the partition plan wants them. A
  // table the SM has no memory of is read first; then only blocks that
  // differ are set, and the Set's answer is what the port holds. An
  // unchanged fabric costs no P_Key MAD at all. The enforcement bits of
  // switch ports facing end ports go with their PortInfo (program_ports).
  void program_partitions() {
    const Fabric& f = found();
    const size_t n_nodes = f.node_count();
    // The SM's memory of ports that may have been reset is dropped: an end
    // port that is not ACTIVE (it went down, or its host restarted), a
    // switch with an empty LFT (it restarted).
    for (uint32_t i = 0; i < n_nodes; ++i) {
      const Node& node = f.node(NodeIndex{i});
      auto mem = state_.p_key_tables.find(node.node_guid);
      if (mem == state_.p_key_tables.end()) continue;
      if (node.is_switch() && report_.discovery.switch_info[i].linear_fdb_top == 0) {
        state_.p_key_tables.erase(mem);
        continue;
      }
      for (unsigned p = node.is_switch() ? 1 : 0; p <= node.num_ports; ++p) {
        const auto port = static_cast<uint8_t>(p);
        if (was_read(NodeIndex{i}, port) && current(NodeIndex{i}, port).port_state != PortState::active)
          mem->second.erase(port);
      }
    }
    // Plan against what the ports hold; read what the SM does not know.
    auto plan_now = [&] {
      return plan_partitions(PartitionPlanInput{f, partitions_in_effect_, snapshot_sm_port(), config_.partition_options,
                                                report_.discovery.port_info, report_.discovery.switch_info,
                                                held_p_keys(f), PartitionCaps{}});
    };
    PartitionPlan plan = plan_now();
    // The plan is made again with what was learnt (keys the ports hold keep
    // their index), unless every table learnt is the one planned for its
    // port: planned against it, that table would keep every key where it
    // is, and the plan would come out the same. So a fresh fabric, whose
    // ports hold the reset table the default partition wants, is planned
    // once (at 42k LIDs a plan is some 250k small tables).
    bool learnt_other = false;
    for (uint32_t i = 0; i < n_nodes; ++i) {
      const Node& node = f.node(NodeIndex{i});
      for (size_t p = 0; p < plan.tables[i].size(); ++p) {
        const auto port = static_cast<uint8_t>(p);
        if (plan.tables[i][p].empty() || known_table(node.node_guid, port)) continue;
        if (config_.trust_reset_p_key_tables && fresh_from_reset(NodeIndex{i}, port)) {
          std::vector<uint16_t> reset = reset_p_key_table(plan.tables[i][p].size());
          learnt_other |= reset != plan.tables[i][p];
          state_.p_key_tables[node.node_guid][port] = std::move(reset);
          ++report_.pkey_tables_taken_reset;
        } else {
          learnt_other |= read_p_key_table(NodeIndex{i}, port, plan.tables[i][p].size());
        }
      }
    }
    if (learnt_other) {
      smp_.run();
      plan = plan_now();
    }
    for (auto& p : plan.problems) problem(std::move(p));
    for (uint32_t i = 0; i < n_nodes; ++i)
      for (size_t p = 0; p < plan.tables[i].size(); ++p)
        if (!plan.tables[i][p].empty()) set_p_key_table(NodeIndex{i}, static_cast<uint8_t>(p), plan.tables[i][p]);
    enforcement_ = std::move(plan.enforcement);
    smp_.run();
  }

  // The P_Key tables the SM remembers for `f`'s nodes, read in place.
  HeldPKeys held_p_keys(const Fabric& f) const {
    std::vector<const HeldPKeys::PortTables*> by_node(f.node_count(), nullptr);
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      auto mem = state_.p_key_tables.find(f.node(NodeIndex{i}).node_guid);
      if (mem != state_.p_key_tables.end()) by_node[i] = &mem->second;
    }
    return HeldPKeys(std::move(by_node));
  }

  PortRef snapshot_sm_port() const {
    PortRef sm{report_.discovery.local_node, report_.discovery.local_port};
    if (found().node(sm.node).is_switch()) sm.port = 0;
    return sm;
  }

  // Whether the port's P_Key table is the one it holds after a reset, so
  // the SM need not read it. IBA C10-123: without non-volatile P_Key
  // storage, until the Partition Manager initializes it the table acts as
  // holding only the default P_Key 0xFFFF at index 0 (reset_p_key_table).
  // An SM gives a port its LID before or with anything else it configures
  // (OpenSM's LID manager runs before its P_Key manager), and a LID
  // survives a link going down; so a LID of 0, in the PortInfo this sweep
  // read, says no SM has configured the port since it was reset:
  //  - a CA or router port: its LID is 0 and it is INIT (ARMED and ACTIVE
  //    are only reached through an SM);
  //  - a switch port 0: the switch's LID (port 0's) is 0; its state says
  //    nothing (a switch's port 0 is not a link);
  //  - a switch port 1..N (its enforcement table): the switch's LID is 0
  //    and the port is INIT.
  // Ports that keep their tables in non-volatile storage break the rule;
  // trust_reset_p_key_tables false reads every table instead.
  bool fresh_from_reset(NodeIndex n, uint8_t port) const {
    const Node& node = found().node(n);
    const uint8_t lid_port = node.is_switch() ? 0 : port;
    if (!was_read(n, lid_port) || !was_read(n, port)) return false;
    if (current(n, lid_port).lid.value != 0) return false;
    return (node.is_switch() && port == 0) || current(n, port).port_state == PortState::init;
  }

  bool known_table(Guid node_guid, uint8_t port) const {
    auto mem = state_.p_key_tables.find(node_guid);
    return mem != state_.p_key_tables.end() && mem->second.count(port) != 0;
  }

  // The P_KeyTable modifier: the block; on a switch, the port in bits 31-16
  // (IBA 14.2.5.7; a CA's table is the one of the port the SMP enters).
  static uint32_t p_key_modifier(const Node& node, uint8_t port, size_t block) {
    return static_cast<uint32_t>(block) | (node.is_switch() ? uint32_t{port} << 16 : 0u);
  }

  // Whether a Get went out (false: no route into the port).
  bool read_p_key_table(NodeIndex n, uint8_t port, size_t entries) {
    const Node& node = found().node(n);
    std::optional<DrPath> path = p_key_path(n, port);
    if (!path) return false;
    auto table = std::make_shared<std::vector<uint16_t>>(entries, 0);
    auto missing = std::make_shared<size_t>((entries + wire::p_keys_per_block - 1) / wire::p_keys_per_block);
    for (size_t b = 0; b * wire::p_keys_per_block < entries; ++b) {
      ++report_.pkey_blocks_read;
      smp_.get(*path, wire::smp_attr::p_key_table, p_key_modifier(node, port, b),
               {fmt::format("P_Key block {} get on {}", b, port_name(node, port)), node.node_guid, PortNum{port}},
               table_answer(table, missing, b, node.node_guid, port));
    }
    return true;
  }

  // The answer to a Get or Set of block `b` (a GetResp: the block as the
  // port holds it) goes into `table`; once `missing` blocks have answered,
  // `table` is what the SM knows the port holds. A block that gets no
  // answer leaves the port unknown, so the next sweep reads it.
  SmpIssuer::OnData table_answer(std::shared_ptr<std::vector<uint16_t>> table, std::shared_ptr<size_t> missing,
                                 size_t b, Guid node_guid, uint8_t port) {
    return [this, table, missing, b, node_guid, port](std::span<const uint8_t> data) {
      auto block = wire::decode_p_key_table(data);
      if (!block.ok()) return;
      for (size_t k = 0; k < wire::p_keys_per_block && b * wire::p_keys_per_block + k < table->size(); ++k)
        (*table)[b * wire::p_keys_per_block + k] = block->p_keys[k];
      if (--*missing == 0) state_.p_key_tables[node_guid][port] = *table;
    };
  }

  // A switch's tables are all reached at the switch (the modifier names
  // the port); a CA's through the port itself.
  std::optional<DrPath> p_key_path(NodeIndex n, uint8_t port) const {
    if (found().node(n).is_switch()) return report_.discovery.paths[n.value];
    return path_into(n, port);
  }

  void set_p_key_table(NodeIndex n, uint8_t port, const std::vector<uint16_t>& want) {
    const Node& node = found().node(n);
    auto mem_node = state_.p_key_tables.find(node.node_guid);
    if (mem_node == state_.p_key_tables.end()) return;  // not read: reported as it failed
    auto mem = mem_node->second.find(port);
    if (mem == mem_node->second.end()) return;
    std::optional<DrPath> path = p_key_path(n, port);
    if (!path) return;
    std::vector<size_t> differ;
    std::vector<uint16_t>& held = mem->second;
    held.resize(want.size(), 0);
    for (size_t b = 0; b * wire::p_keys_per_block < want.size(); ++b)
      for (size_t i = b * wire::p_keys_per_block; i < want.size() && i < (b + 1) * wire::p_keys_per_block; ++i)
        if (held[i] != want[i]) {
          differ.push_back(b);
          break;
        }
    if (differ.empty()) return;
    // The port's table is known again once every Set is answered (the
    // answers say what it holds); a Set that gets none leaves it unknown,
    // so the next sweep reads it.
    auto table = std::make_shared<std::vector<uint16_t>>(std::move(held));
    auto missing = std::make_shared<size_t>(differ.size());
    mem_node->second.erase(mem);
    for (size_t b : differ) {
      wire::PKeyTable block;
      for (size_t k = 0; k < wire::p_keys_per_block && b * wire::p_keys_per_block + k < want.size(); ++k)
        block.p_keys[k] = want[b * wire::p_keys_per_block + k];
      ++report_.pkey_sets;
      smp_.set(*path, wire::smp_attr::p_key_table, p_key_modifier(node, port, b), block,
               {fmt::format("P_Key block {} set on {}", b, port_name(node, port)), node.node_guid, PortNum{port}},
               table_answer(table, missing, b, node.node_guid, port));
    }
  }

  // Moves every cabled port (and switch port 0) that is in `from` to `to`.
  void change_states(PortState from, PortState to) {
    const Fabric& f = found();
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& node = f.node(NodeIndex{i});
      for (uint8_t p = 0; p <= node.num_ports; ++p) {
        if (report_.discovery.port_info[i].size() <= p) continue;
        const wire::PortInfo& pi = configured_info(i, p);
        if (pi.port_state != from) continue;
        if (p == 0 ? !node.is_switch() : !node.port(p).connected()) continue;
        std::optional<DrPath> path = path_into(NodeIndex{i}, p);
        if (!path) continue;  // reported when its PortInfo was programmed
        (to == PortState::armed ? report_.ports_armed : report_.ports_activated)++;
        smp_.set(*path, wire::smp_attr::port_info, p, port_state_change(pi, to),
                 SmpSubject::lazy(state_change_pattern(node, to), p, node.node_guid, PortNum{p}),
                 [this, i, p, to, &node](std::span<const uint8_t> data) {
                   auto r = wire::decode_port_info(data);
                   if (!r.ok()) return;
                   configured_info_for_write(i, p).port_state = r->port_state;
                   held_info_[i][p] = *r;  // the port's own values, as for the programming Set
                   answered_states_.push_back({NodeIndex{i}, p, r->port_state});
                   if (r->port_state != to)
                     report_.problems.push_back({SweepProblemKind::port_state, node.node_guid, PortNum{p},
                                                 fmt::format("{}: asked for {}, port is {}", port_name(node, p),
                                                             port_state_name(to), port_state_name(r->port_state))});
                 });
      }
    }
    smp_.run();
  }

  // What this sweep leaves: the record the SA and the light sweep read. Its
  // tables move there, so a large fabric's LFTs and PortInfos are held once.
  SubnetSnapshot take_snapshot() {
    SubnetSnapshot s;
    s.fabric = std::move(configured_);
    s.paths = report_.discovery.paths;
    s.sm_port = PortRef{report_.discovery.local_node, report_.discovery.local_port};
    if (s.fabric.node(s.sm_port.node).is_switch()) s.sm_port.port = 0;
    s.sm_lid = report_.sm_lid;
    s.lfts = std::move(report_.routes.lfts);
    s.lfts.resize(s.fabric.node_count());
    s.port_info = std::move(held_info_);
    for (uint32_t i = 0; i < s.fabric.node_count(); ++i) {
      const Node& node = s.fabric.node(NodeIndex{i});
      s.port_info[i].resize(size_t{node.num_ports} + 1);
      // A cabled port's state as the sweep left it (the model has it, Sets or not).
      for (uint8_t p = 1; p <= node.num_ports; ++p)
        if (s.has_port_info(NodeIndex{i}, p)) s.port_info[i][p].port_state = node.port(p).state;
    }
    s.switch_info = std::move(written_switch_info_);
    s.switch_info.resize(s.fabric.node_count());
    // P_Key tables as the ports hold them (the answers to the Gets and
    // Sets); a port the plan leaves alone in its reset state.
    s.p_keys = reset_p_keys(s.fabric, s.port_info, s.switch_info, PartitionCaps{}, held_p_keys(s.fabric));
    s.partitions = std::make_shared<const PartitionConfig>(std::move(partitions_in_effect_));
    s.subnet_prefix = config_.subnet.subnet_prefix;
    s.subnet_timeout = config_.subnet.subnet_timeout;
    s.routing_engine = report_.routes.engine;
    s.path_sl = report_.routes.path_sl;
    if (config_.vl.qos) s.qos_policy = config_.qos_policy;
    if (s.qos_policy && s.path_sl && !state_.warned_policy_sl_ignored) {
      state_.warned_policy_sl_ignored = true;
      log(log_, LogLevel::warn, Subsystem::sweep,
          "routing engine {} assigns path SLs: the QoS policy's SLs are not used (its MTU, rate and packet "
          "lifetime limits are), so no path leaves the engine's deadlock-free VLs",
          s.routing_engine);
    }
    s.sweep = state_.heavy_sweeps;
    return s;
  }

  MadDispatcher& d_;
  const Clock& clock_;
  SweepState& state_;
  const SweepConfig& config_;
  LogSink& log_;
  // What the tables are planned from; moved into the snapshot at the end.
  PartitionConfig partitions_in_effect_ = partitions_in_effect(config_.partitions.get());
  SweepReport report_;
  SmpIssuer smp_;
  // By node and port: the enforcement bits the partition plan wants on
  // switch ports facing end ports (unset: left alone).
  std::vector<std::vector<std::optional<PortEnforcement>>> enforcement_;
  // PortInfo as configured (what we wrote), by node and port: the base of the
  // state-change Sets, which must write every configured field back unchanged.
  // A node's row is made at the first write (configured_info_for_write); an
  // empty row reads as discovered: an incremental sweep sets a few ports,
  // and a copy of every PortInfo was 13 MB per event at 42k LIDs.
  std::vector<std::vector<wire::PortInfo>> configured_info_;
  const wire::PortInfo& configured_info(uint32_t i, uint8_t p) const {
    return configured_info_[i].empty() ? report_.discovery.port_info[i][p] : configured_info_[i][p];
  }
  wire::PortInfo& configured_info_for_write(uint32_t i, uint8_t p) {
    if (configured_info_[i].empty()) configured_info_[i] = report_.discovery.port_info[i];
    return configured_info_[i][p];
  }
  // PortInfo as each port holds it after the sweep: as read, then as the
  // GetResp of each Set answered it (where none was decoded, the managed
  // fields as the Set asked).
  std::vector<std::vector<wire::PortInfo>> held_info_;
  // The states the ports answered to arming and activation, for configured_
  // once the route check that reads it is done.
  struct AnsweredState {
    NodeIndex node;
    uint8_t port;
    PortState state;
  };
  std::vector<AnsweredState> answered_states_;
  Fabric configured_;  // the found fabric with its new LIDs and port states
  Fabric with_missing_;  // configured_ with the missing nodes grafted in, when any are: what was routed
  std::optional<VlSettings> vl_settings_;
  std::vector<wire::SwitchInfo> written_switch_info_;  // by NodeIndex, as programmed
  // By NodeIndex: the switch holds the table this sweep routed (every
  // block it sent was taken), for share_programmed_lfts.
  std::vector<bool> programmed_lft_;
};

}  // namespace

uint64_t SweepReport::total_mads() const {
  uint64_t n = 0;
  for (const auto& p : phases) n += p.mads;
  return n;
}

Result<SweepReport> heavy_sweep(MadDispatcher& dispatcher, const Clock& clock, SweepState& state,
                                const SweepConfig& config, LogSink& log) {
  if (!config.route) return invalid_argument_error("no routing function configured");
  HeavySweep sweep(dispatcher, clock, state, config, log);
  return sweep.run();
}

Result<SweepReport> configure_found_subnet(MadDispatcher& dispatcher, const Clock& clock, SweepState& state,
                                           const SweepConfig& config, DiscoveryResult found, PhaseReport found_phase,
                                           LogSink& log) {
  if (!config.route) return invalid_argument_error("no routing function configured");
  HeavySweep sweep(dispatcher, clock, state, config, log);
  return sweep.run(std::move(found), std::move(found_phase));
}

}  // namespace ibsm
