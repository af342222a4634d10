// ibsm check: judges forwarding tables against a topology. Reads a topology
// (an ibsim netfile or ibnetdiscover output, whose LIDs it takes, or LIDs
// from a guid2lid file) and LFTs (dump_lfts/ibroute output or OpenSM's
// opensm-lfts.dump), and runs the route checker (routing/route_check.h) the
// daemon runs after every routing: delivered, unreachable and looping pairs,
// hops and stretch, routes per switch-to-switch link, channel dependency
// cycles. With --status-page it also renders the daemon's status page for
// this fabric and these tables (sm/status_page), to look at or to test
// without a daemon. Exit status 1 when a pair is not delivered, a LID is missing or
// given twice, or a deadlock-free engine's tables have a dependency cycle.
#include <memory>
#include <cstdio>
#include <istream>
#include <optional>
#include <utility>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "mad/base/text.h"
#include "routing/cdg.h"
#include "routing/registry.h"
#include "routing/route_check.h"
#include "sm/dump/lft_dump.h"
#include "sm/dump/path_sl_dump.h"
#include "sm/dump/sl2vl_dump.h"
#include "sm/status_page/status_page.h"
#include "sm/sweep/guid2lid.h"
#include "sm/sweep/lid_ownership.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/os/files.h"

namespace ibsm::tools {
namespace {

constexpr const char* kCheckUsage =
    "usage: ibsm check --topology FILE --lfts FILE [--guid2lid FILE] [--engine NAME]\n"
    "                  [--sl FILE [--sl2vl FILE]] [--stride N] [--trace SLID:DLID]... [--status-page FILE]\n"
    "\n"
    "Checks forwarding tables against a topology, as the daemon does after every\n"
    "routing: follows every CA-to-CA pair (every LID of every port) through the\n"
    "switches' tables and reports delivered, unreachable and looping pairs, hop\n"
    "counts and their stretch over the shortest path, routes per switch-to-switch\n"
    "link (max, mean, standard deviation) and whether the channel dependency graph\n"
    "has a cycle. The last line is the summary the daemon logs.\n"
    "\n"
    "Exit status: 0 when every pair is delivered; 1 when a pair is not, a port has\n"
    "no LID or a LID two owners, or the tables come from an engine that promises\n"
    "deadlock freedom (--engine updn, dnup or ftree) and have a dependency cycle\n"
    "(other engines' cycles are reported only), or the paths of an --sl file leave a\n"
    "cycle on some VL; 2 for bad usage.\n"
    "\n"
    "  --topology FILE   ibsim netfile or ibnetdiscover output (LIDs are taken from it)\n"
    "  --lfts FILE       dump_lfts / ibroute output, or OpenSM's opensm-lfts.dump\n"
    "  --guid2lid FILE   take the LIDs from this OpenSM guid2lid file instead (as the\n"
    "                    daemon's cache or `ibsm route --guid2lid` writes it)\n"
    "  --engine NAME     the routing engine that made the tables, as -R names it\n"
    "  --sl FILE         the SL of every path (`ibsm route --sl` writes it: SLID DLID SL\n"
    "                    lines, unlisted paths SL 0): the dependencies are checked on\n"
    "                    each VL apart, SL i on VL i\n"
    "  --sl2vl FILE      with --sl: the SL2VL tables (`ibsm route --sl2vl` writes them:\n"
    "                    NODEGUID INPORT OUTPORT and the VL of SL 0..15 a line); each\n"
    "                    hop then puts a packet on the VL its port pair's table maps\n"
    "                    its SL to (a pair without a table: VL 0), as torus-2QoS's\n"
    "                    datelines do\n"
    "  --stride N        count pairs from every N-th source port only\n"
    "  --trace S:D       also print the switches a packet from LID S to LID D crosses,\n"
    "                    one line each: node GUID, in-port, out-port\n"
    "  --status-page FILE  also write the status page the daemon serves (HTML, the\n"
    "                    fabric coloured by routed load) for this fabric and these tables\n";

// "3:17" -> (3, 17).
std::optional<std::pair<Lid, Lid>> parse_lid_pair(const std::string& text) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos) return std::nullopt;
  const auto a = parse_unsigned(std::string_view(text).substr(0, colon), Notation::decimal, 0xBFFF);
  const auto b = parse_unsigned(std::string_view(text).substr(colon + 1), Notation::decimal, 0xBFFF);
  if (!a || !b || *a == 0 || *b == 0) return std::nullopt;
  return std::pair{Lid{static_cast<uint16_t>(*a)}, Lid{static_cast<uint16_t>(*b)}};
}

