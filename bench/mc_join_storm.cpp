// Multicast join storm in process (not a test): a whole fabric's IPoIB
// joins at boot, one per CA port, to the default partition's broadcast group
// ff12:401b:ffff::ffff:ffff, handled by the real SubnetManager (its SA
// answering, its multicast step programming the MFTs) over SimFabric in
// virtual time.
//  - The fabric: a generated k-ary n-tree (the 22-ary 3-tree by default:
//    10,648 CAs, 1,452 switches, as sa_path_qps uses). The SM runs at the
//    first CA; the heavy sweep brings the subnet up first (not timed).
//  - The storm: every other CA gets its own client port (SimFabric::attach)
//    and sends one MCMemberRecord Set (MGID, PortGID, P_Key, JoinState full
//    member: what Linux IPoIB selects to join an existing broadcast group)
//    to the SA, all at once. The SM's own port cannot have a second client,
//    so its join is a proxy join with the SM_Key from the first client.
//    With --senders S the joins go out from S client ports only, as proxy
//    joins with the SM_Key (what a few load hosts do on ibsim).
//  - Measured: wall time (steady_clock) from the first join sent to the last
//    multicast programming round that follows the last join (the SM's
//    processing and the SimFabric's routing included: one thread does all);
//    joins/s over that; the virtual time from the first join to the end of
//    the last programming round (every MFT Set answered): "every member
//    reachable"; MFT Sets and all MADs the SM sent for the storm (dispatcher
//    stats, SimFabric counters); the rounds the joins were batched into
//    (SubnetManager's multicast listener, one call per round) with their
//    blocks (MulticastUpdate); peak RSS.
//  - Verified: every join answered with status 0, the SA holds every CA port
//    as a member, and what the switches hold (read from the SMAs) delivers
//    from every member to every other member, once, and nowhere else
//    (routing/multicast_check with every member as a source). A wrong result
//    exits 1.
// Light sweeps are off (sweep_interval 0) so the counts are the storm's.
//
// Build and run (Release):
//   cmake -S . -B build-rel -G Ninja -DCMAKE_BUILD_TYPE=Release -DIBSM_TESTS=OFF
//   ninja -C build-rel mc_join_storm && build-rel/bench/mc_join_storm
// Usage: mc_join_storm [--k K] [--n N] [--engine E] [--senders S] [--check-sources C]
// (--check-sources C floods from the first C members only: a quicker check,
// for profiling the storm; 0, the default, floods from every member.)
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "mad/sim/sim_fabric.h"
#include "mad/wire/constants.h"
#include "mad/wire/gid_text.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/sa/mc_member_record.h"
#include "mad/wire/sa_header.h"
#include "routing/multicast_check.h"
#include "sa/client.h"
#include "sm/manager/subnet_manager.h"
#include "sm/topogen/generators.h"
#include "tests/sm/multicast/held_mfts.h"

namespace {

using namespace ibsm;
using Wall = std::chrono::steady_clock;

struct Args {
  uint32_t k = 22;
  uint32_t n = 3;
  std::string engine = "ftree";
  size_t senders = 0;        // 0: every CA joins from its own port
  size_t check_sources = 0;  // members flooded from in the check; 0: every member
};

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "mc_join_storm: %s\n", what.c_str());
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
    else if (opt == "--engine") a.engine = v;
    else if (opt == "--senders") a.senders = std::strtoull(v, nullptr, 10);
    else if (opt == "--check-sources") a.check_sources = std::strtoull(v, nullptr, 10);
    else die("unknown option " + opt);
  }
  return a;
}

double seconds_since(Wall::time_point t0) { return std::chrono::duration<double>(Wall::now() - t0).count(); }
long peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

// The join of `port_gid` to `mgid` as Linux IPoIB sends it for an existing
// broadcast group (MGID, PortGID, P_Key, JoinState FullMember), with the
// SM_Key when it is a proxy join.
MadPacket join_mad(const wire::Gid& mgid, const wire::Gid& port_gid, uint64_t tid, uint64_t sm_key, Lid sm_lid) {
  sa::SaRequest req = sa::full_member_join(mgid, port_gid);
  req.tid = tid;
  req.sm_key = sm_key;
  MadPacket p;
  p.data = sa::encode_request(req);
  p.address = sa::sa_address(sm_lid);
  return p;
}

struct Round {
  Micros at = 0;  // virtual time the round's last MFT Set was answered
  size_t members = 0;
  MulticastUpdate update;
};

