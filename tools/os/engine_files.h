// Reads the files the routing engines take (updn's root GUID file, the file
// engine's LFT dump) into the EngineSettings the core uses: the core opens no
// files. Shared by `ibsm run` and `ibsm route`.
#pragma once

#include <string>

#include "mad/base/status.h"
#include "routing/registry.h"

namespace ibsm {

// Either path may be empty (not configured). Errors name the file and line.
Result<routing::EngineSettings> load_engine_files(const std::string& root_guid_file, const std::string& lfts_file);

// torus-2QoS's torus-2QoS.conf (torus_config) into `settings`. A missing
// file is no error unless `must_exist` (named explicitly rather than the
// default path): torus-2QoS then finds the torus from the cables alone. A bad
// line is an error naming the file and line.
Status load_torus_config(const std::string& path, bool must_exist, routing::EngineSettings& settings);

}  // namespace ibsm
