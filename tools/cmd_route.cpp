// ibsm route: offline routing. Reads a topology file, assigns LIDs as the
// daemon does on a fresh fabric (the SM's port first, then switches, then CA
// ports, each in GUID order), runs the same routing step the daemon's heavy
// sweep runs (engine chain, fallback, post-routing check), and writes the
// forwarding tables and the LIDs. No fabric, no umad: for switch firmware
// builds, capacity planning, and for the `file` engine to load later.
#include <chrono>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "sm/dump/lft_dump.h"
#include "sm/dump/opensm_dump.h"
#include "sm/dump/path_sl_dump.h"
#include "sm/dump/sl2vl_dump.h"
#include "sm/sweep/guid2lid.h"
#include "sm/sweep/lid_assignment.h"
#include "sm/sweep/routing_step.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/os/aside_thread.h"
#include "tools/os/engine_files.h"
#include "tools/os/files.h"
#include "tools/os/stderr_log.h"
#include "tools/sim_attach.h"

namespace ibsm::tools {
namespace {

constexpr const char* kRouteUsage =
    "usage: ibsm route --topology FILE [--lfts OUT] [options]\n"
    "\n"
    "Routes a fabric described by a topology file, with no fabric attached: assigns\n"
    "LIDs as the daemon does on a fresh fabric, runs the routing engine chain and\n"
    "writes the switches' forwarding tables. The same netfile and engine give the\n"
    "tables `ibsm run` programs.\n"
    "\n"
    "  -t, --topology FILE      ibsim netfile or ibnetdiscover output\n"
    "      --lfts OUT           write the tables here ('-': standard output); without\n"
    "                           it, route and check only (capacity planning: at 45k\n"
    "                           endpoints the tables run to gigabytes of text)\n"
    "      --format F           dump_lfts (default: as dump_lfts/ibroute print them)\n"
    "                           or opensm (OpenSM's opensm-lfts.dump); both load\n"
    "                           with -R file -U OUT, in ibsm and in OpenSM\n"
    "      --guid2lid OUT       write the LIDs assigned, in OpenSM's guid2lid format\n"
    "      --sl OUT             write the SL of every path off SL 0 (SLID DLID SL\n"
    "                           lines; dfsssp assigns SLs), for `ibsm check --sl`\n"
    "      --sl2vl OUT          write the engine's SL2VL tables (NODEGUID INPORT\n"
    "                           OUTPORT and the VL of SL 0..15, one table a line;\n"
    "                           torus-2QoS has them), for `ibsm check --sl2vl`\n"
    "      --max-vls N          the VLs an engine may put paths on, 1-15 (default 8:\n"
    "                           VL0-7, the VLCap of ibsim's and most HCAs' ports)\n"
    "  -R, --engine LIST        routing engines to try in order, comma separated\n"
    "                           (as routing_engine; default minhop)\n"
    "  -l, --lmc N              LID mask control 0-7 (default 0)\n"
    "      --lmc_esp0           switches with an enhanced port 0 get 2^lmc LIDs too\n"
    "  -a, --root_guid_file F   updn's root switches, one node GUID per line\n"
    "  -U, --lfts_file F        the file engine's tables\n"
    "      --torus_config F     torus-2QoS's torus-2QoS.conf (default: the torus\n"
    "                           found from the cables)\n"
    "      --sm-node NAME       the node the SM would run on: its port gets the first\n"
    "                           LID (default: the topology's first node, as --sim)\n"
    "  -v, --verbose            more log, with the seconds since start (twice: debug)\n";

// The command line, parsed.
struct RouteFlags {
  std::optional<std::string> topology, out_file, format, guid2lid_file, sl_file, sl2vl_file, engine, roots_file,
      lfts_in, torus_config, sm_node;
  std::optional<int64_t> max_vls, lmc;
  bool lmc_esp0 = false;
  uint32_t verbosity = 1;
};

// Reads the flags into `f`; an exit status when the command ends here
// (--help, bad usage), nullopt to go on.
std::optional<int> parse_route_flags(int argc, char** argv, RouteFlags& f) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kRouteUsage, stdout);
    return 0;
  }
  f.topology = args.value("--topology", "-t");
  f.out_file = args.value("--lfts");
  f.format = args.value("--format");
  f.guid2lid_file = args.value("--guid2lid");
  f.sl_file = args.value("--sl");
  f.sl2vl_file = args.value("--sl2vl");
  f.max_vls = args.integer("--max-vls", 1, 15);
  f.engine = args.value("--engine", "-R");
  f.lmc = args.integer("--lmc", 0, 7, "-l");
  f.lmc_esp0 = args.flag("--lmc_esp0");
  f.roots_file = args.value("--root_guid_file", "-a");
  f.lfts_in = args.value("--lfts_file", "-U");
  f.torus_config = args.value("--torus_config");
  f.sm_node = args.value("--sm-node");
  while (args.flag("--verbose", "-v")) ++f.verbosity;
  std::vector<std::string> errors = args.errors();
  for (const auto& r : args.positionals()) errors.push_back("unexpected argument '" + r + "'");
  if (!f.topology) errors.push_back("--topology is required");
  if (f.format && *f.format != "dump_lfts" && *f.format != "opensm")
    errors.push_back("--format " + *f.format + ": expected dump_lfts or opensm");
  if (errors.empty()) return std::nullopt;
  for (const auto& e : errors) std::fprintf(stderr, "ibsm route: %s\n", e.c_str());
  std::fputs(kRouteUsage, stderr);
  return 2;
}

