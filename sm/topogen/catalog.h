// The generators by name, with their parameters as text: one table that the
// `ibsm topo` command, tests and fixtures share, so a fabric can be asked for
// as "torus dims=4,4,4 hosts=2" without knowing the parameter structs.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mad/base/status.h"
#include "sm/fabric/fabric.h"
#include "sm/topogen/generators.h"

namespace ibsm::topogen {

enum class ParamType : uint8_t {
  count,  // unsigned 32-bit number
  list,   // comma-separated counts: "32,32,48"
  seed,   // unsigned 64-bit number
  width,  // 1x 2x 4x 8x 12x
  speed,  // SDR DDR QDR FDR EDR HDR NDR
};

struct ParamSpec {
  const char* name;
  ParamType type;
  const char* default_value;
  const char* help;
};

struct Example {
  const char* args;  // what follows "ibsm topo"
  const char* what;
};

// Parameter values of one kind, parsed and with defaults filled in.
struct ParamValues {
  std::map<std::string, std::vector<uint64_t>, std::less<>> numbers;
  LinkOptions link;

  // Values of parameters the kind declares; asking for another is a bug.
  uint32_t count(std::string_view name) const;
  uint64_t seed(std::string_view name) const;
  std::vector<uint32_t> list(std::string_view name) const;
};

// name=value pairs as given on a command line, in order.
using ParamArgs = std::vector<std::pair<std::string, std::string>>;

struct KindSpec {
  const char* name;
  const char* summary;
  std::span<const ParamSpec> params;
  std::span<const Example> examples;
  Result<SizeEstimate> (*estimate)(const ParamValues&);
  Result<Fabric> (*build)(const ParamValues&);
};

// Every kind, in the order help lists them.
std::span<const KindSpec> kinds();
const KindSpec* find_kind(std::string_view name);
// Parameters every kind takes: the link width and speed.
std::span<const ParamSpec> link_params();

// Checks names and values against the kind's table and fills in defaults.
// Unknown names, malformed numbers and repeated names are invalid_argument.
Result<ParamValues> parse_params(const KindSpec& kind, const ParamArgs& given);

// find_kind + parse_params + build (or estimate).
Result<Fabric> generate(std::string_view kind, const ParamArgs& given);
Result<SizeEstimate> estimate(std::string_view kind, const ParamArgs& given);

}  // namespace ibsm::topogen
