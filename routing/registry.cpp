#include "routing/registry.h"

#include <utility>

#include <fmt/format.h>

#include "routing/chain.h"
#include "routing/dor.h"
#include "routing/dfsssp.h"
#include "routing/file_engine.h"
#include "routing/ftree.h"
#include "routing/lash.h"
#include "routing/minhop.h"
#include "routing/sssp.h"
#include "routing/torus_2qos.h"
#include "routing/updn.h"

namespace ibsm::routing {

Status EngineRegistry::add(std::string name, EngineFactory factory) {
  if (name.empty()) return invalid_argument_error("routing engine without a name");
  if (name == kNoFallback) return invalid_argument_error(fmt::format("'{}' is a chain keyword, not an engine", name));
  if (contains(name)) return invalid_argument_error(fmt::format("routing engine '{}' is registered twice", name));
  if (!factory) return invalid_argument_error(fmt::format("routing engine '{}' has no factory", name));
  entries_.push_back({std::move(name), std::move(factory)});
  return {};
}

bool EngineRegistry::contains(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return true;
  }
  return false;
}

std::unique_ptr<RoutingEngine> EngineRegistry::create(std::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return e.factory();
  }
  return nullptr;
}

std::vector<std::string> EngineRegistry::names() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

Status register_builtin_engines(EngineRegistry& registry, const EngineSettings& settings) {
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kMinHopName), [] { return std::make_unique<MinHopEngine>(); }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kUpDnName), [roots = settings.updn_roots] {
    return std::make_unique<UpDnEngine>(UpDnOptions{roots});
  }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kDnUpName), [] { return std::make_unique<DnUpEngine>(); }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kFatTreeName), [] { return std::make_unique<FatTreeEngine>(); }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kSsspName), [] { return std::make_unique<SsspEngine>(); }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kDfssspName), [] { return std::make_unique<DfssspEngine>(); }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kLashName), [] { return std::make_unique<LashEngine>(); }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kFileName), [dump = settings.lft_file, name = settings.lft_file_name] {
    return std::make_unique<FileEngine>(dump, name);
  }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kDorName), [] { return std::make_unique<DorEngine>(); }));
  IBSM_RETURN_IF_ERROR(registry.add(std::string(kTorus2QosName),
                                    [config = settings.torus_config, memory = settings.torus_memory] {
                                      return std::make_unique<Torus2QosEngine>(config, memory);
                                    }));
  return {};
}

}  // namespace ibsm::routing
