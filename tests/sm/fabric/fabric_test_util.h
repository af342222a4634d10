// Helpers shared by the fabric tests: read topology text or a fixture file.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sm/fabric/netfile_reader.h"

namespace ibsm::test {

// Built by appending: GCC 12 at -O1 flags `std::string(x) + "..." + name`
// with a false -Warray-bounds.
inline std::string fixture_path(const std::string& name) {
  std::string path = IBSM_TEST_DATA;
  path += "/netfiles/";
  path += name;
  return path;
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline Result<Fabric> parse_text(const std::string& text, const std::string& source = "net.bad",
                                 const NetfileOptions& options = {}) {
  std::istringstream in(text);
  return read_netfile(in, source, options);
}

// The fabric of a text that must parse.
inline Fabric load_text(const std::string& text, const std::string& source = "net.test",
                        const NetfileOptions& options = {}) {
  Result<Fabric> f = parse_text(text, source, options);
  INFO(f.status().message());
  REQUIRE(f.ok());
  return std::move(f).value();
}

inline Fabric load_fixture(const std::string& name) { return load_text(slurp(fixture_path(name)), name); }

// The error message of a text that must not parse.
inline std::string parse_error(const std::string& text, const NetfileOptions& options = {}) {
  Result<Fabric> f = parse_text(text, "net.bad", options);
  REQUIRE_FALSE(f.ok());
  return f.status().message();
}

inline const Node& node_named(const Fabric& f, const std::string& name) {
  auto i = f.find_by_name(name);
  INFO(name);
  REQUIRE(i.has_value());
  return f.node(*i);
}

}  // namespace ibsm::test
