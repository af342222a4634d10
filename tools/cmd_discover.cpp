// ibsm discover: one-shot directed-route discovery from the local port (over
// libibumad) or of an in-process SimFabric (--sim NETFILE), printed as
// ibnetdiscover-compatible text (default), JSON or Graphviz dot.
#include <cstdio>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "mad/dispatcher.h"
#include "mad/sim/sim_fabric.h"
#include "mad/umad/umad_transport.h"
#include "sm/discovery/discovery.h"
#include "sm/fabric/netfile_writer.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/os/files.h"
#include "tools/os/steady_clock.h"
#include "tools/os/stderr_log.h"
#include "tools/sim_attach.h"

namespace ibsm::tools {
namespace {

constexpr const char* kDiscoverUsage =
    "usage: ibsm discover [options]\n"
    "\n"
    "Discovers the fabric with directed-route SMPs from the local port and prints it.\n"
    "\n"
    "options:\n"
    "  --sim NETFILE        discover an in-process simulated fabric loaded from NETFILE\n"
    "                       (ibsim or ibnetdiscover format) instead of the local port\n"
    "  --sim-node NAME      with --sim: the node the local port is on (default: the\n"
    "                       first node of the file, as ibsim attaches clients)\n"
    "  -g, --port-guid GUID the local port to use (default: the first port whose link is up)\n"
    "  --json               print JSON instead of ibnetdiscover text\n"
    "  --dot                print a Graphviz graph instead of ibnetdiscover text\n"
    "  -o, --output FILE    write to FILE instead of standard output\n"
    "  --window N           SMPs in flight at once (default 16)\n"
    "  --timeout MS         time to wait for each SMP answer (default 200)\n"
    "  --retries N          further attempts after a timeout (default 3)\n"
    "  --switch-info        also read SwitchInfo of every switch\n"
    "  --stats              print SMP counts and time to standard error\n"
    "  -v, --verbose        log every problem and step (twice: debug)\n"
    "  -h, --help           this text\n"
    "\n"
    "A node that does not answer is reported on standard error with its DR path;\n"
    "the rest of the fabric is still discovered and printed. Exit status: 0 when\n"
    "the fabric was discovered, 1 when the local port could not be used, 2 for\n"
    "bad usage.\n";

struct Output {
  enum class Format { ibnetdiscover, json, dot } format = Format::ibnetdiscover;
  std::string path;
};

std::string render(const Fabric& fabric, Output::Format format) {
  std::ostringstream out;
  switch (format) {
    case Output::Format::ibnetdiscover: write_ibnetdiscover(fabric, out); break;
    case Output::Format::json: write_json(fabric, out); break;
    case Output::Format::dot: write_dot(fabric, out); break;
  }
  return out.str();
}

}  // namespace

int cmd_discover(int argc, char** argv) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kDiscoverUsage, stdout);
    return 0;
  }
  auto sim_file = args.value("--sim");
  auto sim_node = args.value("--sim-node");
  auto port_guid = args.guid("--port-guid", "-g");
  bool json = args.flag("--json");
  bool dot = args.flag("--dot");
  auto out_path = args.value("--output", "-o");
  DispatcherOptions dopts;
  if (auto w = args.integer("--window", 1, 1024)) dopts.window = static_cast<int>(*w);
  if (auto t = args.integer("--timeout", 1, 60000)) dopts.timeout = *t * 1000;
  if (auto r = args.integer("--retries", 0, 100)) dopts.retries = static_cast<int>(*r);
  DiscoveryOptions disc_opts;
  disc_opts.query_switch_info = args.flag("--switch-info");
  bool stats = args.flag("--stats");
  int verbose = 0;
  while (args.flag("--verbose", "-v")) ++verbose;
  auto rest = args.positionals();
  if (!rest.empty()) args.positionals();  // already reported as errors below if options
  if (json && dot) {
    std::fprintf(stderr, "ibsm discover: --json and --dot exclude each other\n");
    return 2;
  }
  if (!args.ok() || !rest.empty()) {
    for (const auto& e : args.errors()) std::fprintf(stderr, "ibsm discover: %s\n", e.c_str());
    if (!rest.empty()) std::fprintf(stderr, "ibsm discover: unexpected argument '%s'\n", rest.front().c_str());
    std::fputs(kDiscoverUsage, stderr);
    return 2;
  }
  if (sim_node && !sim_file) {
    std::fprintf(stderr, "ibsm discover: --sim-node needs --sim\n");
    return 2;
  }

  Output out;
  out.format = json ? Output::Format::json : dot ? Output::Format::dot : Output::Format::ibnetdiscover;
  if (out_path) out.path = *out_path;

  StderrLogSink log(verbose >= 2 ? LogLevel::debug : verbose ? LogLevel::info : LogLevel::warn);
  SteadyClock wall;
  Micros started = wall.now();
  DiscoveryResult result;

  if (sim_file) {
    auto topo = load_netfile(*sim_file);
    if (!topo.ok()) {
      std::fprintf(stderr, "ibsm discover: %s\n", topo.status().message().c_str());
      return 1;
    }
    auto at = sim_attach_point(*topo, sim_node ? *sim_node : std::string());
    if (!at.ok()) {
      std::fprintf(stderr, "ibsm discover: %s\n", at.status().message().c_str());
      return 1;
    }
    SimFabric sim(std::move(*topo), {}, log);
    MadDispatcher dispatcher(sim.attach(at->node, at->port), sim.clock(), dopts, log);
    result = discover_fabric(dispatcher, disc_opts, log);
  } else {
    UmadOptions uopts;
    if (port_guid) uopts.port_guid = Guid{*port_guid};
    auto transport = UmadTransport::open(uopts);
    if (!transport.ok()) {
      std::fprintf(stderr, "ibsm discover: %s\n", transport.status().message().c_str());
      return 1;
    }
    MadDispatcher dispatcher(**transport, wall, dopts, log);
    result = discover_fabric(dispatcher, disc_opts, log);
  }
  Micros elapsed = wall.now() - started;

  if (!result.local_node.valid()) {
    std::fprintf(stderr, "ibsm discover: the local node did not answer NodeInfo\n");
    return 1;
  }
  for (const auto& p : result.problems) {
    std::string where = p.via_node.is_zero() ? std::string("local node")
                                             : fmt::format("port {} of {}", p.via_port, p.via_node);
    std::fprintf(stderr, "ibsm discover: warning: dr path %s (%s): %s\n", p.path.to_string().c_str(),
                 where.c_str(), p.what.c_str());
  }
  Status written = write_text_output(out.path, render(result.fabric, out.format));
  if (!written.ok()) {
    std::fprintf(stderr, "ibsm discover: %s\n", written.message().c_str());
    return 1;
  }
  if (stats) {
    std::fprintf(stderr,
                 "ibsm discover: %zu nodes (%zu switches, %zu CAs), %zu links, %llu SMPs sent, %llu timed out, "
                 "%zu problems, %.3f s\n",
                 result.fabric.node_count(), result.fabric.switch_count(), result.fabric.ca_count(),
                 result.fabric.links().size(), static_cast<unsigned long long>(result.smps_sent),
                 static_cast<unsigned long long>(result.smps_timed_out), result.problems.size(),
                 static_cast<double>(elapsed) / 1e6);
  }
  return 0;
}

}  // namespace ibsm::tools
