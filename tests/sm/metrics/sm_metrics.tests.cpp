// The SM's metrics over SimFabric in virtual time: after a sweep, the
// figures equal the sweep report's and the counters'.
#include "sm/metrics/sm_metrics.h"

#include <catch2/catch.hpp>

#include <cstdlib>

#include "sa/client.h"
#include "sm/metrics/mad_names.h"
#include "tests/sm/manager/failover_bench.h"

namespace ibsm::test {
namespace {

// The value of the sample `series` (name and labels as rendered) in `text`.
std::optional<double> sample(const std::string& text, const std::string& series) {
  const std::string key = "\n" + series + " ";
  const size_t at = ("\n" + text).find(key);
  if (at == std::string::npos) return std::nullopt;
  return std::strtod(text.c_str() + at + key.size() - 1, nullptr);
}

std::string render(const SubnetManager& sm, Micros now) {
  metrics::MetricsRegistry r;
  metrics::collect_sm_metrics(sm, now, r);
  return r.render();
}

struct OneSm {
  FailoverBench b{must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 3}))};
  size_t sm = 0;
  OneSm() {
    sm = b.start(ca_ports(b.sim().topology())[0], 7);
    b.run_for(3 * kSecond);
    REQUIRE(b.manager(sm).subnet_up());
  }
  SubnetManager& m() { return b.manager(sm); }
};

}  // namespace

TEST_CASE("after the first sweep the metrics equal the report and the counters", "[metrics][sm]") {
  OneSm s;
  const SubnetManager& m = s.m();
  const std::string text = render(m, s.b.sim().now());
  INFO(text);
  CHECK(sample(text, "ibsm_sm_state{state=\"master\"}") == 1);
  CHECK(sample(text, "ibsm_sm_state{state=\"standby\"}") == 0);
  CHECK(sample(text, "ibsm_sm_state_number") == 3);
  CHECK(sample(text, "ibsm_sm_priority") == 7);
  CHECK(sample(text, "ibsm_subnet_up") == 1);

  const ManagerCounters& c = m.counters();
  REQUIRE(c.heavy_sweeps >= 1);
  REQUIRE(c.light_sweeps >= 1);  // sweep_interval 1 s over 3 s
  CHECK(sample(text, "ibsm_sweeps_total{kind=\"heavy\"}") == c.heavy_sweeps);
  CHECK(sample(text, "ibsm_sweeps_total{kind=\"light\"}") == c.light_sweeps);
  CHECK(sample(text, "ibsm_sweeps_total{kind=\"discovery\"}") == c.discovery_sweeps);
  CHECK(sample(text, "ibsm_sweep_duration_seconds_count{kind=\"heavy\"}") == c.heavy_sweeps);
  CHECK(sample(text, "ibsm_sweep_duration_seconds_count{kind=\"light\"}") == c.light_sweeps);
  CHECK(sample(text, "ibsm_sweep_duration_seconds_bucket{kind=\"heavy\",le=\"+Inf\"}") == c.heavy_sweeps);
  REQUIRE(m.last_sweep());
  CHECK(sample(text, "ibsm_sweep_last_mads{kind=\"heavy\"}") == m.last_sweep()->total_mads());
  CHECK(m.sweep_stats(SweepKind::heavy).mads_total >= m.last_sweep()->total_mads());
  CHECK(sample(text, "ibsm_sweep_last_duration_seconds{kind=\"heavy\"}") > 0);
  // Light sweeps send MADs (PortInfo of the switches, at least).
  CHECK(sample(text, "ibsm_sweep_last_mads{kind=\"light\"}") > 0);
  REQUIRE(m.last_sweep_end());
  CHECK(sample(text, "ibsm_last_sweep_age_seconds") ==
        Approx(static_cast<double>(s.b.sim().now() - *m.last_sweep_end()) / 1e6));

  // MADs: the dispatcher's counts, by kind.
  const DispatcherStats& d = m.dispatcher().stats();
  CHECK(sample(text, "ibsm_mads_sent_total") == d.sent);
  const uint32_t node_info =
      DispatcherStats::kind_key(wire::mgmt_class::subn_directed_route, wire::method::get, wire::smp_attr::node_info);
  REQUIRE(d.sent_by_kind.count(node_info));
  CHECK(sample(text, "ibsm_mad_requests_sent_total{mgmt_class=\"smp_directed_route\",method=\"Get\","
                     "attribute=\"NodeInfo\"}") == d.sent_by_kind.at(node_info));
  CHECK(sample(text, "ibsm_mads_malformed_dropped_total{agent=\"dispatcher\"}") == d.malformed);

  // The subnet: 4 switches and 6 CAs, every cabled port active.
  const Fabric& f = m.subnet()->fabric;
  CHECK(sample(text, "ibsm_nodes{type=\"switch\"}") == 4);
  CHECK(sample(text, "ibsm_nodes{type=\"other\"}") == 6);
  uint64_t cabled = 0;
  for (uint32_t i = 0; i < f.node_count(); ++i)
    for (uint8_t p = 1; p <= f.node(NodeIndex{i}).num_ports; ++p) cabled += f.node(NodeIndex{i}).port(p).connected();
  CHECK(sample(text, "ibsm_ports{state=\"active\"}") == cabled);

  // Routing: the engine used and the structured check.
  const SweepRoutes& routes = m.last_sweep()->routes;
  REQUIRE(routes.route_check);
  CHECK(sample(text, "ibsm_routing_engine_info{engine=\"" + routes.engine + "\"}") == 1);
  CHECK(sample(text, "ibsm_routing_check_pairs") == routes.route_check->pairs.pairs);
  CHECK(sample(text, "ibsm_routing_check_pairs") == 30);  // 6 CAs, 6 * 5 ordered pairs
  CHECK(sample(text, "ibsm_routing_check_delivered_pairs") == 30);
  CHECK(sample(text, "ibsm_routing_check_max_link_routes") == routes.route_check->pairs.max_link_routes);
  const bool cycle = routes.route_check->has_cycle();
  CHECK(sample(text, "ibsm_routing_deadlock_verdict{verdict=\"acyclic\"}") == (cycle ? 0 : 1));
  CHECK(sample(text, "ibsm_routing_deadlock_verdict{verdict=\"cycle\"}") == (cycle ? 1 : 0));
  CHECK(sample(text, "ibsm_routing_deadlock_verdict{verdict=\"not_checked\"}") == 0);
}

