// The cost of one LFT block Set and its GetResp through SimFabric, the way
// the heavy sweep sends them (SmpIssuer -> MadDispatcher -> SimPort ->
// SimFabric's SMA and back), against copying the block's 64 bytes. A bring-up
// on 42k LIDs sends 2.3M of them; this isolates that path from routing.
//
//   ninja -C build bench_lft_set_path && build/bench/lft_set_path [SETS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "mad/dispatcher.h"
#include "mad/sim/sim_fabric.h"
#include "mad/wire/linear_forwarding_table.h"
#include "sm/fabric/netfile_reader.h"
#include "sm/sweep/smp_issuer.h"

using namespace ibsm;

namespace {

// A CA on port 1 of a switch, the switch two hops away behind another one:
// the DR path of a typical LFT Set in a 3-level fat tree is 2-4 hops.
constexpr const char* kNetfile = R"(
Switch	36 "S1"
[1]	"H1"[1]
[2]	"S2"[1]

Switch	36 "S2"
[1]	"S1"[2]

Hca	1 "H1"
[1]	"S1"[1]
)";

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const size_t sets = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  std::istringstream in(kNetfile);
  auto fabric = read_netfile(in, "bench");
  if (!fabric.ok()) {
    std::fprintf(stderr, "%s\n", fabric.status().to_string().c_str());
    return 1;
  }
  SimOptions options;
  options.linear_fdb_cap = 49152;
  const NodeIndex ca = *fabric->find_by_name("H1");
  SimFabric sim(std::move(fabric).value(), options);
  SimPort& port = sim.attach(ca, 1);
  MadDispatcher d(port, sim.clock());
  size_t failures = 0;
  SmpIssuer smp(d, [&](const SmpSubject&, const DrPath&, const SmpFailure&) { ++failures; });
  smp.set_queue_limit(4096);
  DrPath path;
  if (!DrPath::parse("0,1,2", path)) return 1;
  const Guid guid{0x1234};
  const uint32_t blocks = 49152 / 64;

  // The floor: the 64 bytes copied from a routed table into a switch's.
  std::vector<uint8_t> from(49152, 3), to(49152, 0xFF);
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < sets; ++i) {
    const size_t b = i % blocks;
    std::memcpy(to.data() + b * 64, from.data() + b * 64, 64);
    asm volatile("" : : "r"(to.data()) : "memory");
  }
  const double copy_s = seconds_since(t0);

  wire::LinearForwardingTable block;
  t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < sets; ++i) {
    const uint32_t b = static_cast<uint32_t>(i % blocks);
    std::memcpy(block.ports.data(), from.data() + b * 64, 64);
    smp.set(path, wire::smp_attr::linear_forwarding_table, b, block,
            SmpSubject::lazy("LFT block {0} set on switch {1}", b, guid), {}, [guid, b, &failures] {
              (void)guid;
              (void)b;
              ++failures;
            });
  }
  smp.run();
  const double set_s = seconds_since(t0);
  std::printf("%zu lft block sets: %.3f s, %.0f ns each (64-byte copy %.1f ns); %zu failed, %llu mads in\n", sets,
              set_s, set_s * 1e9 / static_cast<double>(sets), copy_s * 1e9 / static_cast<double>(sets), failures,
              static_cast<unsigned long long>(sim.counters().mads_in));
  return failures == 0 ? 0 : 1;
}
