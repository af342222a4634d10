#include "sm/config/listen_address.h"

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm {

bool ListenAddress::loopback() const {
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

Result<std::optional<ListenAddress>> parse_listen_address(std::string_view text) {
  if (text.empty() || text == "off") return std::optional<ListenAddress>();
  ListenAddress a;
  std::string_view port;
  if (text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return invalid_argument_error(fmt::format("'{}' is not [IPV6]:PORT", text));
    a.host = std::string(text.substr(1, close - 1));
    port = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || text.find(':') != colon)
      return invalid_argument_error(fmt::format("'{}' is not ADDRESS:PORT (an IPv6 address goes in brackets)", text));
    a.host = std::string(text.substr(0, colon));
    port = text.substr(colon + 1);
  }
  if (a.host.empty()) return invalid_argument_error(fmt::format("'{}' has no address", text));
  const auto n = parse_unsigned(port, Notation::decimal, 65535);
  if (!n)
    return invalid_argument_error(fmt::format("'{}' is not a port number 0-65535", port));
  a.port = static_cast<uint16_t>(*n);
  return std::optional<ListenAddress>(std::move(a));
}

}  // namespace ibsm