TEST_CASE("SA requests are counted by attribute, method and status, with their latency", "[metrics][sm][sa]") {
  OneSm s;
  const PortRef at = ca_ports(s.b.sim().topology())[3];
  SimPort& client = s.b.sim().attach(at.node, at.port);
  const MadAddress sa = sa::sa_address(s.b.sim().port_lid(s.b.sm(s.sm).where));
  sa::SaRequest nodes;
  nodes.method = wire::method::get_table;
  nodes.attribute = wire::sa_attr::node_record;
  for (int i = 0; i < 2; ++i) {
    auto answer = sa::run_sa_call(client, s.b.sim().clock(), sa, nodes);
    REQUIRE(answer.ok());
  }
  sa::SaRequest bad = nodes;
  bad.method = wire::method::get;
  bad.attribute = 0x00AA;  // no such attribute
  REQUIRE(sa::run_sa_call(client, s.b.sim().clock(), sa, bad).ok());

  const std::string text = render(s.m(), s.b.sim().now());
  INFO(text);
  CHECK(sample(text, "ibsm_sa_requests_total{attribute=\"NodeRecord\",method=\"GetTable\",status=\"ok\"}") == 2);
  CHECK(sample(text, "ibsm_sa_requests_total{attribute=\"0x00aa\",method=\"Get\",status=\"method_attr_unsupported\"}") ==
        1);
  CHECK(sample(text, "ibsm_sa_request_latency_seconds_count") == 3);
  CHECK(sample(text, "ibsm_sa_rmpp_answers_total") == 2);
  s.b.sim().detach(client);
}

TEST_CASE("traps are counted by number", "[metrics][sm][traps]") {
  OneSm s;
  const Fabric& f = s.b.sim().topology();
  // A switch-to-switch cable goes down: its switches send trap 128.
  std::optional<PortRef> inter;
  for (uint32_t i = 0; i < f.node_count() && !inter; ++i) {
    const Node& n = f.node(NodeIndex{i});
    if (!n.is_switch()) continue;
    for (uint8_t p = 1; p <= n.num_ports && !inter; ++p)
      if (n.port(p).connected() && f.node(n.port(p).remote_node).is_switch()) inter = PortRef{NodeIndex{i}, p};
  }
  REQUIRE(inter);
  REQUIRE(s.b.sim().set_link(*inter, false).ok());
  s.b.run_for(2 * kSecond);
  const SmAgentCounters& c = s.m().sm_agent().counters();
  REQUIRE(c.traps_by_number.count(128));
  const std::string text = render(s.m(), s.b.sim().now());
  INFO(text);
  CHECK(sample(text, "ibsm_traps_received_total{number=\"128\"}") == c.traps_by_number.at(128));
  CHECK(sample(text, "ibsm_traps_received_total{number=\"other\"}") == c.traps - c.traps_by_number.at(128));
  // The trap set off an incremental sweep, and the metrics show the link down.
  CHECK(sample(text, "ibsm_sweeps_total{kind=\"heavy\"}") == 1);
  CHECK(sample(text, "ibsm_sweeps_total{kind=\"incremental\"}") >= 1);
  CHECK(sample(text, "ibsm_ports{state=\"down\"}") >= 2);
  // The storm counters (trap_filter.h, flap_quarantine.h) as the manager has them.
  CHECK(sample(text, "ibsm_traps_repeated_total") == s.m().trap_filter().counters().repeats);
  CHECK(sample(text, "ibsm_traps_ignored_total") == s.m().trap_filter().counters().ignored);
  CHECK(sample(text, "ibsm_sweep_requests_coalesced_total") == s.m().counters().sweep_requests_coalesced);
  CHECK(sample(text, "ibsm_ports_quarantined") == 0);
  CHECK(sample(text, "ibsm_ports_quarantined_total") == 0);
}

