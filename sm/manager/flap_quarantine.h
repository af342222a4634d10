// Flap quarantine: a link that goes down too often is held down by the SM.
//
// Each heavy sweep that configured the subnet is compared with the one
// before: a link the earlier had and the later lacks was lost once. A link
// lost `threshold` times within `window` is quarantined: the SM sets
// PortPhysicalState Disabled on one of its switch ports (IBA 14.2.5.6: the
// SM may write Disabled, which takes the link down and keeps it down until
// it writes Polling). Disabled, rather than keeping the port out of ACTIVE,
// because a port held in INIT still trains, flaps and traps: only a
// disabled port stops the storm. The port held is the switch end the SM
// reaches over fewer hops, so reaching it again (to release it) never
// crosses the bad link; a link at the SM's own node is never held (that
// would cut the SM off). While held, the port is reported (a sweep problem
// of kind `quarantined`, which does not keep the subnet from being up: the
// link is down because the SM wants it so) and, if it is found up again
// (someone re-enabled it), disabled again. It is released by the operator
// (`ibsm ctl release`) or when `hold` has passed, by writing Polling: the
// link trains again and the next sweep brings it to ACTIVE.
//
// Flaps that come and go between two sweeps are not seen: the count is a
// lower bound, as it is for any SM that learns of links by sweeping.
// Pure bookkeeping: the manager sends the SMPs.
#pragma once

#include <compare>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/clock.h"
#include "mad/base/status.h"
#include "mad/base/types.h"
#include "sm/fabric/subnet_snapshot.h"
#include "sm/sweep/sweep_problem.h"

namespace ibsm {

struct FlapQuarantineOptions {
  uint32_t threshold = 10;       // link losses within `window` that quarantine it (0: never)
  Micros window = 60'000'000;
  Micros hold = 600'000'000;     // 0: held until the operator releases it
};

// One end of a link, by what survives a sweep: node GUID and port number.
struct PortKey {
  Guid node;
  PortNum port;
  auto operator<=>(const PortKey&) const = default;
};

struct QuarantinedPort {
  PortKey port;              // the switch port held down
  std::string description;   // its node's NodeDescription
  PortKey peer;              // what it was cabled to
  std::string peer_description;
  uint32_t losses = 0;       // link losses counted within the window when it was quarantined
  Micros since = 0;
  std::optional<Micros> until;  // when the hold ends (nullopt: until released)
};

class FlapQuarantine {
 public:
  explicit FlapQuarantine(FlapQuarantineOptions options = {}) : options_(options) {}
  void set_options(FlapQuarantineOptions options) { options_ = options; }
  const FlapQuarantineOptions& options() const { return options_; }

  // After a heavy sweep: the links `before` had and `after` lacks are
  // counted; returns the ports to disable now: those quarantined by this
  // sweep and held ones `after` found up again.
  std::vector<PortKey> observe(const SubnetSnapshot* before, const SubnetSnapshot& after, Micros now);
  // Held ports whose hold has run out by `now`: no longer held, to be set
  // back to Polling.
  std::vector<QuarantinedPort> take_expired(Micros now);
  std::optional<Micros> next_deadline() const;
  // The operator's release: the port is no longer held (not_found if it
  // was not), and its link's count starts again.
  Result<QuarantinedPort> release(PortKey port);

  bool is_held(PortKey port) const { return held_.count(port) != 0; }
  const std::map<PortKey, QuarantinedPort>& held() const { return held_; }
  uint64_t quarantined_total() const { return quarantined_total_; }
  // One `quarantined` problem per held port, for the sweep's report.
  std::vector<SweepProblem> problems() const;

 private:
  bool involves_held(PortKey a, PortKey b) const;
  FlapQuarantineOptions options_;
  // By the link's lower end: when it was lost, within the window.
  std::map<PortKey, std::deque<Micros>> losses_;
  std::map<PortKey, QuarantinedPort> held_;
  uint64_t quarantined_total_ = 0;
};

// "port 3 of 0x0002c90300000001 ("leaf-0")": log lines and problems.
std::string describe_port(PortKey port, const std::string& description);

}  // namespace ibsm
