// opensm.fdbs (format: OpenSM 3.3 osm_dump.c, dump_ucast_routes).
#include <optional>

#include "sm/dump/opensm_dump.h"
#include "sm/dump/opensm_view.h"
#include "sm/dump/switch_hops.h"
#include "sm/dump/text_sink.h"

namespace ibsm {
namespace {

using dump::OpenSmView;
using dump::SwitchHops;
using dump::TextSink;

class FdbsWriter {
 public:
  FdbsWriter(const Fabric& fabric, LftSet lfts, std::ostream& out)
      : view_(fabric), hops_(fabric), lfts_(lfts), sink_(out) {}

  void write() {
    for (NodeIndex sw : view_.switches()) {
      sink_.print("dump_ucast_routes: Switch 0x{:016x}\nLID    : Port : Hops : Optimal\n",
                  view_.fabric().node(sw).node_guid.value);
      for (uint32_t lid = 1; lid <= view_.max_lid(); ++lid) write_lid(sw, static_cast<uint16_t>(lid));
    }
  }

 private:
  // Where a route to a port ends among the switches: the switch itself, or
  // the switch a CA or router port is cabled to (plus that last link).
  struct Goal {
    NodeIndex sw;
    bool behind_link = false;
  };

  std::optional<Goal> goal_of(PortRef target) const {
    const Fabric& fabric = view_.fabric();
    if (fabric.node(target.node).is_switch()) return Goal{target.node, false};
    const Port& port = fabric.node(target.node).port(target.port);
    if (!port.connected() || !fabric.node(port.remote_node).is_switch()) return std::nullopt;
    return Goal{port.remote_node, true};
  }

  void write_lid(NodeIndex sw, uint16_t lid) {
    sink_.print("0x{:04X} : ", lid);
    const std::optional<PortRef> target = view_.port_of_lid(lid);
    const uint8_t port = lfts_.port(sw.value, lid);
    if (!target || port == kNoRoute) {
      sink_.put("UNREACHABLE\n");
      return;
    }
    const std::optional<Goal> goal = goal_of(*target);
    // OpenSM counts a CA on this very switch as one hop whichever port the
    // table names; elsewhere the hops are those of the named port.
    uint8_t hops = SwitchHops::no_path;
    if (goal) hops = goal->behind_link && goal->sw == sw ? 0 : hops_.via(sw, port, goal->sw);
    if (hops == SwitchHops::no_path) {
      sink_.print("{:03}  : HOPS UNKNOWN\n", port);
      return;
    }
    unsigned best = hops_.least(sw, goal->sw);
    unsigned taken = hops;
    if (goal->behind_link) ++best, ++taken;
    sink_.print("{:03}  : {:02}   : ", port, taken);
    if (best == taken) {
      sink_.put("yes\n");
    } else {
      sink_.print("No {} hop path possible via port {}!\n", best, shortest_port(sw, goal->sw));
    }
  }

  // The lowest-numbered port on a shortest path from `sw` to switch `to`.
  unsigned shortest_port(NodeIndex sw, NodeIndex to) const {
    if (sw == to) return 0;
    const uint8_t least = hops_.least(sw, to);
    const Node& node = view_.fabric().node(sw);
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (hops_.via(sw, static_cast<uint8_t>(p), to) == least) return p;
    }
    return 0;
  }

  OpenSmView view_;
  SwitchHops hops_;
  LftSet lfts_;
  TextSink sink_;
};

}  // namespace

void write_opensm_fdbs(const Fabric& fabric, LftSet lfts, std::ostream& out) {
  FdbsWriter(fabric, lfts, out).write();
}

}  // namespace ibsm