TEST_CASE("before any sweep the metrics hold the state but no subnet", "[metrics][sm]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 1, .spines = 1, .hosts_per_leaf = 1})));
  const size_t i = b.start(ca_ports(b.sim().topology())[0], 3);
  const std::string text = render(b.manager(i), 0);
  CHECK(sample(text, "ibsm_sm_state{state=\"discovering\"}") == 1);
  CHECK(sample(text, "ibsm_sweeps_total{kind=\"heavy\"}") == 0);
  CHECK_FALSE(sample(text, "ibsm_last_sweep_age_seconds"));
  CHECK_FALSE(sample(text, "ibsm_nodes{type=\"switch\"}"));
  CHECK(text.find("ibsm_routing_engine_info") == std::string::npos);
}

TEST_CASE("mad kinds are labelled with the spec's names, else hex", "[metrics][names]") {
  CHECK(metrics::mgmt_class_label(0x81) == "smp_directed_route");
  CHECK(metrics::mgmt_class_label(0x21) == "0x21");
  CHECK(metrics::method_label(0x12) == "GetTable");
  CHECK(metrics::method_label(0x7f) == "0x7f");
  CHECK(metrics::attribute_label(0x81, 0x0015) == "PortInfo");
  CHECK(metrics::attribute_label(0x03, 0x0035) == "PathRecord");
  CHECK(metrics::attribute_label(0x04, 0x0012) == "PortCounters");
  CHECK(metrics::attribute_label(0x03, 0x00AA) == "0x00aa");
  CHECK(metrics::sa_status_label(0) == "ok");
  CHECK(metrics::sa_status_label(0x0300) == "ERR_NO_RECORDS");
  CHECK(metrics::sa_status_label(0x0900) == "0x0900");
}

}  // namespace ibsm::test

namespace ibsm::test {

TEST_CASE("the performance manager's per-port totals are metrics once it is on", "[metrics][perfmgr]") {
  FailoverBench b(must_fabric(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 3})));
  SmConfig config = b.config(7);
  const size_t i = b.start(ca_ports(b.sim().topology())[0], config);
  b.run_for(3 * kSecond);
  REQUIRE(b.manager(i).subnet_up());
  // Off (OpenSM's default): no perfmgr family at all.
  CHECK(render(b.manager(i), b.sim().now()).find("ibsm_perfmgr") == std::string::npos);

  config.perfmgr = true;
  config.perfmgr_sweep_time_s = 1;
  b.manager(i).reconfigure(config);
  b.run_for(2 * kSecond);
  const NodeIndex leaf = *b.sim().topology().find_by_name("leaf-0");
  REQUIRE(b.sim().add_port_errors(PortRef{leaf, 3}, wire::port_counters_fields::symbol_errors, 5).ok());
  b.run_for(2 * kSecond);
  const std::string text = render(b.manager(i), b.sim().now());
  INFO(text);
  const PerfManager& perf = b.manager(i).perf();
  CHECK(sample(text, "ibsm_perfmgr_sweeps_total") == perf.stats().sweeps);
  const Guid guid = b.sim().topology().node(leaf).node_guid;
  const std::string labels = fmt::format("{{node_guid=\"{}\",port=\"3\",node_desc=\"leaf-0\"}}", guid);
  CHECK(sample(text, "ibsm_port_errors_total" + labels) == 5);
  const PortPerf* p = perf.port(guid, 3);
  REQUIRE(p);
  CHECK(sample(text, "ibsm_port_xmit_data_bytes_total" + labels) == 4.0 * static_cast<double>(p->total(PortData::xmit_data)));
  CHECK(sample(text, "ibsm_port_rcv_packets_total" + labels) == static_cast<double>(p->total(PortData::rcv_pkts)));
}

}  // namespace ibsm::test
