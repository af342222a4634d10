// The registry of routing engines by name. It is filled by one explicit call
// (register_builtin_engines), never by static constructors, so what exists is
// visible in one place and an embedded build links only what it registers.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/aside_runner.h"
#include "mad/base/status.h"
#include "mad/base/types.h"
#include "routing/engine.h"
#include "routing/torus_config.h"
#include "routing/torus_topology.h"
#include "sm/dump/lft_dump.h"

namespace ibsm::routing {

using EngineFactory = std::function<std::unique_ptr<RoutingEngine>()>;

class EngineRegistry {
 public:
  // Fails when the name is empty, already registered, or a chain keyword.
  Status add(std::string name, EngineFactory factory);
  bool contains(std::string_view name) const;
  // A fresh engine, or nullptr for an unknown name.
  std::unique_ptr<RoutingEngine> create(std::string_view name) const;
  // Registered names in registration order.
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::string name;
    EngineFactory factory;
  };
  std::vector<Entry> entries_;  // a handful: a linear search is the simplest map
};

// What the built-in engines take from the configuration, read by the caller
// (the core opens no files).
struct EngineSettings {
  // updn's root switches by node GUID (root_guid_file, -a); empty: automatic.
  std::vector<Guid> updn_roots;
  // The file engine's tables (lfts_file, -U) and the file's name for messages.
  std::shared_ptr<const LftDump> lft_file;
  std::string lft_file_name;
  // torus-2QoS's torus-2QoS.conf (torus_config), parsed; null: torus-2QoS
  // finds the torus from the cables alone.
  std::shared_ptr<const TorusConfig> torus_config;
  // The torus torus-2QoS found last, shared by every copy of these settings
  // (the routings of one SM, sweep after sweep), so a fabric that lost a
  // cable keeps the pristine torus's datelines and SLs (routing/torus_topology.h).
  std::shared_ptr<TorusMemory> torus_memory = std::make_shared<TorusMemory>();
  // The data VLs engines may give paths (RoutingInput::max_vls): max_op_vls
  // as a count of VLs (vls_of_max_op_vls, routing/vl_budget.h).
  uint8_t max_vls = 15;
  // Where the engines may run part of their work beside their own
  // (RoutingInput::aside); empty: in place.
  AsideRunner aside;
};

// Registers every engine built into ibsm (minhop, updn, dnup, ftree, sssp,
// dfsssp, file, dor, torus-2QoS), configured by `settings`. Fails when one of their names is taken
// already, e.g. when called twice.
Status register_builtin_engines(EngineRegistry& registry, const EngineSettings& settings = {});

}  // namespace ibsm::routing
