// Master election (IBA 14.4.1): which SM should be master, decided from the
// SMInfo of every SM the sweep found. Pure functions of what was read, so the
// rules can be tested without a fabric; the SubnetManager acts on them.
//
// The spec's ranking: the higher priority wins, and at equal priority the
// lower port GUID. An SM that is NOT ACTIVE takes no part.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "mad/base/types.h"
#include "mad/wire/sm_info.h"
#include "sm/fabric/fabric.h"

namespace ibsm {

// Another SM of the subnet, as this SM's sweep found and read it.
struct RemoteSm {
  Guid port_guid;
  NodeIndex node;
  uint8_t port = 0;
  DrPath path;   // directed route into its port (discovery's path_into)
  Lid lid;       // its port's LID as discovered
  wire::SmInfo info;
};

// True when an SM with (priority_a, guid_a) outranks one with (priority_b, guid_b).
bool outranks(uint8_t priority_a, Guid guid_a, uint8_t priority_b, Guid guid_b);
bool outranks(const wire::SmInfo& a, const wire::SmInfo& b);

enum class Verdict : uint8_t {
  become_master,  // DISCOVERING: nobody outranks us and there is no master
  stay_master,    // MASTER: nobody we must yield to
  follow,         // DISCOVERING: go STANDBY and poll `peer`
  hand_over,      // MASTER: send HANDOVER to `peer` and go STANDBY on its ACKNOWLEDGE
};
const char* verdict_name(Verdict v);

struct Election {
  Verdict verdict = Verdict::become_master;
  std::optional<RemoteSm> peer;
};

// An SM in DISCOVERING that found `others`: a master, if there is one (the
// best ranked if several), is followed whatever its priority: the master
// hands over to us itself when we outrank it (IBA 14.4.1.2). With no master,
// the best ranked SM that outranks us and is not NOT ACTIVE is followed, and
// otherwise we become master.
Election elect_while_discovering(const wire::SmInfo& self, const std::vector<RemoteSm>& others);

// An SM in MASTER that found `others`: it yields to the best ranked SM that
// outranks it and is MASTER (two masters: the lower steps down) or STANDBY
// (a higher SM joined). One in DISCOVERING is left to finish: it will find
// us, go STANDBY, and get the mastership then.
Election elect_while_master(const wire::SmInfo& self, const std::vector<RemoteSm>& others);

}  // namespace ibsm
