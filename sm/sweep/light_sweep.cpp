#include "sm/sweep/light_sweep.h"

#include <array>

#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "mad/wire/switch_info.h"
#include "sm/sweep/m_key_paths.h"
#include "sm/sweep/smp_issuer.h"

namespace ibsm {
namespace {

class LightSweep {
 public:
  LightSweep(MadDispatcher& d, const SubnetSnapshot& last, LogSink& log)
      : d_(d), last_(last), log_(log),
        smp_(d, [this](const SmpSubject& what, const DrPath&, const SmpFailure& failure) {
          changed(what.text() + (failure.answered ? " answered with an error" : " does not answer: " + failure.why),
                  watching_switch(what));
        }) {
    smp_.set_m_keys(&m_keys_);
  }

  LightSweepResult run() {
    const Fabric& f = last_.fabric;
    uint64_t sent0 = d_.stats().sent;
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& node = f.node(NodeIndex{i});
      if (node.is_switch()) check_switch(NodeIndex{i}, node, last_.paths[i]);
    }
    check_endpoint_ports();
    smp_.run();
    result_.mads = d_.stats().sent - sent0;
    if (result_.changed) log(log_, LogLevel::info, Subsystem::sweep, "light sweep: {}", result_.reason);
    return result_;
  }

 private:
  // `at`: the switch whose region an incremental resweep reads for this
  // change; none: only a heavy sweep handles it.
  void changed(std::string why, std::optional<NodeIndex> at = std::nullopt) {
    if (at) {
      result_.changed_switches.push_back(*at);
    } else {
      result_.needs_full = true;
    }
    if (result_.changed) return;
    result_.changed = true;
    result_.reason = std::move(why);
  }

  // A CA port's change is its switch's (the far end of its cable). A switch
  // that does not answer is named itself: its path may cross a cable that
  // went, and the incremental pass reads it on another one (or gives up).
  std::optional<NodeIndex> watching_switch(const SmpSubject& what) const {
    const Fabric& f = last_.fabric;
    auto n = f.find_by_node_guid(what.node);
    if (n && f.node(*n).is_switch()) return n;
    if (!n || !what.port || what.port->value > f.node(*n).num_ports) return std::nullopt;
    const Port& p = f.node(*n).port(what.port->value);
    if (!p.connected() || !f.node(p.remote_node).is_switch()) return std::nullopt;
    return p.remote_node;
  }

  void check_switch(NodeIndex n, const Node& node, const DrPath& path) {
    std::string what = fmt::format("switch {}", node.node_guid);
    smp_.get(path, wire::smp_attr::switch_info, 0, SmpSubject(what, node.node_guid), [this, what, n](std::span<const uint8_t> data) {
      auto si = wire::decode_switch_info(data);
      if (!si.ok()) return changed(what + ": unreadable SwitchInfo");
      if (si->port_state_change) changed(what + ": a port changed state", n);
    });
    check_port(n, node, path, 0);
  }

  // A switch reports its own ports' state changes, but nothing reports a LID
  // changed behind the SM's back, nor a CA port's state on a fabric without
  // switches: every LID-owning port is read once.
  void check_endpoint_ports() {
    const Fabric& f = last_.fabric;
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& node = f.node(NodeIndex{i});
      if (node.is_switch()) continue;
      for (uint8_t p = 1; p <= node.num_ports; ++p)
        if (node.port(p).connected()) check_port(NodeIndex{i}, node, last_.paths[i], p);
    }
  }

  void check_port(NodeIndex n, const Node& node, const DrPath& path, uint8_t p) {
    const Port& want = node.port(p);
    std::string what = node.is_switch() ? fmt::format("switch {}", node.node_guid)
                                        : fmt::format("ca {} port {}", node.node_guid, p);
    const bool was_sm = was_sm_port(n, p);
    const SmpSubject subject = node.is_switch() ? SmpSubject(what, node.node_guid) : SmpSubject(what, node.node_guid, PortNum{p});
    // The SM's own port (reached at no hop): when it changed, the fabric is
    // reached another way or not at all, which only a heavy sweep sorts out.
    const std::optional<NodeIndex> watcher =
        path.hops() == 0 && !node.is_switch() ? std::nullopt : watching_switch(subject);
    smp_.get(path, wire::smp_attr::port_info, p, subject, [this, what, want, p, was_sm, watcher](std::span<const uint8_t> data) {
      auto pi = wire::decode_port_info(data);
      if (!pi.ok()) return changed(what + ": unreadable PortInfo");
      // An SM started or stopped there: the election must look again (trap
      // 144 says so too, but a trap can be lost).
      const bool is_sm = (pi->capability_mask & wire::port_cap::is_sm) != 0;
      if (is_sm != was_sm) return changed(fmt::format("{}: an sm {}", what, is_sm ? "started" : "stopped"));
      if (pi->lid != want.base_lid || pi->lmc != want.lmc)
        return changed(fmt::format("{}: lid {} lmc {} (was {} lmc {})", what, pi->lid, pi->lmc, want.base_lid, want.lmc));
      if (p != 0 && pi->port_state != want.state)
        changed(fmt::format("{}: {} (was {})", what, port_state_name(pi->port_state), port_state_name(want.state)),
                watcher);
    });
  }

  bool was_sm_port(NodeIndex n, uint8_t p) const {
    return last_.has_port_info(n, p) && (last_.port_info[n.value][p].capability_mask & wire::port_cap::is_sm) != 0;
  }

  MadDispatcher& d_;
  const SubnetSnapshot& last_;
  LogSink& log_;
  LightSweepResult result_;
  MKeyPaths m_keys_ = m_key_paths(last_);  // its Gets carry the keys the ports hold (IBA 14.2.4)
  SmpIssuer smp_;
};

}  // namespace

LightSweepResult light_sweep(MadDispatcher& dispatcher, const SubnetSnapshot& last, LogSink& log) {
  return LightSweep(dispatcher, last, log).run();
}

}  // namespace ibsm
