// OpenSM's torus-2QoS.conf (torus-2QoS.conf(5)), which the torus-2QoS
// engine (routing/torus_2qos.h) reads to know the torus it should find:
//
//   torus|mesh X[m|M|t|T] Y[..] Z[..]   the radix of x, y and z (1: no such
//                                       dimension); the first keyword; a
//                                       suffix makes one dimension a mesh
//                                       (open) or a torus (looped)
//   xp_link|yp_link|zp_link A B         a seed: the cable from switch A to
//   xm_link|ym_link|zm_link A B         switch B (node GUIDs) points in +x,
//                                       -x, ...; every link of a seed starts
//                                       at the same switch, its origin
//   x_dateline|y_dateline|z_dateline N  moves the origin (and the dateline,
//                                       between coordinates radix-1 and 0)
//                                       N switches from the seed's origin
//   next_seed                           the links and datelines after it
//                                       are another seed, tried when a
//                                       switch of the ones before is gone
//   portgroup_max_ports N               parallel cables (and host ports)
//                                       per switch at most; default 16
//
// Blank lines and lines whose first non-blank character is '#' are
// ignored, and so is anything on a line after the tokens a keyword takes.
// The core parses text; reading the file is the tools' job.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"

namespace ibsm::routing {

inline constexpr unsigned kTorusDims = 3;  // x, y, z

struct TorusSeedLink {
  uint8_t dim = 0;        // 0 x, 1 y, 2 z
  bool positive = true;   // xp_link (true) or xm_link
  Guid from;
  Guid to;
};

struct TorusSeed {
  std::vector<TorusSeedLink> links;  // all from the same switch
  std::array<int32_t, kTorusDims> dateline{};
  Guid origin() const { return links.empty() ? Guid{} : links.front().from; }
};

struct TorusConfig {
  std::array<uint32_t, kTorusDims> radix{1, 1, 1};
  std::array<bool, kTorusDims> wraps{};  // per dimension: torus (true) or mesh
  std::vector<TorusSeed> seeds;           // seeds without a link are dropped
  uint32_t portgroup_max_ports = 16;
};

// Parses a torus-2QoS.conf. A bad line is an error naming `source` and the
// line ("torus-2QoS.conf:3: ..."); so is a file without the torus or mesh
// line, and a seed whose links start at different switches.
Result<TorusConfig> parse_torus_config(std::string_view text, std::string_view source);

}  // namespace ibsm::routing
