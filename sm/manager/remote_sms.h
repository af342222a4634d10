// Finds the other SMs of the subnet in what discovery read: every port whose
// PortInfo:CapabilityMask has IsSM (IBA 14.2.5.6), other than our own, and
// reads its SMInfo (IBA 14.2.5.13) over a directed route into that port. A
// port that claims IsSM but does not answer SMInfo (an SM process that died
// without its port noticing, as under ibsim) is left out: it cannot be
// master, and waiting long for it would only delay the election.
#pragma once

#include <vector>

#include "mad/base/log.h"
#include "mad/dispatcher.h"
#include "mad/wire/sm_info.h"
#include "sm/discovery/discovery.h"
#include "sm/manager/election.h"

namespace ibsm {

// The ports discovery found with IsSM set, but ours (`self`); their
// RemoteSm::info is not read yet.
std::vector<RemoteSm> sm_ports(const DiscoveryResult& discovery, Guid self);

// Reads the SMInfo of `ports` and returns the ones that answered, with it.
// Blocks until every Get is answered or has failed. `self` goes in the Gets'
// data: its SM_Key lets an SM that shares it answer with its own. Each Get
// is tried twice, except at `presumed_dead` (the master a standby just gave
// up on): once, so a takeover is not held up by the SM it replaces.
std::vector<RemoteSm> read_sm_infos(MadDispatcher& dispatcher, const std::vector<RemoteSm>& ports,
                                    const wire::SmInfo& self, Guid presumed_dead = {},
                                    LogSink& log = null_log_sink());

}  // namespace ibsm
