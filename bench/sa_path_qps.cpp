// SA PathRecord throughput on one core (not a test): a generated fat tree
// (10,648 CAs by default: the 22-ary 3-tree), LIDs as the sweep assigns
// them, tables from a routing engine, the SA snapshot built from them; then
// on one thread, timed with steady_clock:
//  - PathRecord Gets by SLID+DLID between random CA ports,
//  - PathRecord Gets by SGID+DGID between random CA ports,
//  - PathRecord GetTables from one SGID to every end port.
// The query templates are encoded before the clock starts, so what is timed
// is run_path_query alone (decode, resolve, trace both ways, encode).
//
// Usage: sa_path_qps [--k K] [--n N] [--lmc L] [--engine E] [--queries Q] [--tables T]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mad/wire/constants.h"
#include "mad/wire/sa/path_record.h"
#include "routing/graph.h"
#include "routing/registry.h"
#include "sa/path_records.h"
#include "sa/snapshot.h"
#include "sm/sweep/configured_subnet.h"
#include "sm/sweep/lid_assignment.h"
#include "sm/topogen/generators.h"
#include "sm/topogen/prng.h"

namespace {

using namespace ibsm;
using Clock = std::chrono::steady_clock;

struct Args {
  uint32_t k = 22;
  uint32_t n = 3;
  uint8_t lmc = 0;
  std::string engine = "ftree";
  size_t queries = 2'000'000;
  size_t tables = 50;
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "sa_path_qps: %s\n", what.c_str());
  std::exit(1);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string opt = argv[i];
    if (i + 1 >= argc) die("missing value after " + opt);
    const char* v = argv[++i];
    if (opt == "--k") a.k = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    else if (opt == "--n") a.n = static_cast<uint32_t>(std::strtoul(v, nullptr, 10));
    else if (opt == "--lmc") a.lmc = static_cast<uint8_t>(std::strtoul(v, nullptr, 10));
    else if (opt == "--engine") a.engine = v;
    else if (opt == "--queries") a.queries = std::strtoull(v, nullptr, 10);
    else if (opt == "--tables") a.tables = std::strtoull(v, nullptr, 10);
    else die("unknown option " + opt);
  }
  return a;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

sa::SaSnapshot build_snapshot(const Args& args) {
  auto t0 = Clock::now();
  auto fabric = topogen::kary_ntree({.k = args.k, .n = args.n});
  if (!fabric.ok()) die(fabric.status().message());
  Fabric& f = *fabric;
  for (uint32_t i = 0; i < f.node_count(); ++i)
    for (Port& p : f.node(NodeIndex{i}).ports)
      if (p.connected()) p.state = PortState::active;
  LidOptions lo;
  lo.lmc = args.lmc;
  lo.reassign_all = true;
  auto lids = assign_lids(f, lo, nullptr);
  if (!lids.ok()) die(lids.status().message());
  if (Status s = apply_lids(*lids, f); !s.ok()) die(s.message());

  routing::EngineRegistry registry;
  if (Status st = routing::register_builtin_engines(registry); !st.ok()) die(st.message());
  auto engine = registry.create(args.engine);
  if (engine == nullptr) die("no routing engine " + args.engine);
  auto graph = routing::RoutingGraph::build(f);
  if (!graph.ok()) die(graph.status().message());
  auto t1 = Clock::now();
  auto tables = engine->compute(routing::RoutingInput{*graph});
  if (!tables.ok()) die(tables.status().message());
  const double routing_s = seconds_since(t1);

  SubnetParts parts;
  for (uint32_t i = 0; i < f.node_count() && !parts.sm_port.node.valid(); ++i)
    if (!f.node(NodeIndex{i}).is_switch()) parts.sm_port = PortRef{NodeIndex{i}, 1};
  const size_t cas = f.ca_count(), switches = f.switch_count();
  parts.fabric = std::move(f);
  parts.lfts = std::move(tables->lfts);
  auto t2 = Clock::now();
  auto subnet = configured_subnet(std::move(parts), SubnetDefaults{});
  if (!subnet.ok()) die(subnet.status().message());
  auto snapshot = sa::build_sa_snapshot(*subnet, sa::SaSnapshotOptions{});
  if (!snapshot.ok()) die(snapshot.status().message());
  std::printf("fabric: %u-ary %u-tree, %zu CAs, %zu switches, lmc %u; routing '%s' %.2f s, snapshot %.2f s, "
              "setup %.2f s\n",
              args.k, args.n, cas, switches, unsigned{args.lmc}, args.engine.c_str(), routing_s, seconds_since(t2),
              seconds_since(t0));
  return std::move(*snapshot);
}