// The page the daemon serves, for this fabric offline: no SM, no sweeps.
bool write_status_page(const std::string& path, Fabric fabric, std::vector<std::vector<uint8_t>> lfts,
                       const routing::RouteCheck& check, const std::vector<std::string>& bad_lids) {
  auto subnet = std::make_shared<SubnetSnapshot>();
  subnet->fabric = std::move(fabric);
  subnet->lfts = std::move(lfts);
  subnet->routing_engine = check.engine;
  status::StatusPageInput in;
  in.title = "ibsm check";
  in.subnet = std::move(subnet);
  in.port_routes = check.pairs.port_routes;
  in.routing_engine = check.engine.empty() ? "unknown (tables read from a file)" : check.engine;
  in.routing_check = check.to_string();
  in.routing_check_ok = check.ok();
  in.check_problems = check.pairs.problems;
  in.check_problems.insert(in.check_problems.end(), bad_lids.begin(), bad_lids.end());
  const Status written = write_text_output(path, status::render_status_page(in));
  if (!written.ok()) std::fprintf(stderr, "ibsm check: %s\n", written.message().c_str());
  return written.ok();
}

// The command line, parsed.
struct CheckFlags {
  std::optional<std::string> topology, lfts_file, guid2lid_file, engine, sl_file, sl2vl_file, status_page;
  std::optional<int64_t> stride;
  std::vector<std::pair<Lid, Lid>> traces;
};

// Reads the flags into `f`; an exit status when the command ends here
// (--help, bad usage), nullopt to go on.
std::optional<int> parse_check_flags(int argc, char** argv, CheckFlags& f) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kCheckUsage, stdout);
    return 0;
  }
  f.topology = args.value("--topology", "-t");
  f.lfts_file = args.value("--lfts");
  f.guid2lid_file = args.value("--guid2lid");
  f.engine = args.value("--engine");
  f.sl_file = args.value("--sl");
  f.sl2vl_file = args.value("--sl2vl");
  f.stride = args.integer("--stride", 1, 1 << 20);
  f.status_page = args.value("--status-page");
  while (auto t = args.value("--trace")) {
    auto pair = parse_lid_pair(*t);
    if (pair) f.traces.push_back(*pair);
    else std::fprintf(stderr, "ibsm check: --trace %s: expected SLID:DLID (unicast lids)\n", t->c_str());
    if (!pair) return 2;
  }
  std::vector<std::string> errors = args.errors();
  for (const auto& r : args.positionals()) errors.push_back("unexpected argument '" + r + "'");
  if (!f.topology) errors.push_back("--topology is required");
  if (!f.lfts_file) errors.push_back("--lfts is required");
  if (f.sl2vl_file && !f.sl_file) errors.push_back("--sl2vl needs --sl (the SL of every path)");
  if (f.engine) {
    routing::EngineRegistry registry;
    if (!routing::register_builtin_engines(registry).ok() || !registry.contains(*f.engine)) {
      std::string known;
      for (const auto& name : registry.names()) known += (known.empty() ? "" : ", ") + name;
      errors.push_back("--engine " + *f.engine + ": no such engine (" + known + ")");
    }
  }
  if (errors.empty()) return std::nullopt;
  for (const auto& e : errors) std::fprintf(stderr, "ibsm check: %s\n", e.c_str());
  std::fputs(kCheckUsage, stderr);
  return 2;
}

// A file read and parsed by `parse(stream, name)`; nullopt (said on
// standard error) when either fails.
template <typename Parse>
auto read_parsed(const std::string& path, Parse parse) -> std::optional<std::decay_t<decltype(*parse(
                                                             std::declval<std::istream&>(), path))>> {
  auto text = read_text_file(path);
  if (!text.ok()) {
    std::fprintf(stderr, "ibsm check: %s\n", text.status().message().c_str());
    return std::nullopt;
  }
  std::istringstream in(*text);
  auto parsed = parse(in, path);
  if (!parsed.ok()) {
    std::fprintf(stderr, "ibsm check: %s\n", parsed.status().message().c_str());
    return std::nullopt;
  }
  return std::move(*parsed);
}

