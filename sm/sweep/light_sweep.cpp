#include "sm/sweep/light_sweep.h"

#include <array>

#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "mad/wire/switch_info.h"

namespace ibsm {
namespace {

class LightSweep {
 public:
  LightSweep(MadDispatcher& d, const SweepReport& last, LogSink& log) : d_(d), last_(last), log_(log) {}

  LightSweepResult run() {
    const Fabric& f = last_.configured;
    uint64_t sent0 = d_.stats().sent;
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& node = f.node(NodeIndex{i});
      if (node.is_switch()) check_switch(node, last_.discovery.paths[i]);
    }
    check_endpoint_ports();
    d_.run_until_idle();
    result_.mads = d_.stats().sent - sent0;
    if (result_.changed) log(log_, LogLevel::info, Subsystem::sweep, "light sweep: {}", result_.reason);
    return result_;
  }

 private:
  void changed(std::string why) {
    if (result_.changed) return;
    result_.changed = true;
    result_.reason = std::move(why);
  }

  void get(const DrPath& path, uint16_t attr, uint32_t mod, std::string what,
           std::function<void(std::span<const uint8_t>)> ok) {
    MadPacket p;
    p.data = wire::build_dr_smp(wire::method::get, attr, mod, 0, path, {});
    d_.submit(p, [this, what = std::move(what), ok = std::move(ok)](Result<MadPacket> r) {
      if (!r.ok()) return changed(what + " does not answer: " + r.status().message());
      auto smp = wire::parse_smp(r->data);
      if (!smp.ok() || smp->status() != 0) return changed(what + " answered with an error");
      ok(smp->data());
    });
  }

  void check_switch(const Node& node, const DrPath& path) {
    std::string what = fmt::format("switch {}", node.node_guid);
    get(path, wire::smp_attr::switch_info, 0, what, [this, what](std::span<const uint8_t> data) {
      auto si = wire::decode_switch_info(data);
      if (!si.ok()) return changed(what + ": unreadable SwitchInfo");
      if (si->port_state_change) changed(what + ": a port changed state");
    });
  }

  // A switch reports its own ports' changes; what no switch sees is the SM's
  // own port and, on a fabric without switches, the CA ports themselves.
  void check_endpoint_ports() {
    const Fabric& f = last_.configured;
    bool any_switch = f.switch_count() > 0;
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      NodeIndex n{i};
      const Node& node = f.node(n);
      if (node.is_switch()) continue;
      if (any_switch && n != last_.discovery.local_node) continue;
      for (uint8_t p = 1; p <= node.num_ports; ++p) {
        if (any_switch && p != last_.discovery.local_port) continue;
        PortState was = node.port(p).state;
        std::string what = fmt::format("ca {} port {}", node.node_guid, p);
        get(last_.discovery.paths[i], wire::smp_attr::port_info, p, what, [this, what, was](std::span<const uint8_t> data) {
          auto pi = wire::decode_port_info(data);
          if (!pi.ok()) return changed(what + ": unreadable PortInfo");
          if (pi->port_state != was)
            changed(fmt::format("{}: {} (was {})", what, port_state_name(pi->port_state), port_state_name(was)));
        });
      }
    }
  }

  MadDispatcher& d_;
  const SweepReport& last_;
  LogSink& log_;
  LightSweepResult result_;
};

}  // namespace

LightSweepResult light_sweep(MadDispatcher& dispatcher, const SweepReport& last, LogSink& log) {
  return LightSweep(dispatcher, last, log).run();
}

}  // namespace ibsm