// The engines' files and settings, and the routing step over them.
Result<RouteFunction> route_function(const RouteFlags& f, LogSink& log) {
  auto engines = load_engine_files(f.roots_file.value_or(""), f.lfts_in.value_or(""));
  if (engines.ok() && f.torus_config) {
    const Status torus = load_torus_config(*f.torus_config, true, *engines);
    if (!torus.ok()) engines = torus;
  }
  if (!engines.ok()) return engines.status();
  engines->max_vls = static_cast<uint8_t>(f.max_vls.value_or(8));
  engines->aside = thread_aside_runner();  // min-hop's and updn's next searches, beside their routing
  return make_route_function(f.engine.value_or("minhop"), log, *engines);
}

// A fresh fabric: whatever LIDs the file records are ignored, as a daemon
// starting without a cache on unconfigured ports would.
Result<LidAssignment> fresh_lids(const RouteFlags& f, Fabric& fabric) {
  auto sm_port = sim_attach_point(fabric, f.sm_node.value_or(""));
  if (!sm_port.ok()) return sm_port.status();
  LidOptions lid_options;
  lid_options.lmc = static_cast<uint8_t>(f.lmc.value_or(0));
  lid_options.lmc_esp0 = f.lmc_esp0;
  lid_options.reassign_all = true;
  lid_options.sm_port_guid = fabric.node(sm_port->node).port(sm_port->port).guid;
  auto lids = assign_lids(fabric, lid_options, nullptr);
  if (!lids.ok()) return lids.status();
  IBSM_RETURN_IF_ERROR(apply_lids(*lids, fabric));
  return lids;
}

// --lfts, --sl, --sl2vl and --guid2lid, each where asked.
Status write_route_outputs(const RouteFlags& f, const Fabric& fabric, const SweepRoutes& routes,
                           const LidAssignment& lids) {
  const bool opensm_format = f.format.value_or("dump_lfts") == "opensm";
  if (f.out_file) {
    IBSM_RETURN_IF_ERROR(write_stream_output(*f.out_file, [&](std::ostream& out) {
      if (opensm_format) {
        write_opensm_lfts_dump(fabric, routes.lfts, out);
      } else {
        write_lft_dump(fabric, routes.lfts, out);
      }
    }));
  }
  if (f.sl_file) {
    IBSM_RETURN_IF_ERROR(write_stream_output(
        *f.sl_file, [&](std::ostream& out) { write_path_sl_dump(fabric, routes.path_sl, routes.engine, out); }));
  }
  if (f.sl2vl_file) {
    std::vector<Sl2VlDumpEntry> tables;
    for (const routing::Sl2VlTable& t : routes.sl2vl.value_or(std::vector<routing::Sl2VlTable>{}))
      tables.push_back({fabric.node(t.node).node_guid, t.in_port, t.out_port, t.vl_of_sl, 0});
    IBSM_RETURN_IF_ERROR(write_stream_output(
        *f.sl2vl_file, [&](std::ostream& out) { write_sl2vl_dump(tables, routes.engine, out); }));
  }
  if (f.guid2lid_file) {
    std::ostringstream map;
    write_guid2lid(lids.guid2lid, map);
    IBSM_RETURN_IF_ERROR(write_text_output(*f.guid2lid_file, map.str()));
  }
  return {};
}

}  // namespace

int cmd_route(int argc, char** argv) {
  RouteFlags f;
  if (auto done = parse_route_flags(argc, argv, f)) return *done;
  ElapsedStderrLogSink log(static_cast<LogLevel>(f.verbosity > 4 ? 4 : f.verbosity));
  auto route = route_function(f, log);
  if (!route.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", route.status().message().c_str());
    return 2;
  }
  auto fabric = load_netfile(*f.topology);
  if (!fabric.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", fabric.status().message().c_str());
    return 1;
  }
  auto lids = fresh_lids(f, *fabric);
  if (!lids.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", lids.status().message().c_str());
    return 1;
  }
  ibsm::log(log, LogLevel::info, Subsystem::routing, "routing {} switches, lids 1-{}, with '{}'", fabric->switch_count(),
            lids->top, f.engine.value_or("minhop"));
  const auto start = std::chrono::steady_clock::now();
  auto routes = (*route)(*fabric);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!routes.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", routes.status().message().c_str());
    return 1;
  }
  if (Status s = write_route_outputs(f, *fabric, *routes, *lids); !s.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", s.message().c_str());
    return 1;
  }
  std::fprintf(stderr, "ibsm route: %zu switches, %zu CAs, lids 1..%u, routing %s in %.3f s\n", fabric->switch_count(),
               fabric->ca_count(), static_cast<unsigned>(lids->top.value), routes->engine.c_str(), seconds);
  return 0;
}

}  // namespace ibsm::tools
