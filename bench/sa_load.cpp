// SA load client (not a test): PathRecord Gets by SLID+DLID between random
// LIDs, several in flight at once, sent through libibumad (so through
// umad2sim to an SA on ibsim: ibsm's or OpenSM's) for a fixed time; prints
// how many were answered. bench/sa_vs_opensm.sh runs several side by side.
//
// Usage: sa_load --lids LO-HI [--seconds S] [--inflight N] [--seed X] [--timeout-ms T]
// Prints: "answered A errors E timeouts T seconds S qps Q".
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "mad/umad/umad_transport.h"
#include "mad/wire/constants.h"
#include "mad/wire/sa/path_record.h"
#include "bench/sa_call_window.h"
#include "sa/client.h"
#include "tools/os/steady_clock.h"

using namespace ibsm;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "sa_load: %s\n", why.c_str());
  std::exit(2);
}

struct Args {
  uint16_t lo = 1, hi = 1;
  double seconds = 5;
  size_t inflight = 8;
  uint64_t seed = 1;
  Micros timeout = 1'000'000;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) die("missing value after " + k);
    const char* v = argv[++i];
    if (k == "--lids") {
      if (std::sscanf(v, "%hu-%hu", &a.lo, &a.hi) != 2 || a.lo == 0 || a.hi < a.lo) die("--lids LO-HI");
    } else if (k == "--seconds") {
      a.seconds = std::atof(v);
    } else if (k == "--inflight") {
      a.inflight = std::strtoul(v, nullptr, 10);
    } else if (k == "--seed") {
      a.seed = std::strtoull(v, nullptr, 0);
    } else if (k == "--timeout-ms") {
      a.timeout = static_cast<Micros>(std::strtoull(v, nullptr, 10)) * 1000;
    } else {
      die("unknown option " + k);
    }
  }
  if (a.inflight == 0 || a.inflight > 512) die("--inflight 1-512");
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  auto port = UmadTransport::open(UmadOptions{});
  if (!port.ok()) die(port.status().message());
  const Lid sm_lid = (*port)->local_port().sm_lid;
  if (sm_lid.value == 0) die("the local port knows no SM");
  const MadAddress sa = sa::sa_address(sm_lid);
  SteadyClock clock;
  std::mt19937_64 rng(args.seed);
  const auto span = static_cast<uint64_t>(args.hi - args.lo + 1);
  auto random_lid = [&] { return Lid{static_cast<uint16_t>(args.lo + rng() % span)}; };
  constexpr uint64_t kDlid = 1u << 4, kSlid = 1u << 5;  // PathRecord components (IBA 15.2.5.16)

  sa::SaClientOptions copts;
  copts.timeout = args.timeout;
  copts.retries = 0;  // a lost query counts as a timeout, not a slow answer
  const uint32_t first_tid = static_cast<uint32_t>(rng() & 0xFFFF) << 16 | 1;
  const Micros start = clock.now();
  const Micros end = start + static_cast<Micros>(args.seconds * 1e6);
  // PathRecord Gets between random LIDs until the time is up.
  auto next_query = [&]() -> std::optional<sa::SaRequest> {
    if (clock.now() >= end) return std::nullopt;
    sa::SaRequest req;
    req.method = wire::method::get;
    req.attribute = wire::sa_attr::path_record;
    req.component_mask = kSlid | kDlid;
    wire::PathRecord t;
    t.slid = random_lid();
    t.dlid = random_lid();
    req.data.assign(wire::sa_record_size::path, 0);
    wire::encode(t, req.data);
    return req;
  };
  const bench::CallCounts n = bench::run_call_window(**port, clock, sa, copts, args.inflight, first_tid, next_query);
  const uint64_t answered = n.answered, errors = n.errors, timeouts = n.timeouts;
  const double seconds = static_cast<double>(clock.now() - start) / 1e6;
  std::printf("answered %llu errors %llu timeouts %llu seconds %.3f qps %.0f\n",
              static_cast<unsigned long long>(answered), static_cast<unsigned long long>(errors),
              static_cast<unsigned long long>(timeouts), seconds, static_cast<double>(answered) / seconds);
  return 0;
}