// The topology, with the LIDs of --guid2lid over its own.
std::optional<Fabric> load_topology(const CheckFlags& f) {
  auto fabric = load_netfile(*f.topology);
  if (!fabric.ok()) {
    std::fprintf(stderr, "ibsm check: %s\n", fabric.status().message().c_str());
    return std::nullopt;
  }
  if (f.guid2lid_file) {
    auto lids = read_parsed(*f.guid2lid_file, [](std::istream& in, const std::string& name) {
      return parse_guid2lid(in, name);
    });
    if (!lids) return std::nullopt;
    for (const auto& w : lids->warnings) std::fprintf(stderr, "ibsm check: %s\n", w.c_str());
    apply_guid2lid(*fabric, lids->entries);
  }
  return std::move(*fabric);
}

// The tables by NodeIndex; a switch the dump does not list forwards nothing
// (counted in `missing`).
std::optional<std::vector<std::vector<uint8_t>>> load_lfts(const CheckFlags& f, const Fabric& fabric,
                                                           size_t& missing) {
  auto dump = read_parsed(*f.lfts_file, [](std::istream& in, const std::string& name) {
    return parse_lft_dump(in, name);
  });
  if (!dump) return std::nullopt;
  std::vector<std::vector<uint8_t>> lfts(fabric.node_count());
  for (uint32_t i = 0; i < fabric.node_count(); ++i) {
    const Node& n = fabric.node(NodeIndex{i});
    if (!n.is_switch()) continue;
    if (const LftDumpSwitch* sw = dump->find(n.node_guid)) {
      lfts[i] = sw->table();
    } else {
      ++missing;
      std::fprintf(stderr, "ibsm check: switch %s ('%s') has no table in %s\n",
                   fmt::format("{}", n.node_guid).c_str(), n.name.c_str(), f.lfts_file->c_str());
    }
  }
  for (const auto& sw : dump->switches)
    if (!fabric.find_by_node_guid(sw.node_guid))
      std::fprintf(stderr, "ibsm check: %s:%zu: switch %s is not in %s\n", f.lfts_file->c_str(), sw.line,
                   fmt::format("{}", sw.node_guid).c_str(), f.topology->c_str());
  return lfts;
}

// --sl2vl's tables on the topology's nodes; nullopt (said) when the file
// is bad or names a port the topology does not have.
std::optional<std::vector<routing::Sl2VlTable>> load_sl2vl(const CheckFlags& f, const Fabric& fabric) {
  auto parsed = read_parsed(*f.sl2vl_file, [](std::istream& in, const std::string& name) {
    return parse_sl2vl_dump(in, name);
  });
  if (!parsed) return std::nullopt;
  std::vector<routing::Sl2VlTable> tables;
  for (const Sl2VlDumpEntry& e : parsed->tables) {
    const auto node = fabric.find_by_node_guid(e.node_guid);
    if (!node || e.in_port > fabric.node(*node).num_ports || e.out_port > fabric.node(*node).num_ports) {
      std::fprintf(stderr, "ibsm check: %s:%zu: %s port %u or %u is not in %s\n", f.sl2vl_file->c_str(), e.line,
                   fmt::format("{}", e.node_guid).c_str(), e.in_port, e.out_port, f.topology->c_str());
      return std::nullopt;
    }
    tables.push_back({*node, e.in_port, e.out_port, e.vl_of_sl});
  }
  return tables;
}

// --trace: the switches each pair's packet crosses. False (said) when a
// source LID has no port.
bool print_traces(const CheckFlags& f, const Fabric& fabric, const std::vector<std::vector<uint8_t>>& lfts) {
  for (const auto& [slid, dlid] : f.traces) {
    routing::RouteTracer tracer(fabric, lfts);
    const std::optional<PortRef> source = port_with_lid(fabric, slid);
    if (!source) {
      std::fprintf(stderr, "ibsm check: --trace: no port has lid %u\n", slid.value);
      return false;
    }
    routing::Trace t = tracer.trace(*source, dlid);
    std::printf("trace %u -> %u: %s%s%s\n", slid.value, dlid.value, routing::trace_outcome_name(t.outcome),
                t.reason.empty() ? "" : ": ", t.reason.c_str());
    for (const auto& hop : t.hops)
      std::printf("  %s in %u out %u\n", fmt::format("{}", fabric.node(hop.node).node_guid).c_str(), hop.in_port,
                  hop.out_port);
  }
  return true;
}

