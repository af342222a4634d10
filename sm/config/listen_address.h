// ADDRESS:PORT of a listening socket, as config keys give it (metrics_listen):
// "127.0.0.1:9464", "[::1]:9464", "0.0.0.0:9464", "localhost:9464"; empty
// or "off" for none. Parsing only: binding is the edge's job.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "mad/base/status.h"

namespace ibsm {

struct ListenAddress {
  std::string host;  // without the brackets of an IPv6 address
  uint16_t port = 0; // 0: any free port (tests)
  // 127.0.0.0/8, ::1 or "localhost": only this host can connect.
  bool loopback() const;
  bool operator==(const ListenAddress&) const = default;
};

// nullopt for "" and "off" (disabled); an error names what is wrong.
Result<std::optional<ListenAddress>> parse_listen_address(std::string_view text);

}  // namespace ibsm
