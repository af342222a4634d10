// ibsm run: the subnet manager's executable. The SM itself is the core's
// SubnetManager (sm/manager); this file parses flags and the config file,
// loads the cache and the engines' files, wires the manager to libibumad or
// to an in-process SimFabric (virtual time), handles SIGHUP (reload, heavy
// sweep), SIGUSR1 (reopen the log) and SIGTERM, tells systemd when it is
// ready, writes the cache and dump files after each sweep, and prints. With
// -o it configures once and exits.
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "mad/sim/sim_fabric.h"
#include "mad/umad/umad_transport.h"
#include "mad/wire/constants.h"
#include "sm/config/config_reload.h"
#include "sm/config/sm_config.h"
#include "sm/manager/subnet_manager.h"
#include "sm/metrics/mad_names.h"
#include "tools/args.h"
#include "tools/command.h"
#include "tools/daemon_control.h"
#include "tools/os/control_socket.h"
#include "tools/daemon_pages.h"
#include "tools/os/engine_files.h"
#include "tools/os/file_log.h"
#include "tools/os/files.h"
#include "tools/os/sa_cache.h"
#include "tools/os/qos_policy_file.h"
#include "tools/os/sm_cache.h"
#include "tools/os/aside_thread.h"
#include "tools/os/sm_cache_writer.h"
#include "tools/os/steady_clock.h"
#include "tools/os/systemd_notify.h"
#include "tools/sim_attach.h"
#include "tools/sm_dumps.h"

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

LogLevel level_of(uint32_t n) { return static_cast<LogLevel>(n > 4 ? 4 : n); }

void print_summary(const SweepReport& r, Micros elapsed) {
  const Fabric& f = r.subnet->fabric;  // after a sweep that configured the subnet
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
  for (const auto& p : r.problems) std::printf("  problem: %s\n", p.text.c_str());
  std::fflush(stdout);
}