// The checker's options: the stride, the engine, and the VLs the --sl and
// --sl2vl files put the paths on.
routing::RouteCheckOptions check_options(const CheckFlags& f, const Fabric& fabric, const std::optional<PathSlDump>& sls,
                                         const std::optional<std::vector<routing::Sl2VlTable>>& sl2vl) {
  routing::RouteCheckOptions options;
  if (f.stride) options.pairs.source_stride = static_cast<uint32_t>(*f.stride);
  if (f.engine) options.engine = *f.engine;
  if (sls && sl2vl) {
    // The VL changes at every hop as its port pair's table says (IBA 7.6.6).
    options.vls.path_sl = [&](PortRef source, Lid dlid) {
      return sls->sl(fabric.node(source.node).port(source.port).base_lid, dlid);
    };
    options.vls.sl2vl = routing::sl2vl_lookup(fabric, *sl2vl, 0);
  } else if (sls) {
    // SL i on VL i: no SL2VL tables given.
    options.vls.path_vl = [&](PortRef source, Lid dlid) {
      return sls->sl(fabric.node(source.node).port(source.port).base_lid, dlid);
    };
  }
  return options;
}

void print_check(const CheckFlags& f, const Fabric& fabric, size_t missing, const routing::RouteCheck& check,
                 const std::optional<PathSlDump>& sls, const std::optional<std::vector<routing::Sl2VlTable>>& sl2vl,
                 const std::vector<std::string>& bad_lids) {
  const routing::CheckSummary& s = check.pairs;
  std::printf("%zu switches (%zu without a table), %zu CAs\n", fabric.switch_count(), missing, fabric.ca_count());
  std::printf("%s\n", s.to_string().c_str());
  for (const auto& p : s.problems) std::printf("  %s\n", p.c_str());
  if (sls) std::printf("sls: %zu paths off sl 0 in %s\n", sls->sls.size(), f.sl_file->c_str());
  if (sl2vl) std::printf("sl2vl: %zu tables in %s\n", sl2vl->size(), f.sl2vl_file->c_str());
  if (check.cdg) {
    std::printf("cdg: %s\n", check.cdg->to_string().c_str());
  } else {
    std::printf("cdg: not checked: %s\n", check.cdg_error.c_str());
  }
  if (check.has_cycle()) {
    std::printf(check.deadlock_free_promised ? "cdg: %s promises no cycle (or its sls do): these tables can deadlock\n"
                                             : "cdg: a cycle is allowed for %s (it promises no deadlock freedom)\n",
                check.engine.empty() ? "an unnamed engine" : check.engine.c_str());
  }
  if (bad_lids.empty()) {
    std::printf("lids: every port has its own\n");
  } else {
    std::printf("lids: %zu problems\n", bad_lids.size());
    for (size_t i = 0; i < bad_lids.size() && i < 10; ++i) std::printf("  %s\n", bad_lids[i].c_str());
  }
  std::printf("%s\n", check.to_string().c_str());
}

}  // namespace

int cmd_check(int argc, char** argv) {
  CheckFlags f;
  if (auto done = parse_check_flags(argc, argv, f)) return *done;
  auto fabric = load_topology(f);
  if (!fabric) return 1;
  size_t missing = 0;
  auto lfts = load_lfts(f, *fabric, missing);
  if (!lfts) return 1;
  std::vector<std::string> bad_lids = lid_problems(*fabric);
  std::optional<PathSlDump> sls;
  if (f.sl_file) {
    sls = read_parsed(*f.sl_file, [](std::istream& in, const std::string& name) { return parse_path_sl_dump(in, name); });
    if (!sls) return 1;
  }
  std::optional<std::vector<routing::Sl2VlTable>> sl2vl;
  if (f.sl2vl_file) {
    sl2vl = load_sl2vl(f, *fabric);
    if (!sl2vl) return 1;
  }
  if (!print_traces(f, *fabric, *lfts)) return 1;
  routing::RouteCheck check = routing::check_routes(*fabric, *lfts, check_options(f, *fabric, sls, sl2vl));
  // SLs are there to break the cycles: with them, a cycle is a failure.
  if (sls) check.deadlock_free_promised = true;
  print_check(f, *fabric, missing, check, sls, sl2vl, bad_lids);
  if (f.status_page && !write_status_page(*f.status_page, std::move(*fabric), std::move(*lfts), check, bad_lids))
    return 1;
  return check.ok() && check.pairs.pairs > 0 && bad_lids.empty() ? 0 : 1;
}

}  // namespace ibsm::tools
