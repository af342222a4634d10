// Reads the QoS policy file the config names (qos_policy_file), for the
// daemon at start and at SIGHUP: the parsing is the core's
// (sm/fabric/qos_policy.h), the file is the edge's.
#pragma once

#include <memory>

#include "mad/base/status.h"
#include "sm/config/sm_config.h"
#include "sm/fabric/qos_policy.h"

namespace ibsm {

// Null when qos is FALSE (OpenSM reads no policy then), the path is empty,
// or the file is absent at the default path. A file named otherwise must be
// there; a bad one is an error naming file:line and the problem.
Result<std::shared_ptr<const QosPolicy>> load_qos_policy(const SmConfig& config);

}  // namespace ibsm
