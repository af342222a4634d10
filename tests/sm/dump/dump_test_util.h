// Helpers shared by the dump tests: the two-switch fixture fabric with its
// LIDs and tables, fixture files, and writers run into strings.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sm/dump/lft_dump.h"
#include "sm/fabric/netfile_reader.h"

namespace ibsm::test {

inline std::string dump_fixture_path(const std::string& name) {
  return std::string(IBSM_TEST_DATA) + "/dumps/" + name;
}

inline std::string read_dump_fixture(const std::string& name) {
  std::ifstream in(dump_fixture_path(name));
  INFO(name);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline Fabric fabric_from_text(const std::string& text) {
  std::istringstream in(text);
  Result<Fabric> f = read_netfile(in, "test.net");
  INFO(f.status().message());
  REQUIRE(f.ok());
  return std::move(f).value();
}

inline NodeIndex index_of(const Fabric& f, const std::string& name) {
  auto i = f.find_by_name(name);
  INFO(name);
  REQUIRE(i.has_value());
  return *i;
}

// Gives switches their port 0 LID and CAs their port 1 LID, LMC `lmc` on CA
// ports, and makes every cabled port ACTIVE: the fabric as the SM leaves it.
inline void bring_up(Fabric& f, const std::map<std::string, uint16_t>& lids, uint8_t lmc = 0) {
  for (const auto& [name, lid] : lids) {
    Node& n = f.node(index_of(f, name));
    Port& p = n.is_switch() ? n.port(0) : n.port(1);
    p.base_lid = Lid{lid};
    p.lmc = n.is_switch() ? 0 : lmc;
  }
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    for (Port& p : f.node(NodeIndex{i}).ports) {
      if (p.connected()) p.state = PortState::active;
    }
  }
}

// tests/data/dumps/two_switch.net with LIDs S1 1, H1 2, S2 3, H2 4.
inline Fabric two_switch_fabric() {
  Fabric f = fabric_from_text(read_dump_fixture("two_switch.net"));
  bring_up(f, {{"S1", 1}, {"H1", 2}, {"S2", 3}, {"H2", 4}});
  return f;
}

// Tables indexed by node: S1 reaches S2 through port 3 and H2 through port 4.
inline std::vector<std::vector<uint8_t>> two_switch_lfts(const Fabric& f) {
  std::vector<std::vector<uint8_t>> lfts(f.node_count());
  lfts[index_of(f, "S1").value] = {0xFF, 0, 1, 3, 4};
  lfts[index_of(f, "S2").value] = {0xFF, 3, 3, 0, 1};
  return lfts;
}

template <typename Writer>
std::string written(Writer&& write) {
  std::ostringstream out;
  write(out);
  return out.str();
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline Result<LftDump> parse_text(const std::string& text, const std::string& source = "lfts.test") {
  std::istringstream in(text);
  return parse_lft_dump(in, source);
}

inline LftDump parse_ok(const std::string& text, const std::string& source = "lfts.test") {
  Result<LftDump> d = parse_text(text, source);
  INFO(d.status().message());
  REQUIRE(d.ok());
  return std::move(d).value();
}

inline std::string parse_error(const std::string& text) {
  Result<LftDump> d = parse_text(text, "lfts.bad");
  REQUIRE_FALSE(d.ok());
  return d.status().message();
}

}  // namespace ibsm::test
