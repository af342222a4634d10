#include "tools/daemon/daemon_manager.h"

#include <cstdio>

#include <fmt/format.h>

#include "sm/metrics/mad_names.h"
#include "tools/daemon/sighup_reload.h"
#include "tools/daemon/sm_dumps.h"
#include "tools/os/sa_cache.h"
#include "tools/os/aside_thread.h"
#include "tools/os/sm_cache.h"

namespace ibsm {

std::string sweep_summary(const SweepReport& r, Micros elapsed) {
  const Fabric& f = r.subnet->fabric;  // after a sweep that configured the subnet
  std::string out =
      fmt::format("SUBNET {}: {} nodes ({} switches, {} CAs), {} links, lids {}..{}, sm lid {}, routing {}\n",
                  r.subnet_up ? "UP" : "NOT UP", f.node_count(), f.switch_count(), f.ca_count(), f.links().size(), 1u,
                  static_cast<unsigned>(r.lids.top.value), static_cast<unsigned>(r.sm_lid.value), r.routes.engine);
  out += fmt::format(
      "  {} mads in {:.3f} s: {} PortInfo sets, {} SwitchInfo sets, {} LFT blocks, {} P_Key sets, {} ports armed, {} "
      "activated\n",
      r.total_mads(), static_cast<double>(elapsed) / 1e6, r.port_info_sets, r.switch_info_sets, r.lft_blocks_sent,
      r.pkey_sets, r.ports_armed, r.ports_activated);
  if (!r.routes.check.empty()) out += fmt::format("  {}\n", r.routes.check);
  for (const auto& p : r.phases)
    out += fmt::format("  phase {:<16} {:9.3f} ms {:8} mads\n", p.name, static_cast<double>(p.elapsed) / 1000.0, p.mads);
  for (const auto& p : r.problems) out += fmt::format("  problem: {}\n", p.text);
  return out;
}

std::string mads_by_kind(const DispatcherStats& stats) {
  std::string line = "  mads by kind:";
  for (const auto& [key, n] : stats.sent_by_kind)
    line += fmt::format(" {}:{}:{}={}", metrics::mgmt_class_label(DispatcherStats::kind_class(key)),
                        metrics::method_label(DispatcherStats::kind_method(key)),
                        metrics::attribute_label(DispatcherStats::kind_class(key), DispatcherStats::kind_attr(key)), n);
  return line + "\n";
}

Result<std::unique_ptr<DaemonManager>> DaemonManager::create(Transport& port, const Clock& clock, SmConfig config,
                                                             RunInputs inputs, SweepState state, FilteringLogSink& log,
                                                             DaemonWiring wiring) {
  std::unique_ptr<DaemonManager> d(new DaemonManager(std::move(config), log, std::move(wiring)));
  auto sm = SubnetManager::create(port, clock, d->config_, inputs.engines, std::move(state), log);
  if (!sm.ok()) return sm.status();
  d->sm_ = std::move(*sm);
  d->sm_->set_partitions(std::move(inputs.partitions));
  d->restore_sa(clock);
  d->sm_->set_qos_policy(std::move(inputs.qos_policy));
  d->sm_->set_aside_runner(thread_aside_runner());
  d->listen();
  return d;
}

void DaemonManager::reload(const ConfigSources& sources) { reload_on_hup(sources, config_, *sm_, log_); }

// The SA's registrations the cache kept (services, subscriptions, multicast
// groups), into the SA before the first sweep. A standby that takes over
// later serves what it mirrored of the master instead (SaMirror::apply_to).
void DaemonManager::restore_sa(const Clock& clock) {
  LogSink& log = log_;
  std::vector<std::string> warnings;
  auto restored = load_sa_cache(config_.cache_dir, warnings);
  for (const auto& w : warnings) ibsm::log(log, LogLevel::warn, Subsystem::sa, "{}", w);
  if (!restored) return;
  const sa::SaRegistrations& r = restored->registrations;
  ibsm::log(log, LogLevel::info, Subsystem::sa,
            "restoring {} services, {} subscriptions and {} multicast members from the cache ({} services whose "
            "lease ran out while down dropped)",
            r.services.size(), r.subscriptions.size(), r.multicast.size(), restored->expired_services);
  (void)sm_->sa().import(std::move(restored->registrations), clock.now());
}

void DaemonManager::listen() {
  // As soon as a sweep that configured the subnet has its state: the cache,
  // through the writer on its thread when there is one, else in line.
  sm_->set_sweep_state_listener([this](const SweepState& s) {
    if (wiring_.cache_writer) {
      wiring_.cache_writer->submit(config_.cache_dir, cached_part(s));
      return;
    }
    Status saved = save_sm_cache(config_.cache_dir, s);
    if (!saved.ok()) ibsm::log(static_cast<LogSink&>(log_), LogLevel::warn, Subsystem::sweep, "{}", saved.message());
  });
  // After each sweep that configured the subnet: the dump files, and with -o the summary.
  sm_->set_sweep_listener([this](const SweepReport& r, Micros elapsed) {
    if (!config_.dump_files_dir.empty()) {
      Status dumped = tools::write_sm_dumps(config_.dump_files_dir, *sm_);
      if (!dumped.ok()) ibsm::log(static_cast<LogSink&>(log_), LogLevel::warn, Subsystem::sweep, "{}", dumped.message());
    }
    if (wiring_.print_summaries) {
      std::fputs(sweep_summary(r, elapsed).c_str(), stdout);
      std::fflush(stdout);
      std::fputs(mads_by_kind(sm_->dispatcher().stats()).c_str(), stdout);
      std::fflush(stdout);
    }
    if (wiring_.after_sweep) wiring_.after_sweep(r);
  });
  // After joins and leaves, between sweeps: opensm.mcfdbs alone.
  sm_->set_multicast_listener([this](const MulticastTables& tables, const SubnetSnapshot& subnet) {
    if (config_.dump_files_dir.empty()) return;
    Status dumped = tools::write_mcfdbs_dump(config_.dump_files_dir, subnet.fabric, tables);
    if (!dumped.ok()) ibsm::log(static_cast<LogSink&>(log_), LogLevel::warn, Subsystem::sweep, "{}", dumped.message());
  });
}

}  // namespace ibsm
