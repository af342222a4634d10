// The tools' AsideRunner (mad/base/aside_runner.h): each job on a thread
// of its own, joined when waited for (or when the last copy of the waiter
// goes, so no thread outlives what it reads by accident). The jobs are
// large (a route check, a search toward 64 destination switches: 60 of them
// route 4k switches): a thread per job costs nothing beside them.
#pragma once

#include "mad/base/aside_runner.h"

namespace ibsm {

AsideRunner thread_aside_runner();

}  // namespace ibsm
