// ibsm run: the subnet manager. Brings the fabric up (discover, LIDs, routes,
// switch and port programming, activation), then as a daemon answers SMInfo,
// light-sweeps every sweep_interval seconds and heavy-sweeps on change, trap,
// or SIGHUP, until SIGTERM. With -o it configures once and exits.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "mad/dispatcher.h"
#include "mad/sim/sim_fabric.h"
#include "mad/umad/umad_transport.h"
#include "mad/wire/constants.h"
#include "sa/agent.h"
#include "sa/snapshot.h"
#include "sm/config/sm_config.h"
#include "sm/state/sm_agent.h"
#include "sm/sweep/heavy_sweep.h"
#include "sm/sweep/light_sweep.h"
#include "sm/sweep/routing_step.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/os/engine_files.h"
#include "tools/os/file_log.h"
#include "tools/os/files.h"
#include "tools/os/sm_cache.h"
#include "tools/os/steady_clock.h"
#include "tools/sim_attach.h"
#include "tools/sm_dumps.h"

namespace ibsm::tools {
namespace {

constexpr const char* kUsage =
    "usage: ibsm run [options]\n"
    "\n"
    "Runs the subnet manager on the local port: discovers the fabric, assigns LIDs,\n"
    "routes, programs every switch and port, and brings the ports to ACTIVE. As a\n"
    "daemon it then answers SMInfo, sweeps every sweep_interval seconds and\n"
    "reconfigures on change; SIGHUP forces a heavy sweep, SIGTERM stops it.\n"
    "\n"
    "options (OpenSM's flags where they apply; the config keys in brackets):\n"
    "  -o, --once               configure once and exit: 0 on SUBNET UP, 1 otherwise\n"
    "  -F, --config FILE        read settings from FILE (OpenSM's key names)\n"
    "  -c, --create-config FILE write the effective settings to FILE and exit\n"
    "  -g, --guid GUID          the local port to bind [guid]\n"
    "  -l, --lmc N              LID mask control 0-7 [lmc]\n"
    "  -r, --reassign_lids      assign every LID afresh [reassign_lids]\n"
    "  -s, --sweep N            seconds between light sweeps, 0: none [sweep_interval]\n"
    "  -p, --priority N         SM priority 0-15 [sm_priority]\n"
    "  -R, --routing_engine L   routing engines to try, comma separated: minhop, updn,\n"
    "                           dnup, ftree, sssp, file; then minhop unless no_fallback\n"
    "                           is listed [routing_engine]\n"
    "  -a, --root_guid_file F   updn's root switches, one node GUID per line [root_guid_file]\n"
    "  -U, --lfts_file F        the file engine's tables: dump_lfts output or\n"
    "                           opensm-lfts.dump [lfts_file]\n"
    "  -f, --log_file FILE      log to FILE instead of standard error [log_file]\n"
    "  -t, --timeout MS         SMP answer timeout [transaction_timeout]\n"
    "      --retries N          further attempts after a timeout [transaction_retries]\n"
    "      --maxsmps N          SMPs in flight at once [max_wire_smps]\n"
    "      --cache-dir DIR      guid2lid and switch-table caches [cache_dir]\n"
    "      --dump-dir DIR       write OpenSM-format dumps after each sweep [dump_files_dir]\n"
    "      --sim NETFILE        run on an in-process simulated fabric (needs -o)\n"
    "      --sim-node NAME      with --sim: the node the SM runs on (default: the first)\n"
    "      --sweeps N           with --sim: heavy sweeps to run (default 1)\n"
    "      --sim-lft-cap N      with --sim: the switches' LinearFDBCap (default 30720, as\n"
    "                           ibsim's -L; fabrics beyond 30k LIDs need up to 49152)\n"
    "  -v, --verbose            more log (twice: debug)\n"
    "  -h, --help               this text\n";

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_resweep = 0;

void on_signal(int sig) {
  if (sig == SIGHUP) {
    g_resweep = 1;
  } else {
    g_stop = 1;
  }
}

void install_signals() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a signal wakes the poll
  sigaction(SIGHUP, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

// Flags that map onto config keys: flag, alias, key, takes a value.
struct FlagKey {
  const char* flag;
  const char* alias;
  const char* key;
  bool has_value;
};
constexpr FlagKey kFlagKeys[] = {
    {"--guid", "-g", "guid", true},
    {"--lmc", "-l", "lmc", true},
    {"--reassign_lids", "-r", "reassign_lids", false},
    {"--sweep", "-s", "sweep_interval", true},
    {"--priority", "-p", "sm_priority", true},
    {"--routing_engine", "-R", "routing_engine", true},
    {"--root_guid_file", "-a", "root_guid_file", true},
    {"--lfts_file", "-U", "lfts_file", true},
    {"--log_file", "-f", "log_file", true},
    {"--timeout", "-t", "transaction_timeout", true},
    {"--retries", "", "transaction_retries", true},
    {"--maxsmps", "", "max_wire_smps", true},
    {"--cache-dir", "", "cache_dir", true},
    {"--dump-dir", "", "dump_files_dir", true},
};

LogLevel level_of(uint32_t n) { return static_cast<LogLevel>(n > 4 ? 4 : n); }

SweepConfig sweep_config(const SmConfig& c) {
  SweepConfig s;
  s.lids.lmc = c.lmc;
  s.lids.lmc_esp0 = c.lmc_esp0;
  s.lids.reassign_all = c.reassign_lids;
  s.subnet.subnet_prefix = c.subnet_prefix;
  s.subnet.subnet_timeout = c.subnet_timeout;
  s.subnet.max_op_vls = c.max_op_vls;
  s.subnet.head_of_queue_life = c.head_of_queue_lifetime;
  s.switch_life_time = c.packet_life_time;
  return s;
}

DispatcherOptions dispatcher_options(const SmConfig& c) {
  DispatcherOptions d;
  d.window = static_cast<int>(c.max_wire_smps);
  d.timeout = Micros{c.transaction_timeout} * 1000;
  d.retries = static_cast<int>(c.transaction_retries);
  return d;
}

void print_summary(const SweepReport& r, Micros elapsed) {
  const Fabric& f = r.configured;
  std::printf("SUBNET %s: %zu nodes (%zu switches, %zu CAs), %zu links, lids %u..%u, sm lid %u, routing %s\n",
              r.subnet_up ? "UP" : "NOT UP", f.node_count(), f.switch_count(), f.ca_count(), f.links().size(),
              1u, static_cast<unsigned>(r.lids.top.value), static_cast<unsigned>(r.sm_lid.value),
              r.routes.engine.c_str());
  std::printf("  %llu mads in %.3f s: %llu PortInfo sets, %llu SwitchInfo sets, %llu LFT blocks, %llu P_Key sets, "
              "%llu ports armed, %llu activated\n",
              static_cast<unsigned long long>(r.total_mads()), static_cast<double>(elapsed) / 1e6,
              static_cast<unsigned long long>(r.port_info_sets), static_cast<unsigned long long>(r.switch_info_sets),
              static_cast<unsigned long long>(r.lft_blocks_sent), static_cast<unsigned long long>(r.pkey_sets),
              static_cast<unsigned long long>(r.ports_armed), static_cast<unsigned long long>(r.ports_activated));
  if (!r.routes.check.empty()) std::printf("  %s\n", r.routes.check.c_str());
  for (const auto& p : r.phases)
    std::printf("  phase %-16s %9.3f ms %8llu mads\n", p.name.c_str(), static_cast<double>(p.elapsed) / 1000.0,
                static_cast<unsigned long long>(p.mads));
  for (const auto& p : r.problems) std::printf("  problem: %s\n", p.c_str());
  std::fflush(stdout);
}

// The SA answers from the subnet this sweep left programmed: the snapshot is
// swapped only now, after the switches carry the new tables, so between
// routing and programming the old paths are still the ones served.
void publish_to_sa(sa::SaAgent& sa_agent, const SweepReport& report, const SweepConfig& sc, const SmConfig& config,
                   const MadDispatcher& d, const Clock& clock, LogSink& log) {
  static uint64_t generation = 0;
  sa::SaSnapshotOptions o;
  o.subnet = sc.subnet;
  o.switch_life_time = sc.switch_life_time;
  o.sm_key = config.sm_key;
  o.sm_priority = static_cast<uint8_t>(config.sm_priority);
  o.sm_state = wire::sm_state::master;
  o.sm_act_count = static_cast<uint32_t>(d.stats().sent);
  o.generation = ++generation;
  auto snapshot = sa::build_sa_snapshot(report, o);
  if (!snapshot.ok()) {
    ibsm::log(log, LogLevel::error, Subsystem::sa, "SA keeps the previous subnet: {}", snapshot.status().message());
    return;
  }
  sa_agent.set_snapshot(std::make_shared<const sa::SaSnapshot>(std::move(*snapshot)), clock.now());
}

// One heavy sweep with its logging, cache and dumps. Returns subnet up; the
// report stays in `last` for the light sweeps that follow.
bool sweep_once(MadDispatcher& d, const Clock& clock, SweepState& state, const SmConfig& config,
                const routing::EngineSettings& engines, LogSink& log, SmAgent& agent, bool print,
                std::optional<SweepReport>& last, sa::SaAgent* sa_agent = nullptr) {
  last.reset();
  SweepConfig sc = sweep_config(config);
  auto route = make_route_function(config.routing_engine, log, engines);
  if (!route.ok()) {
    ibsm::log(log, LogLevel::error, Subsystem::routing, "{}", route.status().message());
    if (print) std::printf("SUBNET NOT UP: %s\n", route.status().message().c_str());
    return false;
  }
  sc.route = std::move(*route);
  Micros t0 = clock.now();
  agent.set_state(wire::sm_state::discovering);
  auto report = heavy_sweep(d, clock, state, sc, log);
  Micros elapsed = clock.now() - t0;
  if (!report.ok()) {
    ibsm::log(log, LogLevel::error, Subsystem::sweep, "heavy sweep failed: {}", report.status().message());
    if (print) std::printf("SUBNET NOT UP: %s\n", report.status().message().c_str());
    return false;
  }
  agent.set_state(wire::sm_state::master);
  if (report->subnet_up) {
    ibsm::log(log, LogLevel::info, Subsystem::sweep, "SUBNET UP: {} nodes, {} mads in {:.3f} s", report->configured.node_count(),
              report->total_mads(), static_cast<double>(elapsed) / 1e6);
  } else {
    ibsm::log(log, LogLevel::error, Subsystem::sweep, "subnet not up: {} problems", report->problems.size());
  }
  Status saved = save_sm_cache(config.cache_dir, state);
  if (!saved.ok()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", saved.message());
  if (!config.dump_files_dir.empty()) {
    Status dumped = write_sm_dumps(config.dump_files_dir, *report);
    if (!dumped.ok()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", dumped.message());
  }
  if (print) print_summary(*report, elapsed);
  if (sa_agent) publish_to_sa(*sa_agent, *report, sc, config, d, clock, log);
  bool up = report->subnet_up;
  last = std::move(*report);
  return up;
}

}  // namespace

int cmd_run(int argc, char** argv) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  SmConfig config;
  std::vector<std::string> errors;
  if (auto file = args.value("--config", "-F")) {
    auto text = read_text_file(*file);
    if (!text.ok()) {
      std::fprintf(stderr, "ibsm run: %s\n", text.status().message().c_str());
      return 2;
    }
    std::istringstream in(*text);
    Status s = read_config(in, *file, config);
    if (!s.ok()) {
      std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
      return 2;
    }
  }
  for (const auto& fk : kFlagKeys) {
    if (fk.has_value) {
      if (auto v = args.value(fk.flag, fk.alias)) {
        Status s = set_config_value(config, fk.key, *v);
        if (!s.ok()) errors.push_back(std::string(fk.flag) + ": " + s.message());
      }
    } else if (args.flag(fk.flag, fk.alias)) {
      Status s = set_config_value(config, fk.key, "TRUE");
      if (!s.ok()) errors.push_back(s.message());
    }
  }
  bool once = args.flag("--once", "-o");
  auto create_config = args.value("--create-config", "-c");
  auto sim_file = args.value("--sim");
  auto sim_node = args.value("--sim-node");
  auto sweeps = args.integer("--sweeps", 1, 1000);
  auto lft_cap = args.integer("--sim-lft-cap", 1, 49152);
  while (args.flag("--verbose", "-v")) config.log_level = std::min<uint32_t>(config.log_level + 1, 4);
  auto rest = args.positionals();
  for (const auto& e : args.errors()) errors.push_back(e);
  for (const auto& r : rest) errors.push_back("unexpected argument '" + r + "'");
  if (sim_file && !once) errors.push_back("--sim needs -o (virtual time has no daemon)");
  if (!sim_file && (sim_node || sweeps || lft_cap)) errors.push_back("--sim-node, --sweeps and --sim-lft-cap need --sim");
  if (!errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "ibsm run: %s\n", e.c_str());
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (create_config) {
    std::ostringstream out;
    write_config(config, out);
    Status s = write_text_output(*create_config, out.str());
    if (!s.ok()) std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
    return s.ok() ? 0 : 1;
  }

  auto engines = load_engine_files(config.root_guid_file, config.lfts_file);
  if (!engines.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", engines.status().message().c_str());
    return 2;
  }
  FileLogSink log(level_of(config.log_level));
  if (Status s = log.open(config.log_file); !s.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
    return 1;
  }
  SweepState state;
  std::vector<std::string> warnings;
  if (Status s = load_sm_cache(config.cache_dir, state, warnings); !s.ok())
    ibsm::log(log, LogLevel::warn, Subsystem::tools, "{}", s.message());
  for (const auto& w : warnings) ibsm::log(log, LogLevel::warn, Subsystem::tools, "{}", w);
  if (!config.honor_guid2lid_file) state.guid2lid.clear();

  if (sim_file) {
    auto topo = load_netfile(*sim_file);
    if (!topo.ok()) {
      std::fprintf(stderr, "ibsm run: %s\n", topo.status().message().c_str());
      return 1;
    }
    auto at = sim_attach_point(*topo, sim_node ? *sim_node : std::string());
    if (!at.ok()) {
      std::fprintf(stderr, "ibsm run: %s\n", at.status().message().c_str());
      return 1;
    }
    SimOptions sim_options;
    if (lft_cap) sim_options.linear_fdb_cap = static_cast<uint16_t>(*lft_cap);
    SimFabric sim(std::move(*topo), sim_options, log);
    SimPort& port = sim.attach(at->node, at->port);
    port.set_is_sm(true);
    MadDispatcher d(port, sim.clock(), dispatcher_options(config), log);
    SmAgent agent(d, {port.local_port().port_guid, config.sm_key, config.sm_priority}, log);
    bool up = false;
    std::optional<SweepReport> last;
    for (int64_t i = 0; i < (sweeps ? *sweeps : 1); ++i)
      up = sweep_once(d, sim.clock(), state, config, *engines, log, agent, true, last);
    return up ? 0 : 1;
  }

  UmadOptions uopts;
  if (!config.port_guid.is_zero()) uopts.port_guid = config.port_guid;
  uopts.serve_classes = {wire::mgmt_class::subn_lid_routed, wire::mgmt_class::subn_directed_route,
                         wire::mgmt_class::subn_adm};
  uopts.set_issm = true;
  auto transport = UmadTransport::open(uopts);
  if (!transport.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", transport.status().message().c_str());
    return 1;
  }
  SteadyClock clock;
  MadDispatcher d(**transport, clock, dispatcher_options(config), log);
  SmAgent agent(d, {(*transport)->local_port().port_guid, config.sm_key, config.sm_priority}, log);
  // The SA on the same port: its MADs go to it whatever the SM is doing, so
  // queries are answered (from the last snapshot) during sweeps too.
  sa::SaAgentOptions sa_options;
  sa_options.sm_key = config.sm_key;
  sa::SaAgent sa_agent([&d](const MadPacket& p) { (void)d.send_now(p); }, sa_options, log);
  d.set_class_handler(wire::mgmt_class::subn_adm, [&](const MadPacket& p) { sa_agent.handle(p, clock.now()); });
  agent.set_trap_listener([&](const wire::Notice& n) { sa_agent.publish(n, clock.now()); });
  install_signals();
  std::optional<SweepReport> last;
  bool up = sweep_once(d, clock, state, config, *engines, log, agent, once, last, &sa_agent);
  if (once) return up ? 0 : 1;

  // The daemon: answer requests between sweeps; every sweep_interval a light
  // sweep, and a heavy one when it finds a change, on a trap, or on SIGHUP;
  // stop on SIGTERM.
  Micros next_sweep = clock.now() + Micros{config.sweep_interval} * 1'000'000;
  while (!g_stop) {
    d.poll();
    sa_agent.poll(clock.now());
    // A subnet that did not come up is retried every second, whatever the interval.
    bool due = (config.sweep_interval > 0 || !up) && clock.now() >= next_sweep;
    bool heavy = g_resweep || agent.take_sweep_request();
    if (!heavy && due) {
      if (up && last) {
        LightSweepResult light = light_sweep(d, *last, log);
        heavy = light.changed;
        if (!heavy) next_sweep = clock.now() + Micros{config.sweep_interval} * 1'000'000;
      } else {
        heavy = true;
      }
    }
    if (heavy) {
      if (g_resweep) ibsm::log(log, LogLevel::info, Subsystem::tools, "SIGHUP: heavy sweep");
      g_resweep = 0;
      up = sweep_once(d, clock, state, config, *engines, log, agent, false, last, &sa_agent);
      Micros interval = up && config.sweep_interval > 0 ? Micros{config.sweep_interval} * 1'000'000 : 1'000'000;
      next_sweep = clock.now() + interval;
      continue;
    }
    // With sweeping off (-s 0) and the subnet up, nothing is due but what
    // arrives: sleep until a MAD or the SA's next timer.
    const bool sweeps_due = config.sweep_interval > 0 || !up;
    Micros until = sweeps_due ? next_sweep : clock.now() + 1'000'000;
    if (auto sa_due = sa_agent.next_deadline()) until = std::min(until, *sa_due);
    Micros wait = until - clock.now();
    (*transport)->wait(std::clamp<Micros>(wait, 0, 1'000'000));
  }
  ibsm::log(log, LogLevel::info, Subsystem::tools, "stopping on signal");
  return 0;
}

}  // namespace ibsm::tools
