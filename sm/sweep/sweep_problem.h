// What went wrong with one node or port during a sweep, as a value: its
// kind, the node and port it concerns, and the line the log shows. The rest
// of the fabric is still configured; whether the subnet counts as up, the
// metrics by kind and the status page read the kind, not the text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "mad/base/types.h"

namespace ibsm {

enum class SweepProblemKind : uint8_t {
  unreachable,    // discovery could not read what a path leads to: left out of the subnet
  missing,        // the same, for a node that answered before: the subnet is partial without it
  silent,         // a configuring SMP got no answer at all (every attempt timed out)
  smp_failed,     // a configuring SMP's answer was unreadable or refused (an error status)
  lft_cap,        // the LIDs exceed a switch's LinearFDBCap: its tables are not set
  no_route_in,    // no directed route enters a port, so it cannot be configured
  port_state,     // a port did not take the state it was asked for
  partition_cap,  // a port's P_Keys (or its peer's, to enforce) exceed its capacity
  quarantined,    // a port whose link flapped too often, held down by the SM until released
  vl_cap,         // the routing maps an SL to a VL the port does not run
  m_key_refused,  // a port holds an M_Key the SM does not know (IBA 14.2.4): it is not configured
};
// The number of kinds: keep it naming the last one.
inline constexpr size_t kSweepProblemKinds = static_cast<size_t>(SweepProblemKind::m_key_refused) + 1;

// "unreachable", "smp_failed", ...: metric labels and JSON.
constexpr std::string_view sweep_problem_kind_name(SweepProblemKind kind) {
  switch (kind) {
    case SweepProblemKind::unreachable: return "unreachable";
    case SweepProblemKind::missing: return "missing";
    case SweepProblemKind::silent: return "silent";
    case SweepProblemKind::smp_failed: return "smp_failed";
    case SweepProblemKind::lft_cap: return "lft_cap";
    case SweepProblemKind::no_route_in: return "no_route_in";
    case SweepProblemKind::port_state: return "port_state";
    case SweepProblemKind::partition_cap: return "partition_cap";
    case SweepProblemKind::quarantined: return "quarantined";
    case SweepProblemKind::vl_cap: return "vl_cap";
    case SweepProblemKind::m_key_refused: return "m_key_refused";
  }
  return "unknown";
}

struct SweepProblem {
  SweepProblemKind kind = SweepProblemKind::smp_failed;
  // The node and port concerned, where known: for `unreachable` the port the
  // path left through (what lies beyond did not answer); a zero GUID when
  // even that is unknown.
  Guid node;
  std::optional<PortNum> port;
  std::string text;  // readable, by GUID and port: the log line
  DrPath path;       // where the SMP that failed went (unreachable, silent, smp_failed)

  // An unreachable node is simply not part of the subnet, a port without
  // room for all its P_Keys still works with those that fit, and a
  // quarantined port is down because the SM holds it down: none keeps the
  // rest from being up. Every other problem leaves a port short of its
  // configuration, or (missing) a node the subnet had out of it.
  bool blocks_subnet_up() const {
    return kind != SweepProblemKind::unreachable && kind != SweepProblemKind::partition_cap &&
           kind != SweepProblemKind::quarantined &&
           kind != SweepProblemKind::vl_cap;
  }
};

inline size_t count_problems(std::span<const SweepProblem> problems, SweepProblemKind kind) {
  size_t n = 0;
  for (const SweepProblem& p : problems) n += p.kind == kind ? 1 : 0;
  return n;
}

}  // namespace ibsm

template <>
struct fmt::formatter<ibsm::SweepProblem> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const ibsm::SweepProblem& p, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(p.text, ctx);
  }
};
