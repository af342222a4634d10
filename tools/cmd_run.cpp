// ibsm run: the subnet manager's executable. The SM itself is the core's
// SubnetManager (sm/manager); this file parses flags, reads the config, the
// cache and the engines' files (tools/os/run_inputs.h), hands the manager,
// wired once for both (tools/daemon/daemon_manager.h: cache, dumps, -o
// summaries), to libibumad or to an in-process SimFabric (virtual time),
// handles SIGHUP (tools/daemon/sighup_reload.h), SIGUSR1 (reopen the log)
// and SIGTERM, tells systemd when it is ready, serves `ibsm ctl`
// (tools/daemon/daemon_control.h), and prints. With -o it configures once
// and exits.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "mad/sim/sim_fabric.h"
#include "mad/umad/umad_transport.h"
#include "mad/wire/constants.h"
#include "sm/config/sm_config.h"
#include "sm/manager/subnet_manager.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/daemon/daemon_control.h"
#include "tools/daemon/daemon_manager.h"
#include "tools/daemon/run_status.h"
#include "tools/daemon/sighup_reload.h"
#include "tools/os/control_socket.h"
#include "tools/daemon_pages.h"
#include "tools/os/file_log.h"
#include "tools/os/files.h"
#include "tools/os/run_inputs.h"
#include "tools/os/sa_cache.h"
#include "tools/os/sm_cache_writer.h"
#include "tools/os/steady_clock.h"
#include "tools/os/systemd_notify.h"
#include "tools/sim_attach.h"