// -o: every MAD the SM sent so far by class, method and attribute (what
// tools/umad_count counts under umad; over SimFabric the only count).
void print_mads_by_kind(const DispatcherStats& stats) {
  std::string line = "  mads by kind:";
  for (const auto& [key, n] : stats.sent_by_kind)
    line += fmt::format(" {}:{}:{}={}", metrics::mgmt_class_label(DispatcherStats::kind_class(key)),
                        metrics::method_label(DispatcherStats::kind_method(key)),
                        metrics::attribute_label(DispatcherStats::kind_class(key), DispatcherStats::kind_attr(key)), n);
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// The flags that set config keys, as (key, value) pairs: taken from the
// command line once, applied over the config file at start and at SIGHUP.
using FlagValues = std::vector<std::pair<std::string, std::string>>;

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

// Reads the config file (if any) and applies the flags over it.
Status load_config(const std::optional<std::string>& file, const FlagValues& flags, SmConfig& config,
                   std::vector<std::string>& errors) {
  if (file) {
    auto text = read_text_file(*file);
    if (!text.ok()) return text.status();
    std::istringstream in(*text);
    IBSM_RETURN_IF_ERROR(read_config(in, *file, config));
  }
  for (const auto& [key, value] : flags) {
    Status s = set_config_value(config, key, value);
    if (!s.ok()) errors.push_back(s.message());  // names the key
  }
  return {};
}

// The partitions file the config names, read: null when it is absent at
// the default path (OpenSM then applies its Default partition). A file named
// otherwise (-P, the config key) must be there; a bad one is an error naming
// file:line.
Result<std::shared_ptr<const PartitionConfig>> load_partitions(const SmConfig& config) {
  const std::string& path = config.partition_config_file;
  if (path.empty()) return std::shared_ptr<const PartitionConfig>();
  std::error_code ec;
  if (path == default_partition_config_file && !std::filesystem::exists(path, ec))
    return std::shared_ptr<const PartitionConfig>();
  auto text = read_text_file(path);
  if (!text.ok()) return text.status();
  std::istringstream in(*text);
  auto read = read_partitions_conf(in, path);
  if (!read.ok()) return read.status();
  return std::make_shared<const PartitionConfig>(std::move(*read));
}

// What the edge does as soon as a sweep that configured the subnet has its
// state (SweepStateListener): the cache, through `writer` on its thread when
// there is one, else in line.
void save_cache(const SweepState& state, const SmConfig& config, LogSink& log, SmCacheWriter* writer) {
  if (writer) {
    writer->submit(config.cache_dir, cached_part(state));
    return;
  }
  Status saved = save_sm_cache(config.cache_dir, state);
  if (!saved.ok()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", saved.message());
}

// What the edge does after each sweep that configured the subnet: the dump
// files, and with -o the summary.
void after_sweep(const SweepReport& report, Micros elapsed, const SubnetManager& sm, const SmConfig& config,
                 bool print, LogSink& log) {
  if (!config.dump_files_dir.empty()) {
    Status dumped = write_sm_dumps(config.dump_files_dir, sm);
    if (!dumped.ok()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", dumped.message());
  }
  if (print) {
    print_summary(report, elapsed);
    print_mads_by_kind(sm.dispatcher().stats());
  }
}

// The SA's registrations the cache kept (services, subscriptions, multicast
// groups), into the SA before the first sweep. A standby that takes over
// later serves what it mirrored of the master instead (SaMirror::apply_to).
void restore_sa(SubnetManager& sm, const SmConfig& config, const Clock& clock, LogSink& log) {
  std::vector<std::string> warnings;
  auto restored = load_sa_cache(config.cache_dir, warnings);
  for (const auto& w : warnings) ibsm::log(log, LogLevel::warn, Subsystem::sa, "{}", w);
  if (!restored) return;
  const sa::SaRegistrations& r = restored->registrations;
  ibsm::log(log, LogLevel::info, Subsystem::sa,
            "restoring {} services, {} subscriptions and {} multicast members from the cache ({} services whose "
            "lease ran out while down dropped)",
            r.services.size(), r.subscriptions.size(), r.multicast.size(), restored->expired_services);
  (void)sm.sa().import(std::move(restored->registrations), clock.now());
}

// -o: the first sweep settled it, one way or the other.
bool once_done(const SubnetManager& sm) {
  return sm.last_sweep() || !sm.last_error().empty() || sm.state() == SmState::standby ||
         sm.state() == SmState::not_active;
}

int once_result(const SubnetManager& sm) {
  if (sm.last_sweep()) return sm.subnet_up() ? 0 : 1;
  if (!sm.last_error().empty()) {
    std::printf("SUBNET NOT UP: %s\n", sm.last_error().c_str());
  } else if (sm.master()) {
    std::printf("SUBNET NOT UP: the sm at port %s (lid %u) is master\n",
                fmt::format("{}", sm.master()->port_guid).c_str(), static_cast<unsigned>(sm.master()->lid.value));
  } else {
    std::printf("SUBNET NOT UP: this sm is %s\n", sm_state_name(sm.state()));
  }
  return 1;
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
int end_once(std::unique_ptr<SubnetManager>& sm, SmCacheWriter& writer, LogSink& log) {
  const int result = once_result(*sm);
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

// The state systemd shows (systemctl status): the SM's state and, as master,
// the subnet the last sweep left.
std::string status_line(const SubnetManager& sm) {
  std::string line = sm_state_name(sm.state());
  if (const SweepReport* r = sm.last_sweep()) {
    line += fmt::format(": SUBNET {}, {} nodes, sm lid {}", sm.subnet_up() ? "UP" : "NOT UP",
                        r->subnet->fabric.node_count(), r->sm_lid.value);
  } else if (!sm.last_error().empty()) {
    line += ": " + sm.last_error();
  } else if (sm.master()) {
    line += fmt::format(": master is port {} (lid {})", sm.master()->port_guid, sm.master()->lid.value);
  }
  return line;
}

}  // namespace

int cmd_run(int argc, char** argv) {
  Args args(argc, argv);
  if (args.flag("--help", "-h")) {
    std::fputs(kRunUsage, stdout);
    return 0;
  }
  SmConfig config;
  std::vector<std::string> errors;
  const auto config_file = args.value("--config", "-F");
  const FlagValues flag_values = take_flag_values(args);
  if (Status s = load_config(config_file, flag_values, config, errors); !s.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
    return 2;
  }
  bool once = args.flag("--once", "-o");
  auto create_config = args.value("--create-config", "-c");
  auto sim_file = args.value("--sim");
  auto sim_node = args.value("--sim-node");
  auto sweeps = args.integer("--sweeps", 1, 1000);
  auto sim_time = args.integer("--sim-time", 1, 86400 * 365);
  auto lft_cap = args.integer("--sim-lft-cap", 1, 49152);
  uint32_t verbose = 0;
  while (args.flag("--verbose", "-v")) ++verbose;
  // -v raises the level over the file's, at start and at every reload.
  auto add_verbose = [verbose](SmConfig& c) { c.log_level = std::min<uint32_t>(c.log_level + verbose, 4); };
  add_verbose(config);
  auto rest = args.positionals();
  for (const auto& e : args.errors()) errors.push_back(e);
  for (const auto& r : rest) errors.push_back("unexpected argument '" + r + "'");
  if (!sim_file && (sim_node || sweeps || lft_cap || sim_time))
    errors.push_back("--sim-node, --sweeps, --sim-time and --sim-lft-cap need --sim");
  if (sweeps && !once) errors.push_back("--sweeps needs -o (the daemon sweeps as it goes)");
  if (sim_time && once) errors.push_back("--sim-time runs the daemon: it does not go with -o");
  if (!errors.empty()) {
    for (const auto& e : errors) std::fprintf(stderr, "ibsm run: %s\n", e.c_str());
    std::fputs(kRunUsage, stderr);
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
  if (engines.ok() && config.routing_engine.find("torus-2QoS") != std::string::npos) {
    const Status torus = load_torus_config(config.torus_config, config.torus_config != SmConfig{}.torus_config, *engines);
    if (!torus.ok()) engines = torus;
  }
  if (!engines.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", engines.status().message().c_str());
    return 2;
  }
  auto partitions = load_partitions(config);
  if (!partitions.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", partitions.status().message().c_str());
    return 2;
  }
  auto qos_policy = load_qos_policy(config);
  if (!qos_policy.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", qos_policy.status().message().c_str());
    return 2;
  }
  FileLogSink log(level_of(config.log_level));
  if (Status s = log.open(config.log_file); !s.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", s.message().c_str());
    return 1;
  }
  log.set_journal(stderr_is_journal());
  SweepState state;
  std::vector<std::string> warnings;
  if (Status s = load_sm_cache(config.cache_dir, state, warnings); !s.ok())
    ibsm::log(log, LogLevel::warn, Subsystem::tools, "{}", s.message());
  for (const auto& w : warnings) ibsm::log(log, LogLevel::warn, Subsystem::tools, "{}", w);
  if (!config.honor_guid2lid_file) state.guid2lid.clear();

  // The SIGHUP reload: the config file again, the flags over it, then the
  // partitions file it names. A bad file (either) changes nothing and is
  // logged with file:line. Otherwise the reloadable keys apply (the manager's
  // through reconfigure, the log level and dump folder here), and a changed
  // key that needs a restart is logged and kept. A heavy sweep either way.
  auto on_hup = [&](SubnetManager& sm) {
    sm.request_heavy_sweep();
    SmConfig next;
    std::vector<std::string> bad;
    Status s = load_config(config_file, flag_values, next, bad);
    if (!s.ok() || !bad.empty()) {
      ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGHUP: nothing changed, configuration kept: {}",
                s.ok() ? bad.front() : s.message());
      return;
    }
    add_verbose(next);
    auto reread = load_partitions(next);
    if (!reread.ok()) {
      ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGHUP: nothing changed, partitions kept: {}",
                reread.status().message());
      return;
    }
    auto reread_qos = load_qos_policy(next);
    if (!reread_qos.ok()) {
      ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGHUP: nothing changed, QoS policy kept: {}",
                reread_qos.status().message());
      return;
    }
    for (const ConfigChange& c : diff_config(config, next)) {
      if (c.key->hot_reload) {
        ibsm::log(log, LogLevel::info, Subsystem::tools, "SIGHUP: {} {} -> {}", c.key->key, c.old_value, c.new_value);
      } else {
        ibsm::log(log, LogLevel::warn, Subsystem::tools, "SIGHUP: {}", restart_needed_message(c));
      }
    }
    config = apply_reloadable(config, next);
    log.set_level(level_of(config.log_level));
    sm.set_partitions(std::move(*reread));
    sm.set_qos_policy(std::move(*reread_qos));
    sm.reconfigure(config);
    ibsm::log(log, LogLevel::info, Subsystem::tools, "SIGHUP: heavy sweep, configuration reloaded");
  };
  auto on_reopen_log = [&] {
    Status reopened = log.reopen();
    if (!reopened.ok()) {
      ibsm::log(log, LogLevel::error, Subsystem::tools, "SIGUSR1: {}", reopened.message());
    } else {
      ibsm::log(log, LogLevel::info, Subsystem::tools, "SIGUSR1: log file reopened");
    }
  };
  install_signals();

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
    auto sm = SubnetManager::create(port, sim.clock(), config, *engines, std::move(state), log);
    if (!sm.ok()) {
      std::fprintf(stderr, "ibsm run: %s\n", sm.status().message().c_str());
      return 2;
    }
    SubnetManager& m = **sm;
    m.set_partitions(*partitions);
    m.set_qos_policy(*qos_policy);
    m.set_aside_runner(thread_aside_runner());
    // -o saves on the writer's thread (end_once); the daemon in virtual time
    // in line, so its runs stay the same from one to the next.
    std::optional<SmCacheWriter> once_writer;
    if (once) once_writer.emplace(CacheSaves::once);
    int64_t sweeps_left = once ? (sweeps ? *sweeps : 1) : 0;
    m.set_sweep_state_listener(
        [&](const SweepState& s) { save_cache(s, config, log, once_writer ? &*once_writer : nullptr); });
    m.set_sweep_listener([&](const SweepReport& r, Micros elapsed) {
      after_sweep(r, elapsed, m, config, once, log);
      if (once && --sweeps_left > 0) m.request_heavy_sweep();
    });
    if (once) {
      run_loop(m, port, sim.clock(), [&] { return sweeps_left <= 0 || (once_done(m) && !m.last_sweep()); },
               {[&] { on_hup(m); }, on_reopen_log, {}});
      return end_once(*sm, *once_writer, log);
    }
    // The daemon in virtual time: as long as --sim-time says (60 s by
    // default), in far less real time.
    const Micros end = sim.now() + Micros{sim_time ? *sim_time : 60} * 1'000'000;
    m.set_state_listener([&](SmState, SmState to) {
      std::printf("%.6f s: %s\n", static_cast<double>(sim.now()) / 1e6, sm_state_name(to));
    });
    run_loop(m, port, sim.clock(), [&] { return sim.now() >= end; }, {[&] { on_hup(m); }, on_reopen_log, {}});
    const ManagerCounters& c = m.counters();
    std::printf("after %.3f virtual s: %s, %llu heavy sweeps, %llu light sweeps, %llu mads sent\n",
                static_cast<double>(sim.now()) / 1e6, sm_state_name(m.state()),
                static_cast<unsigned long long>(c.heavy_sweeps), static_cast<unsigned long long>(c.light_sweeps),
                static_cast<unsigned long long>(m.dispatcher().stats().sent));
    return m.subnet_up() ? 0 : 1;
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
  auto sm = SubnetManager::create(**transport, clock, config, *engines, std::move(state), log);
  if (!sm.ok()) {
    std::fprintf(stderr, "ibsm run: %s\n", sm.status().message().c_str());
    return 2;
  }
  SubnetManager& m = **sm;
  m.set_partitions(*partitions);
  restore_sa(m, config, clock, log);
  m.set_qos_policy(*qos_policy);
  m.set_aside_runner(thread_aside_runner());
  // The cache is saved on a thread (tools/os/sm_cache_writer.h).
  SmCacheWriter cache_writer(once ? CacheSaves::once : CacheSaves::repeatedly);
  m.set_sweep_state_listener([&](const SweepState& s) { save_cache(s, config, log, &cache_writer); });
  m.set_sweep_listener([&](const SweepReport& r, Micros elapsed) { after_sweep(r, elapsed, m, config, once, log); });
  m.set_multicast_listener([&](const MulticastTables& tables, const SubnetSnapshot& subnet) {
    if (config.dump_files_dir.empty()) return;
    Status dumped = write_mcfdbs_dump(config.dump_files_dir, subnet.fabric, tables);
    if (!dumped.ok()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", dumped.message());
  });
  if (once) {
    run_loop(m, **transport, clock, [&] { return once_done(m); }, {[&] { on_hup(m); }, on_reopen_log, {}});
    return end_once(*sm, cache_writer, log);
  }
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
  // The control socket (ibsm ctl): its own I/O thread; the commands run here, between polls.
  std::unique_ptr<DaemonControl> control;
  std::unique_ptr<ControlServer> control_server;
  if (!config.control_socket.empty()) {
    control = std::make_unique<DaemonControl>(m, clock, log, log, [&] { return (*transport)->local_port().lid; },
                                              config.dump_files_dir);
    control->publish(true);
    auto started = ControlServer::start({config.control_socket, config.control_group, std::chrono::milliseconds(5000), 16},
                                        [c = control.get()](const ControlWords& w) { return c->immediate(w); });
    if (started.ok()) {
      control_server = std::move(*started);
      (*transport)->set_wake_fd(control_server->wake_fd());
      ibsm::log(log, LogLevel::info, Subsystem::tools, "control socket {}", config.control_socket);
    } else {
      // The SM's job does not depend on it: it runs on, and says so.
      ibsm::log(log, LogLevel::error, Subsystem::tools, "running without a control socket: {}",
                started.status().message());
    }
  }
  SaCacheWriter sa_cache(config.cache_dir, m.sa(), log);
  const auto log_cache_errors = [&] {
    for (const std::string& e : cache_writer.take_errors()) ibsm::log(log, LogLevel::warn, Subsystem::sweep, "{}", e);
  };
  auto after_poll = [&] {
    sa_cache.poll(m.sa(), clock.now());
    log_cache_errors();
    tell_systemd();
    if (control_server) control->serve(*control_server);
    if (served) served->after_poll(m, clock.now());
  };
  run_loop(m, **transport, clock, [] { return false; }, {[&] { on_hup(m); }, on_reopen_log, after_poll});
  sa_cache.flush(m.sa(), clock.now());
  cache_writer.flush();
  log_cache_errors();
  systemd.stopping();
  ibsm::log(log, LogLevel::info, Subsystem::tools, "stopping on signal");
  return 0;
}

}  // namespace ibsm::tools
