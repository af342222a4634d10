// Work the core may let run beside its own. The route check of a fresh
// routing (a second of CPU at 42k LIDs: bench/scale.sh) needs only the tables and the fabric
// the engine routed, and neither changes while the switches and ports are
// programmed, which on a real fabric is mostly waiting on MADs; a routing
// engine's search for the paths of its next 64 destinations reads only the
// graph while the engine routes the current ones. The core starts no
// thread itself: an edge may hand the job to one of its own
// (tools/os/aside_thread.h), and without a runner the job runs at once, in
// place, as in the tests and the embedded build.
#pragma once

#include <functional>

namespace ibsm {

// Starts `job` and returns what waits for it to end (called once, on the
// caller's thread; the job's results are read only after it returns).
using AsideRunner = std::function<std::function<void()>(std::function<void()> job)>;

}  // namespace ibsm
