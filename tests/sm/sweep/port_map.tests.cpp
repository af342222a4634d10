// PortMap: what the SM remembers per port of a node, a vector sorted by
// port that answers as the hash map it replaced did.
#include "sm/sweep/port_map.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace ibsm;

namespace {

std::vector<uint8_t> ports_of(const PortMap<std::string>& m) {
  std::vector<uint8_t> ports;
  for (const auto& [port, value] : m) ports.push_back(port);
  return ports;
}

}  // namespace

TEST_CASE("a port map keeps its entries by port, whatever order they come in", "[sweep][port_map]") {
  PortMap<std::string> m;
  CHECK(m.empty());
  m[7] = "seven";
  m[1] = "one";
  m[36] = "thirty-six";
  m[0] = "zero";
  m[12] = "twelve";
  CHECK(m.size() == 5);
  CHECK(ports_of(m) == std::vector<uint8_t>{0, 1, 7, 12, 36});
  CHECK(m.at(12) == "twelve");
  CHECK(m[7] == "seven");  // an existing entry, not a new one
  CHECK(m.size() == 5);
  CHECK(m.count(36) == 1);
  CHECK(m.count(35) == 0);
  CHECK(m.find(2) == m.end());
  CHECK(m.find(255) == m.end());
  const PortMap<std::string>& read = m;
  REQUIRE(read.find(1) != read.end());
  CHECK(read.find(1)->second == "one");
}

TEST_CASE("a port map forgets a port by number or by position", "[sweep][port_map]") {
  PortMap<std::string> m;
  for (uint8_t p = 1; p <= 5; ++p) m[p] = std::to_string(p);
  CHECK(m.erase(3) == 1);
  CHECK(m.erase(3) == 0);
  m.erase(m.find(1));
  CHECK(ports_of(m) == std::vector<uint8_t>{2, 4, 5});
  m[3] = "back";
  CHECK(ports_of(m) == std::vector<uint8_t>{2, 3, 4, 5});
  CHECK(m.at(3) == "back");
  PortMap<std::string> copy = m;
  CHECK(copy == m);
  copy[255] = "last";
  CHECK(!(copy == m));
  CHECK(ports_of(copy).back() == 255);
}
