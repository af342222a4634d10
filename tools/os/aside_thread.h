// The daemon's AsideRunner (sm/sweep/aside_runner.h): each job on a thread
// of its own, joined when waited for (or when the last copy of the waiter
// goes, so no thread outlives what it reads by accident). One job a heavy
// sweep, the route check: a thread per job costs nothing beside it.
#pragma once

#include "sm/sweep/aside_runner.h"

namespace ibsm {

AsideRunner thread_aside_runner();

}  // namespace ibsm