namespace ibsm::tools {
namespace {

constexpr const char* kRunUsage =
    "usage: ibsm run [options]\n"
    "\n"
    "Runs the subnet manager on the local port: discovers the fabric, assigns LIDs,\n"
    "routes, programs every switch and port, and brings the ports to ACTIVE. As a\n"
    "daemon it then serves SMInfo and the SA, sweeps every sweep_interval seconds\n"
    "and reconfigures on change. With other SMs on the subnet it is elected master\n"
    "by priority (then the lower port GUID), or goes STANDBY, polls the master and\n"
    "mirrors its SA, and takes over when the master stops answering. SIGHUP reloads\n"
    "the config and partitions files (keys that need a restart are reported and\n"
    "kept) and forces a heavy sweep, SIGUSR1 reopens the log file, SIGTERM stops it.\n"
    "`ibsm ctl` controls it through the Unix socket control_socket (root and\n"
    "control_group only).\n"
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
    "                           dnup, ftree, sssp, dfsssp, lash, dor, torus-2QoS,\n"
    "                           file; then minhop unless no_fallback is listed [routing_engine]\n"
    "  -a, --root_guid_file F   updn's root switches, one node GUID per line [root_guid_file]\n"
    "  -U, --lfts_file F        the file engine's tables: dump_lfts output or\n"
    "                           opensm-lfts.dump [lfts_file]\n"
    "      --torus_config F     torus-2QoS's torus-2QoS.conf [torus_config]\n"
    "  -P, --Pconfig FILE       partitions, OpenSM's partitions.conf (default\n"
    "                           /etc/opensm/partitions.conf; absent there: every port a\n"
    "                           full member of the Default partition) [partition_config_file]\n"
    "  -f, --log_file FILE      log to FILE instead of standard error [log_file]\n"
    "  -t, --timeout MS         SMP answer timeout [transaction_timeout]\n"
    "      --retries N          further attempts after a timeout [transaction_retries]\n"
    "      --maxsmps N          SMPs in flight at once [max_wire_smps]\n"
    "      --cache-dir DIR      guid2lid, switch-table and SA registration caches [cache_dir]\n"
    "      --dump-dir DIR       write OpenSM-format dumps after each sweep [dump_files_dir]\n"
    "      --control-socket P   the Unix socket ibsm ctl talks to, empty: none [control_socket]\n"
    "      --sim NETFILE        run on an in-process simulated fabric, in virtual time\n"
    "      --sim-time S         with --sim and no -o: run the daemon S virtual seconds\n"
    "                           (default 60), printing its state changes\n"
    "      --sim-node NAME      with --sim: the node the SM runs on (default: the first)\n"
    "      --sweeps N           with --sim -o: heavy sweeps to run (default 1)\n"
    "      --sim-lft-cap N      with --sim: the switches' LinearFDBCap (default 30720, as\n"
    "                           ibsim's -L; fabrics beyond 30k LIDs need up to 49152)\n"
    "  -v, --verbose            more log (twice: debug)\n"
    "  -h, --help               this text\n";

volatile std::sig_atomic_t g_stop = 0;
volatile std::sig_atomic_t g_resweep = 0;
volatile std::sig_atomic_t g_reopen_log = 0;

void on_signal(int sig) {
  if (sig == SIGHUP) {
    g_resweep = 1;
  } else if (sig == SIGUSR1) {
    g_reopen_log = 1;
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
  sigaction(SIGUSR1, &sa, nullptr);
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
    {"--torus_config", "", "torus_config", true},
    {"--Pconfig", "-P", "partition_config_file", true},
    {"--log_file", "-f", "log_file", true},
    {"--timeout", "-t", "transaction_timeout", true},
    {"--retries", "", "transaction_retries", true},
    {"--maxsmps", "", "max_wire_smps", true},
    {"--cache-dir", "", "cache_dir", true},
    {"--dump-dir", "", "dump_files_dir", true},
    {"--control-socket", "", "control_socket", true},
};

// The flags that set config keys (tools/os/run_inputs.h: FlagValues), taken
// from the command line once.
FlagValues take_flag_values(Args& args) {
  FlagValues v;
  for (const auto& fk : kFlagKeys) {
    if (fk.has_value) {
      if (auto value = args.value(fk.flag, fk.alias)) v.emplace_back(fk.key, *value);
    } else if (args.flag(fk.flag, fk.alias)) {
      v.emplace_back(fk.key, "TRUE");
    }
  }
  return v;
}

// -o: the first sweep settled it (tools/daemon/run_status.h).
bool once_done(const SubnetManager& sm) { return first_sweep_settled(sm); }

int once_result(const SubnetManager& sm) {
  const OnceVerdict v = once_verdict(sm);
  if (!v.line.empty()) std::printf("%s\n", v.line.c_str());
  return v.exit_status;
}

// Whether the leak checker runs at exit (the ASan builds of the tests):
// then -o frees what it made before it exits, so the checker sees it freed.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kLeakChecked = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kLeakChecked = true;
#else
constexpr bool kLeakChecked = false;
#endif
#else
constexpr bool kLeakChecked = false;
#endif

// -o's end, after its sweeps: the last cache save, handed to the writer's
// thread when the sweep ended, is waited for, and the process exits without
// tearing down the manager, the SimFabric and the rest: at the full LID
// space that is millions of small objects, 0.2-0.4 s of freeing where the
// kernel drops the pages at once (compilers end the same way). std::exit
// still flushes stdio and runs the atexit handlers and static destructors
// (umad2sim releases its ibsim client there); the log sinks write each line
// through. Builds with the leak checker tear down as before.
int end_once(std::unique_ptr<DaemonManager>& sm, SmCacheWriter& writer, LogSink& log) {
  const int result = once_result(sm->manager());
  if (kLeakChecked) sm.reset();  // beside the save
  writer.flush();
  for (const std::string& e : writer.take_errors()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", e);
  if (kLeakChecked) return result;
  std::fflush(nullptr);
  std::exit(result);
}

// What the loop does besides polling: on SIGHUP, on SIGUSR1, after each poll.
struct LoopHooks {
  std::function<void()> on_hup;
  std::function<void()> on_reopen_log;
  std::function<void()> after_poll;
};

// The loop of the daemon, on either transport: poll the manager, sleep on
// the port until its next deadline or a MAD. On SimFabric the sleep moves
// virtual time. Returns when `until` says so or a signal stops it.
template <typename Until>
void run_loop(SubnetManager& sm, Transport& port, const Clock& clock, Until until, const LoopHooks& hooks) {
  while (!g_stop) {
    if (g_resweep) {
      g_resweep = 0;
      hooks.on_hup();
    }
    if (g_reopen_log) {
      g_reopen_log = 0;
      if (hooks.on_reopen_log) hooks.on_reopen_log();
    }
    sm.poll(clock.now());
    if (hooks.after_poll) hooks.after_poll();
    if (until()) return;
    const Micros wait = sm.next_deadline() - clock.now();
    port.wait(std::clamp<Micros>(wait, 0, 1'000'000));
  }
}

// SIGUSR1 (logrotate): the log file opened again at its path.
void reopen_log(FileLogSink& log) {
  Status reopened = log.reopen();
  if (!reopened.ok()) {
    ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGUSR1: {}", reopened.message());
  } else {
    ibsm::log(log, LogLevel::info, Subsystem::tools, "SIGUSR1: log file reopened");
  }
}

// The command line, parsed.
struct RunFlags {
  ConfigSources sources;  // -F, the flags that set keys, -v: again at every SIGHUP
  bool once = false;
  std::optional<std::string> create_config, sim_file, sim_node;
  std::optional<int64_t> sweeps, sim_time, lft_cap;
};

// Reads the flags into `f` and the config they give into `config`; an exit
// status when the command ends here (--help, bad usage, a bad config
// file), nullopt to go on.
std::optional<int> parse_run_flags(int argc, char** argv, RunFlags& f, SmConfig& config) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kRunUsage, stdout);
    return 0;
  }
  std::vector<std::string> errors;
  f.sources.file = args.value("--config", "-F");
  f.sources.flags = take_flag_values(args);
  if (Status s = load_config(f.sources, config, errors); !s.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
    return 2;
  }
  f.once = args.flag("--once", "-o");
  f.create_config = args.value("--create-config", "-c");
  f.sim_file = args.value("--sim");
  f.sim_node = args.value("--sim-node");
  f.sweeps = args.integer("--sweeps", 1, 1000);
  f.sim_time = args.integer("--sim-time", 1, 86400 * 365);
  f.lft_cap = args.integer("--sim-lft-cap", 1, 49152);
  while (args.flag("--verbose", "-v")) ++f.sources.verbose;
  // -v raises the level over the file's, at start and at every reload.
  config.log_level = std::min<uint32_t>(config.log_level + f.sources.verbose, 4);
  auto rest = args.positionals();
  for (const auto& e : args.errors()) errors.push_back(e);
  for (const auto& r : rest) errors.push_back("unexpected argument '" + r + "'");
  if (!f.sim_file && (f.sim_node || f.sweeps || f.lft_cap || f.sim_time))
    errors.push_back("--sim-node, --sweeps, --sim-time and --sim-lft-cap need --sim");
  if (f.sweeps && !f.once) errors.push_back("--sweeps needs -o (the daemon sweeps as it goes)");
  if (f.sim_time && f.once) errors.push_back("--sim-time runs the daemon: it does not go with -o");
  if (errors.empty()) return std::nullopt;
  for (const auto& e : errors) std::fprintf(stderr, "ibsm run: %s\n", e.c_str());
  std::fputs(kRunUsage, stderr);
  return 2;
}

// -c: the effective settings written, and exit.
int create_config(const SmConfig& config, const std::string& path) {
  std::ostringstream out;
  write_config(config, out);
  Status s = write_text_output(path, out.str());
  if (!s.ok()) std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
  return s.ok() ? 0 : 1;
}

// The manager wired (tools/daemon/daemon_manager.h), or the error said.
std::unique_ptr<DaemonManager> wire_manager(Transport& port, const Clock& clock, const SmConfig& config,
                                            RunInputs inputs, SweepState state, FileLogSink& log,
                                            DaemonWiring wiring) {
  auto d = DaemonManager::create(port, clock, config, std::move(inputs), std::move(state), log, std::move(wiring));
  if (d.ok()) return std::move(*d);
  std::fprintf(stderr, "ibsm run: %s\n", d.status().message().c_str());
  return nullptr;
}

// --sim without -o: the daemon in virtual time, as long as --sim-time says
// (60 s by default), in far less real time, printing its state changes.
int run_sim_daemon(const RunFlags& f, SimFabric& sim, SimPort& port, DaemonManager& d, FileLogSink& log) {
  SubnetManager& m = d.manager();
  const Micros end = sim.now() + Micros{f.sim_time ? *f.sim_time : 60} * 1'000'000;
  m.set_state_listener([&](SmState, SmState to) {
    std::printf("%.6f s: %s\n", static_cast<double>(sim.now()) / 1e6, sm_state_name(to));
  });
  run_loop(m, port, sim.clock(), [&] { return sim.now() >= end; },
           {[&] { d.reload(f.sources); }, [&] { reopen_log(log); }, {}});
  const ManagerCounters& c = m.counters();
  std::printf("after %.3f virtual s: %s, %llu heavy sweeps, %llu light sweeps, %llu mads sent\n",
              static_cast<double>(sim.now()) / 1e6, sm_state_name(m.state()),
              static_cast<unsigned long long>(c.heavy_sweeps), static_cast<unsigned long long>(c.light_sweeps),
              static_cast<unsigned long long>(m.dispatcher().stats().sent));
  return m.subnet_up() ? 0 : 1;
}

// --sim: the manager wired as the daemon's, on an in-process SimFabric in
// virtual time. It reads the cache folder as the daemon does (the SM cache
// and the SA's registrations) and writes the same dumps (opensm.mcfdbs
// after joins and leaves too): nothing in the simulation asks for less.
int run_sim(const RunFlags& f, const SmConfig& config, RunInputs inputs, SweepState state, FileLogSink& log) {
  auto topo = load_netfile(*f.sim_file);
  if (!topo.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", topo.status().message().c_str());
    return 1;
  }
  auto at = sim_attach_point(*topo, f.sim_node ? *f.sim_node : std::string());
  if (!at.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", at.status().message().c_str());
    return 1;
  }
  SimOptions sim_options;
  if (f.lft_cap) sim_options.linear_fdb_cap = static_cast<uint16_t>(*f.lft_cap);
  SimFabric sim(std::move(*topo), sim_options, log);
  SimPort& port = sim.attach(at->node, at->port);
  port.set_is_sm(true);
  // The one difference from the daemon: -o saves the cache on the writer's
  // thread (end_once waits for it), the daemon in virtual time in line, so
  // its runs stay the same from one to the next.
  std::optional<SmCacheWriter> once_writer;
  if (f.once) once_writer.emplace(CacheSaves::once);
  int64_t sweeps_left = f.once ? (f.sweeps ? *f.sweeps : 1) : 0;
  DaemonManager* wired = nullptr;
  auto d = wire_manager(port, sim.clock(), config, std::move(inputs), std::move(state), log,
                        {.cache_writer = once_writer ? &*once_writer : nullptr,
                         .print_summaries = f.once,
                         .after_sweep = [&](const SweepReport&) {
                           if (f.once && --sweeps_left > 0) wired->manager().request_heavy_sweep();
                         }});
  if (!d) return 2;
  wired = d.get();
  if (!f.once) return run_sim_daemon(f, sim, port, *d, log);
  SubnetManager& m = d->manager();
  run_loop(m, port, sim.clock(), [&] { return sweeps_left <= 0 || (once_done(m) && !m.last_sweep()); },
           {[&] { d->reload(f.sources); }, [&] { reopen_log(log); }, {}});
  return end_once(d, *once_writer, log);
}

// The control socket (ibsm ctl): its own I/O thread; the commands run on
// the main thread, between polls (DaemonControl::serve). Null when
// control_socket is empty or it cannot be bound: the SM's job does not
// depend on it, so it runs on, and says so.
std::unique_ptr<ControlServer> start_control(const SmConfig& config, DaemonControl& control, UmadTransport& port,
                                             LogSink& log) {
  if (config.control_socket.empty()) return nullptr;
  control.publish(true);
  auto started = ControlServer::start({config.control_socket, config.control_group, std::chrono::milliseconds(5000), 16},
                                      [c = &control](const ControlWords& w) { return c->immediate(w); });
  if (!started.ok()) {
    ibsm::log(log, LogLevel::error, Subsystem::tools, "running without a control socket: {}", started.status().message());
    return nullptr;
  }
  port.set_wake_fd((*started)->wake_fd());
  ibsm::log(log, LogLevel::info, Subsystem::tools, "control socket {}", config.control_socket);
  return std::move(*started);
}

// The daemon on libibumad until a signal stops it: metrics and pages,
// systemd's notify protocol, the control socket, the SA's registrations
// saved as they change.
int serve_daemon(const RunFlags& f, DaemonManager& d, UmadTransport& port, const Clock& clock,
                 SmCacheWriter& cache_writer, FileLogSink& log) {
  SubnetManager& m = d.manager();
  const SmConfig& config = d.config();
  // metrics_listen: a failed bind is logged and the SM runs on without its
  // metrics (a second SM on this host, say): the subnet matters more.
  auto pages = DaemonPages::start(config, log, {{"/", status_page}});
  if (!pages.ok()) ibsm::log(log, LogLevel::error, Subsystem::tools, "{}; no metrics served", pages.status().message());
  DaemonPages* served = pages.ok() ? pages->get() : nullptr;
  // Type=notify: ready once the first sweep settled (master, subnet up or
  // not; or standby), as -o would have stopped there.
  SystemdNotifier systemd;
  auto tell_systemd = [&] {
    if (systemd.is_ready()) {
      systemd.status(status_line(m));
    } else if (once_done(m)) {
      systemd.ready(status_line(m));
      // Not the status line: "SUBNET UP" in the log is one per sweep, as
      // OpenSM's, and watchers (and the tests) count it.
      ibsm::log(log, LogLevel::info, Subsystem::tools, "ready: {} after the first sweep, systemd notified",
                sm_state_name(m.state()));
    }
  };
  DaemonControl control(m, clock, log, log, [&] { return port.local_port().lid; }, config.dump_files_dir);
  std::unique_ptr<ControlServer> control_server = start_control(config, control, port, log);
  SaCacheWriter sa_cache(config.cache_dir, m.sa(), log);
  const auto log_cache_errors = [&] {
    for (const std::string& e : cache_writer.take_errors()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", e);
  };
  auto after_poll = [&] {
    sa_cache.poll(m.sa(), clock.now());
    log_cache_errors();
    tell_systemd();
    if (control_server) control.serve(*control_server);
    if (served) served->after_poll(m, clock.now());
  };
  run_loop(m, port, clock, [] { return false; }, {[&] { d.reload(f.sources); }, [&] { reopen_log(log); }, after_poll});
  sa_cache.flush(m.sa(), clock.now());
  cache_writer.flush();
  log_cache_errors();
  systemd.stopping();
  ibsm::log(log, LogLevel::info, Subsystem::tools, "stopping on signal");
  return 0;
}

// The SM on the local port through libibumad: with -o one sweep, else the daemon.
int run_umad(const RunFlags& f, const SmConfig& config, RunInputs inputs, SweepState state, FileLogSink& log) {
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
  // The cache is saved on a thread (tools/os/sm_cache_writer.h).
  SmCacheWriter cache_writer(f.once ? CacheSaves::once : CacheSaves::repeatedly);
  auto d = wire_manager(**transport, clock, config, std::move(inputs), std::move(state), log,
                        {.cache_writer = &cache_writer, .print_summaries = f.once});
  if (!d) return 2;
  if (!f.once) return serve_daemon(f, *d, **transport, clock, cache_writer, log);
  run_loop(d->manager(), **transport, clock, [&] { return once_done(d->manager()); },
           {[&] { d->reload(f.sources); }, [&] { reopen_log(log); }, {}});
  return end_once(d, cache_writer, log);
}

}  // namespace

int cmd_run(int argc, char** argv) {
  RunFlags f;
  SmConfig config;
  if (auto done = parse_run_flags(argc, argv, f, config)) return *done;
  if (f.create_config) return create_config(config, *f.create_config);
  auto inputs = load_run_inputs(config);
  if (!inputs.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", inputs.status().message().c_str());
    return 2;
  }
  FileLogSink log(log_level_of(config.log_level));
  if (Status s = log.open(config.log_file); !s.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
    return 1;
  }
  log.set_journal(stderr_is_journal());
  SweepState state = load_run_cache(config, log);
  install_signals();
  if (f.sim_file) return run_sim(f, config, std::move(*inputs), std::move(state), log);
  return run_umad(f, config, std::move(*inputs), std::move(state), log);
}

}  // namespace ibsm::tools
