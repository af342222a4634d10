// ibsm route: offline routing. Reads a topology file, assigns LIDs as the
// daemon does on a fresh fabric (the SM's port first, then switches, then CA
// ports, each in GUID order), runs the same routing step the daemon's heavy
// sweep runs (engine chain, fallback, post-routing check), and writes the
// forwarding tables and the LIDs. No fabric, no umad: for switch firmware
// builds, capacity planning, and for the `file` engine to load later.
#include <chrono>
#include <cstdio>
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

}  // namespace

int cmd_route(int argc, char** argv) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kRouteUsage, stdout);
    return 0;
  }
  auto topology = args.value("--topology", "-t");
  auto out_file = args.value("--lfts");
  auto format = args.value("--format");
  auto guid2lid_file = args.value("--guid2lid");
  auto sl_file = args.value("--sl");
  auto sl2vl_file = args.value("--sl2vl");
  auto max_vls = args.integer("--max-vls", 1, 15);
  auto engine = args.value("--engine", "-R");
  auto lmc = args.integer("--lmc", 0, 7, "-l");
  bool lmc_esp0 = args.flag("--lmc_esp0");
  auto roots_file = args.value("--root_guid_file", "-a");
  auto lfts_in = args.value("--lfts_file", "-U");
  auto torus_config = args.value("--torus_config");
  auto sm_node = args.value("--sm-node");
  uint32_t verbosity = 1;
  while (args.flag("--verbose", "-v")) ++verbosity;
  std::vector<std::string> errors = args.errors();
  for (const auto& r : args.positionals()) errors.push_back("unexpected argument '" + r + "'");
  if (!topology) errors.push_back("--topology is required");
  if (format && *format != "dump_lfts" && *format != "opensm")
    errors.push_back("--format " + *format + ": expected dump_lfts or opensm");
  if (!errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "ibsm route: %s\n", e.c_str());
    std::fputs(kRouteUsage, stderr);
    return 2;
  }
  ElapsedStderrLogSink log(static_cast<LogLevel>(verbosity > 4 ? 4 : verbosity));

  auto engines = load_engine_files(roots_file.value_or(""), lfts_in.value_or(""));
  if (engines.ok() && torus_config) {
    const Status torus = load_torus_config(*torus_config, true, *engines);
    if (!torus.ok()) engines = torus;
  }
  if (!engines.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", engines.status().message().c_str());
    return 2;
  }
  engines->max_vls = static_cast<uint8_t>(max_vls.value_or(8));
  engines->aside = thread_aside_runner();  // min-hop's and updn's next searches, beside their routing
  auto route = make_route_function(engine.value_or("minhop"), log, *engines);
  if (!route.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", route.status().message().c_str());
    return 2;
  }
  auto fabric = load_netfile(*topology);
  if (!fabric.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", fabric.status().message().c_str());
    return 1;
  }
  auto sm_port = sim_attach_point(*fabric, sm_node.value_or(""));
  if (!sm_port.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", sm_port.status().message().c_str());
    return 1;
  }

  // A fresh fabric: whatever LIDs the file records are ignored, as a daemon
  // starting without a cache on unconfigured ports would.
  LidOptions lid_options;
  lid_options.lmc = static_cast<uint8_t>(lmc.value_or(0));
  lid_options.lmc_esp0 = lmc_esp0;
  lid_options.reassign_all = true;
  lid_options.sm_port_guid = fabric->node(sm_port->node).port(sm_port->port).guid;
  auto lids = assign_lids(*fabric, lid_options, nullptr);
  if (!lids.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", lids.status().message().c_str());
    return 1;
  }
  if (Status s = apply_lids(*lids, *fabric); !s.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", s.message().c_str());
    return 1;
  }

  ibsm::log(log, LogLevel::info, Subsystem::routing, "routing {} switches, lids 1-{}, with '{}'", fabric->switch_count(),
            lids->top, engine.value_or("minhop"));
  const auto start = std::chrono::steady_clock::now();
  auto routes = (*route)(*fabric);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!routes.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", routes.status().message().c_str());
    return 1;
  }

  const bool opensm_format = format.value_or("dump_lfts") == "opensm";
  Status written = !out_file ? Status{} : write_stream_output(*out_file, [&](std::ostream& out) {
    if (opensm_format) {
      write_opensm_lfts_dump(*fabric, routes->lfts, out);
    } else {
      write_lft_dump(*fabric, routes->lfts, out);
    }
  });
  if (!written.ok()) {
    std::fprintf(stderr, "ibsm route: %s\n", written.message().c_str());
    return 1;
  }
  if (sl_file) {
    Status sl_written = write_stream_output(
        *sl_file, [&](std::ostream& out) { write_path_sl_dump(*fabric, routes->path_sl, routes->engine, out); });
    if (!sl_written.ok()) {
      std::fprintf(stderr, "ibsm route: %s\n", sl_written.message().c_str());
      return 1;
    }
  }
  if (sl2vl_file) {
    std::vector<Sl2VlDumpEntry> tables;
    for (const routing::Sl2VlTable& t : routes->sl2vl.value_or(std::vector<routing::Sl2VlTable>{}))
      tables.push_back({fabric->node(t.node).node_guid, t.in_port, t.out_port, t.vl_of_sl, 0});
    Status written_tables = write_stream_output(
        *sl2vl_file, [&](std::ostream& out) { write_sl2vl_dump(tables, routes->engine, out); });
    if (!written_tables.ok()) {
      std::fprintf(stderr, "ibsm route: %s\n", written_tables.message().c_str());
      return 1;
    }
  }
  if (guid2lid_file) {
    std::ostringstream map;
    write_guid2lid(lids->guid2lid, map);
    if (Status s = write_text_output(*guid2lid_file, map.str()); !s.ok()) {
      std::fprintf(stderr, "ibsm route: %s\n", s.message().c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "ibsm route: %zu switches, %zu CAs, lids 1..%u, routing %s in %.3f s\n", fabric->switch_count(),
               fabric->ca_count(), static_cast<unsigned>(lids->top.value), routes->engine.c_str(), seconds);
  return 0;
}

}  // namespace ibsm::tools