struct Run {
  size_t answered = 0;
  size_t records = 0;
  double seconds = 0;
};

// Runs every template once with `method` and `mask`.
Run run(const sa::SaSnapshot& s, const std::vector<uint8_t>& templates, size_t count, uint8_t method, uint64_t mask,
        Lid requester) {
  sa::SaQuery q;
  q.method = method;
  q.attribute = wire::sa_attr::path_record;
  q.component_mask = mask;
  q.requester = requester;
  constexpr size_t size = wire::sa_record_size::path;
  Run r;
  const auto t0 = Clock::now();
  for (size_t i = 0; i < count; ++i) {
    q.record = std::span<const uint8_t>(templates).subspan(i * size, size);
    const sa::SaQueryResult a = sa::run_path_query(s, q);
    r.answered += a.status == 0 ? 1 : 0;
    r.records += a.count;
  }
  r.seconds = seconds_since(t0);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  const sa::SaSnapshot s = build_snapshot(args);
  std::vector<const sa::EndPort*> cas;
  for (const sa::EndPort& e : s.endports)
    if (!s.fabric.node(e.ref.node).is_switch()) cas.push_back(&e);
  if (cas.size() < 2) die("too few CAs");

  // Random CA pairs, any LID of each port's LMC range for the LID queries.
  topogen::Prng prng(42);
  constexpr size_t size = wire::sa_record_size::path;
  constexpr uint64_t kDgid = 1u << 2, kSgid = 1u << 3, kDlid = 1u << 4, kSlid = 1u << 5;  // IBA 15.2.5.16
  std::vector<uint8_t> by_lid(args.queries * size), by_gid(args.queries * size);
  for (size_t i = 0; i < args.queries; ++i) {
    const sa::EndPort& a = *cas[prng.below(cas.size())];
    const sa::EndPort& b = *cas[prng.below(cas.size())];
    wire::PathRecord t;
    t.slid = Lid{static_cast<uint16_t>(a.base_lid.value + prng.next() % (1u << a.lmc))};
    t.dlid = Lid{static_cast<uint16_t>(b.base_lid.value + prng.next() % (1u << b.lmc))};
    wire::encode(t, std::span<uint8_t>(by_lid).subspan(i * size, size));
    wire::PathRecord g;
    g.sgid = wire::Gid::from_parts(s.subnet_prefix, a.guid.value);
    g.dgid = wire::Gid::from_parts(s.subnet_prefix, b.guid.value);
    wire::encode(g, std::span<uint8_t>(by_gid).subspan(i * size, size));
  }

  auto report = [](const char* what, const Run& r, size_t count) {
    std::printf("%-52s %9zu queries %7.3f s %12.0f queries/s (%zu answered, %zu records)\n", what, count, r.seconds,
                static_cast<double>(count) / r.seconds, r.answered, r.records);
  };
  const Run lid_get = run(s, by_lid, args.queries, wire::method::get, kSlid | kDlid, Lid{});
  report("PathRecord Get by SLID+DLID, random CA pairs", lid_get, args.queries);
  const Run gid_get = run(s, by_gid, args.queries, wire::method::get, kSgid | kDgid, Lid{});
  report("PathRecord Get by SGID+DGID, random CA pairs", gid_get, args.queries);

  const size_t tables = std::min(args.tables, args.queries);
  const Run table = run(s, by_gid, tables, wire::method::get_table, kSgid, Lid{});
  report("PathRecord GetTable SGID -> every end port", table, tables);
  std::printf("%-52s %9zu records %7.3f s %12.0f records/s\n", "  (records of those tables)", table.records,
              table.seconds, static_cast<double>(table.records) / table.seconds);
  return lid_get.answered == args.queries && gid_get.answered == args.queries ? 0 : 1;
}