uint64_t sum_kinds(const std::map<uint32_t, uint64_t>& by_kind, uint16_t attr, uint8_t method) {
  uint64_t n = 0;
  for (uint8_t cls : {wire::mgmt_class::subn_lid_routed, wire::mgmt_class::subn_directed_route})
    if (auto it = by_kind.find(SimCounters::kind_key(cls, method, attr)); it != by_kind.end()) n += it->second;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  const auto t_setup = Wall::now();
  auto generated = topogen::kary_ntree({.k = args.k, .n = args.n});
  if (!generated.ok()) die(generated.status().message());
  SimFabric sim(std::move(*generated));
  const Fabric& topo = sim.topology();
  std::vector<PortRef> cas;
  for (uint32_t i = 0; i < topo.node_count(); ++i)
    if (!topo.node(NodeIndex{i}).is_switch()) cas.push_back(PortRef{NodeIndex{i}, 1});
  if (cas.size() < 2) die("too few CAs");

  // The SM at the first CA, as the daemon would run it.
  SmConfig config;
  config.cache_dir.clear();
  config.routing_engine = args.engine;
  config.sweep_interval = 0;
  SimPort& sm_port = sim.attach(cas[0].node, cas[0].port);
  sm_port.set_is_sm(true);
  auto created = SubnetManager::create(sm_port, sim.clock(), config, {}, SweepState{}, null_log_sink());
  if (!created.ok()) die(created.status().message());
  SubnetManager& sm = **created;
  sm_port.set_service([&sm] { sm.serve_arrivals(); });
  for (int i = 0; i < 1000 && !(sm.is_master() && sm.subnet_up()); ++i) {
    sm.poll(sim.now());
    sim.step(std::max<Micros>(sm.next_deadline() - sim.now(), 1));
  }
  if (!sm.subnet_up()) die("the subnet did not come up: " + sm.last_error());
  const SubnetSnapshot& subnet = *sm.subnet();
  std::printf("fabric: %u-ary %u-tree, %zu CAs, %zu switches; routing '%s'; subnet up in %.3f s virtual, setup %.2f s "
              "wall\n",
              args.k, args.n, cas.size(), topo.switch_count(), args.engine.c_str(), static_cast<double>(sim.now()) / 1e6,
              seconds_since(t_setup));

  auto bcast = wire::parse_gid("ff12:401b:ffff::ffff:ffff");
  if (!bcast.ok()) die("bad broadcast MGID");
  const wire::Gid mgid{*bcast};
  const sa::McGroup* group = sm.sa().multicast().find(mgid);
  if (group == nullptr) die("no predefined broadcast group");
  const Lid mlid = group->properties.mlid;
  const Lid sm_lid = sm_port.local_port().lid;

  // The senders: every CA but the SM's on its own port, or the first S of them.
  std::vector<SimPort*> clients;
  const size_t senders = args.senders == 0 ? cas.size() - 1 : std::min(args.senders, cas.size() - 1);
  for (size_t i = 1; i <= senders; ++i) clients.push_back(&sim.attach(cas[i].node, cas[i].port));

  std::vector<Round> rounds;
  sm.set_multicast_listener([&](const MulticastTables&, const SubnetSnapshot&) {
    const sa::McGroup* g = sm.sa().multicast().find(mgid);
    rounds.push_back({sim.now(), g ? g->members.size() : 0, *sm.last_multicast_update()});
  });
  sim.reset_counters();
  const DispatcherStats before = sm.dispatcher().stats();
  const long rss_before = peak_rss_mib();

  // Every CA's join, all at once, sender by sender.
  const auto t0 = Wall::now();
  const Micros v0 = sim.now();
  uint64_t tid = 0x4D430000;
  for (size_t i = 0; i < cas.size(); ++i) {
    const PortRef p = cas[i];
    const wire::Gid gid = wire::Gid::from_parts(config.subnet_prefix, topo.node(p.node).port(p.port).guid.value);
    // Its own port (no SM_Key needed), or a proxy join with the SM_Key.
    const bool own = args.senders == 0 && i != 0;
    SimPort& from = *clients[own ? i - 1 : i % senders];
    if (!from.send(join_mad(mgid, gid, ++tid, own ? 0 : config.sm_key, sm_lid)).ok()) die("a join was not sent");
  }

  // Each client reads its answers as they arrive (its service runs while the
  // SM waits on its MFT Sets), so the time of the last answer is when it came.
  size_t answered = 0, refused = 0;
  Micros v_last_answer = v0;
  auto collect = [&](SimPort& c) {
    while (auto a = c.receive()) {
      auto h = wire::decode_mad_header(a->data);
      if (!h.ok() || h->method != wire::method::get_resp) continue;
      ++answered;
      refused += h->status != 0 ? 1 : 0;
      v_last_answer = sim.now();
    }
  };
  for (SimPort* c : clients) c->set_service([&collect, c] { collect(*c); });
  double in_poll = 0;  // wall seconds inside SubnetManager::poll
  // Until every join is answered and no change waits to be programmed.
  for (size_t guard = 0; guard < 10'000'000; ++guard) {
    const auto p0 = Wall::now();
    sm.poll(sim.now());
    in_poll += seconds_since(p0);
    for (SimPort* c : clients) collect(*c);
    if (answered == cas.size() && sm.next_deadline() > sim.now()) break;
    Micros next = sm.next_deadline();
    if (auto d = sim.next_delivery(); d && *d > sim.now()) next = std::min(next, *d);
    sim.step(std::max<Micros>(next - sim.now(), 1));
  }
  const double wall = seconds_since(t0);
  const Micros v_done = rounds.empty() ? v0 : rounds.back().at;

  // The storm's MADs: what the SM sent (dispatcher), what the fabric took in.
  const DispatcherStats& after = sm.dispatcher().stats();
  std::map<uint32_t, uint64_t> sent;
  for (const auto& [kind, n] : after.sent_by_kind) {
    auto it = before.sent_by_kind.find(kind);
    sent[kind] = n - (it == before.sent_by_kind.end() ? 0 : it->second);
  }
  const SimCounters& sc = sim.counters();
  const uint64_t mft_sets = sum_kinds(sc.received_by_kind, wire::smp_attr::multicast_forwarding_table, wire::method::set);
  const uint64_t mft_gets = sum_kinds(sc.received_by_kind, wire::smp_attr::multicast_forwarding_table, wire::method::get);
  const uint64_t sa_answers = sc.received(wire::mgmt_class::subn_adm, wire::method::get_resp, wire::sa_attr::mc_member_record);
  uint64_t blocks = 0, removal_blocks = 0, switches = 0;
  for (const Round& r : rounds) {
    blocks += r.update.programming.blocks_sent;
    removal_blocks += r.update.programming.removal_blocks_sent;
    switches += r.update.programming.switches_changed;
  }

  std::printf("storm: %zu joins to %s (MLID 0x%04x) from %zu client ports%s\n", cas.size(),
              "ff12:401b:ffff::ffff:ffff", unsigned{mlid.value}, clients.size(),
              args.senders == 0 ? " (each CA its own; the SM's port by proxy with the SM_Key)"
                                : " (proxy joins with the SM_Key)");
  std::printf("  answered %zu (%zu refused); wall %.3f s: %.0f joins/s (SM processing and the simulated fabric; "
              "%.3f s inside SubnetManager::poll)\n",
              answered, refused, wall, static_cast<double>(cas.size()) / wall, in_poll);
  std::printf("  virtual time from the first join: last answer %.3f ms, every member reachable (last MFT Set answered) "
              "%.3f ms\n",
              static_cast<double>(v_last_answer - v0) / 1e3, static_cast<double>(v_done - v0) / 1e3);
  std::printf("  programming rounds: %zu; MFT blocks set %llu (removal phase %llu), switches changed %llu (sum over "
              "rounds)\n",
              rounds.size(), static_cast<unsigned long long>(blocks), static_cast<unsigned long long>(removal_blocks),
              static_cast<unsigned long long>(switches));
  for (size_t i = 0; i < rounds.size(); ++i)
    if (i < 8 || i + 2 >= rounds.size())
      std::printf("    round %zu at +%.3f ms: %zu members, %llu blocks set\n", i + 1,
                  static_cast<double>(rounds[i].at - v0) / 1e3, rounds[i].members,
                  static_cast<unsigned long long>(rounds[i].update.programming.blocks_sent));
    else if (i == 8)
      std::printf("    ...\n");
  std::printf("  MADs: SM sent %llu (%llu MFT Sets, %llu MFT Gets seen by the fabric, %llu MCMemberRecord answers), "
              "retries %llu, timeouts %llu; fabric took in %llu in all\n",
              static_cast<unsigned long long>(after.sent - before.sent), static_cast<unsigned long long>(mft_sets),
              static_cast<unsigned long long>(mft_gets), static_cast<unsigned long long>(sa_answers),
              static_cast<unsigned long long>(after.retries - before.retries),
              static_cast<unsigned long long>(after.timeouts - before.timeouts),
              static_cast<unsigned long long>(sc.mads_in));
  for (const auto& [kind, n] : sent)
    if (n > 0)
      std::printf("    SM requests class 0x%02x method 0x%02x attr 0x%04x: %llu\n", kind >> 24, (kind >> 16) & 0xFF,
                  kind & 0xFFFF, static_cast<unsigned long long>(n));
  std::printf("  peak RSS %ld MiB before the storm, %ld MiB after\n", rss_before, peak_rss_mib());

  // Judged: the SA's members, and what the switches hold.
  bool ok = answered == cas.size() && refused == 0;
  const sa::McGroup* g = sm.sa().multicast().find(mgid);
  const size_t members = g ? g->members.size() : 0;
  ok = ok && members == cas.size();
  MulticastGroupMembers want{mlid, {}};
  for (const PortRef& p : cas)
    if (auto in = subnet.fabric.find_by_port_guid(topo.node(p.node).port(p.port).guid)) want.members.push_back(*in);
  const auto t_check = Wall::now();
  const routing::MulticastCheck check = routing::check_multicast(
      subnet.fabric, test::held_mfts(sim, subnet.fabric), std::span<const MulticastGroupMembers>(&want, 1),
      routing::MulticastCheckOptions{.max_sources = args.check_sources});
  ok = ok && check.ok() && check.floods == (args.check_sources == 0 ? cas.size() : std::min(args.check_sources, cas.size()));
  std::printf("verify: SA members %zu of %zu; switches' MFTs: %s (%s, %.2f s): %s\n", members,
              cas.size(), check.to_string().c_str(), args.check_sources == 0 ? "every member flooded" : "some members flooded",
              seconds_since(t_check), ok ? "OK" : "WRONG");
  return ok ? 0 : 1;
}
