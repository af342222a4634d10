// Multicast join load client (not a test): joins the ports whose GUIDs a file
// lists to one multicast group as full members, several MCMemberRecord Sets
// in flight at once, through libibumad (so through umad2sim to the SA on
// ibsim: ibsm's or OpenSM's). Every join but the local port's own is a proxy
// join and carries the SM_Key: ibsm trusts proxy joins only with it
// (sa/mc_member_records.h); OpenSM takes them from any port that shares the
// group's partition and ignores the key. bench/multicast_vs_opensm.sh runs
// several side by side, each with its share of the fabric's ports.
//
// The request selects what Linux IPoIB selects to join an existing broadcast
// group: MGID, PortGID, P_Key and JoinState (IBA 15.2.5.17).
//
// Usage: mc_join_load --guids FILE [--mgid GID] [--inflight N] [--smkey KEY]
//                     [--timeout-ms T] [--retries R]
// Prints: "joins J answered A errors E timeouts T seconds S joins/s Q".
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "mad/umad/umad_transport.h"
#include "mad/wire/constants.h"
#include "mad/wire/gid_text.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/sa/mc_member_record.h"
#include "bench/sa_call_window.h"
#include "sa/client.h"
#include "tools/os/steady_clock.h"

using namespace ibsm;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "mc_join_load: %s\n", why.c_str());
  std::exit(2);
}

struct Args {
  std::string guids;
  std::string mgid = "ff12:401b:ffff::ffff:ffff";  // the default partition's IPoIB broadcast group
  size_t inflight = 16;
  uint64_t sm_key = 1;  // OpenSM's default, and ibsm's
  Micros timeout = 1'000'000;
  int retries = 3;
  uint64_t subnet_prefix = 0xfe80000000000000ULL;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) die("missing value after " + k);
    const char* v = argv[++i];
    if (k == "--guids") a.guids = v;
    else if (k == "--mgid") a.mgid = v;
    else if (k == "--inflight") a.inflight = std::strtoul(v, nullptr, 10);
    else if (k == "--smkey") a.sm_key = std::strtoull(v, nullptr, 0);
    else if (k == "--timeout-ms") a.timeout = static_cast<Micros>(std::strtoull(v, nullptr, 10)) * 1000;
    else if (k == "--retries") a.retries = std::atoi(v);
    else die("unknown option " + k);
  }
  if (a.guids.empty()) die("--guids FILE");
  if (a.inflight == 0 || a.inflight > 512) die("--inflight 1-512");
  return a;
}

std::vector<uint64_t> read_guids(const std::string& path) {
  std::ifstream in(path);
  if (!in) die("cannot read " + path);
  std::vector<uint64_t> out;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(std::strtoull(line.c_str(), nullptr, 16));
  return out;
}


}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  const std::vector<uint64_t> guids = read_guids(args.guids);
  auto mgid = wire::parse_gid(args.mgid);
  if (!mgid.ok()) die("bad --mgid " + args.mgid);
  auto port = UmadTransport::open(UmadOptions{});
  if (!port.ok()) die(port.status().message());
  const LocalPortInfo local = (*port)->local_port();
  if (local.sm_lid.value == 0) die("the local port knows no SM");
  const MadAddress sa = sa::sa_address(local.sm_lid);
  SteadyClock clock;

  sa::SaClientOptions copts;
  copts.timeout = args.timeout;
  copts.retries = args.retries;
  size_t next = 0;
  // One full-member join per GUID, a proxy join (with the SM_Key) for every port but ours.
  auto next_join = [&]() -> std::optional<sa::SaRequest> {
    if (next == guids.size()) return std::nullopt;
    const uint64_t guid = guids[next++];
    sa::SaRequest req = sa::full_member_join(wire::Gid{*mgid}, wire::Gid::from_parts(args.subnet_prefix, guid));
    if (guid != local.port_guid.value) req.sm_key = args.sm_key;
    return req;
  };
  const Micros start = clock.now();
  const bench::CallCounts n = bench::run_call_window(**port, clock, sa, copts, args.inflight,
                                                     static_cast<uint32_t>(local.port_guid.value & 0xFFFF) << 16 | 1,
                                                     next_join);
  const uint64_t answered = n.answered, errors = n.errors, timeouts = n.timeouts;
  const double seconds = static_cast<double>(clock.now() - start) / 1e6;
  std::printf("joins %zu answered %llu errors %llu timeouts %llu seconds %.3f joins/s %.0f\n", guids.size(),
              static_cast<unsigned long long>(answered), static_cast<unsigned long long>(errors),
              static_cast<unsigned long long>(timeouts), seconds, static_cast<double>(answered) / seconds);
  return answered == guids.size() ? 0 : 1;
}
