#include "sm/metrics/perf_metrics.h"

#include <fmt/format.h>

namespace ibsm::metrics {

void collect_perf_metrics(const PerfManager& perf, MetricsRegistry& out) {
  if (!perf.options().enabled) return;
  const PerfSweepStats& s = perf.stats();
  out.counter("ibsm_perfmgr_sweeps_total", "PMA sweeps of every port completed (perfmgr).", {}, as_double(s.sweeps));
  out.counter("ibsm_perfmgr_queries_total", "PMA requests sent, counter-clearing Sets included.", {},
              as_double(s.queries));
  out.counter("ibsm_perfmgr_unanswered_total", "PMA requests that timed out or were refused.", {},
              as_double(s.unanswered));
  out.gauge("ibsm_perfmgr_unresponsive_ports", "Ports skipped in the last PMA sweep: their node did not answer.", {},
            as_double(s.unresponsive_ports));
  out.gauge("ibsm_perfmgr_last_sweep_duration_seconds", "How long the last PMA sweep took.", {},
            static_cast<double>(s.last_duration) / 1e6);
  out.gauge("ibsm_perfmgr_error_ports", "Ports whose error counters climbed in the last PMA sweep.", {},
            as_double(perf.error_ports().size()));
  for (const auto& [key, p] : perf.ports()) {
    if (p.readings == 0) continue;  // never answered: no figures to give
    const Labels port{{"node_guid", fmt::format("{}", p.node_guid)},
                      {"port", fmt::format("{}", p.port)},
                      {"node_desc", p.node_description}};
    out.counter("ibsm_port_errors_total",
                "The twelve PortCounters error counters summed (symbol, link recovery, link downed, receive, "
                "remote physical, switch relay, transmit discards, constraint, local link integrity, buffer "
                "overrun, VL15 dropped), accumulated across clears.",
                port, as_double(p.error_total()));
    out.counter("ibsm_port_xmit_discards_total", "PortXmitDiscards, accumulated across clears.", port,
                as_double(p.total(PortError::xmit_discards)));
    out.counter("ibsm_port_xmit_data_bytes_total", "Data octets sent (PortXmitData counts 4-octet words).", port,
                as_double(p.total(PortData::xmit_data) * 4));
    out.counter("ibsm_port_rcv_data_bytes_total", "Data octets received (PortRcvData counts 4-octet words).", port,
                as_double(p.total(PortData::rcv_data) * 4));
    out.counter("ibsm_port_xmit_packets_total", "Packets sent (PortXmitPkts).", port,
                as_double(p.total(PortData::xmit_pkts)));
    out.counter("ibsm_port_rcv_packets_total", "Packets received (PortRcvPkts).", port,
                as_double(p.total(PortData::rcv_pkts)));
  }
}

}  // namespace ibsm::metrics
