// Shared test scaffolding for SimFabric: load a netfile, attach a client with
// a MadDispatcher, and run one SMP to completion.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "mad/dispatcher.h"
#include "mad/sim/sim_fabric.h"
#include "mad/wire/smp.h"
#include "sm/fabric/netfile_reader.h"

namespace ibsm::sim_test {

inline Fabric load_netfile(const std::string& name) {
  const std::string path = std::string(IBSM_TEST_DATA) + "/netfiles/" + name;
  std::ifstream in(path);
  REQUIRE(in.good());
  auto fabric = read_netfile(in, name);
  INFO(fabric.status().to_string());
  REQUIRE(fabric.ok());
  return std::move(fabric).value();
}

inline NodeIndex node_named(const Fabric& f, std::string_view name) {
  auto n = f.find_by_name(name);
  REQUIRE(n.has_value());
  return *n;
}

inline DrPath path(std::string_view text) {
  DrPath p;
  REQUIRE(DrPath::parse(text, p));
  return p;
}

// A client at one port with its own dispatcher, and helpers that submit one
// request and run the dispatcher until it completes.
class Client {
 public:
  Client(SimFabric& fabric, NodeIndex node, uint8_t port, DispatcherOptions options = quick())
      : fabric_(fabric), port_(fabric.attach(node, port)), dispatcher_(port_, fabric.clock(), options) {}

  static DispatcherOptions quick() { return DispatcherOptions{.window = 16, .timeout = 1000, .retries = 0}; }

  Result<MadPacket> run(MadPacket request) {
    std::optional<Result<MadPacket>> result;
    dispatcher_.submit(std::move(request), [&](Result<MadPacket> r) { result = std::move(r); });
    dispatcher_.run_until_idle();
    REQUIRE(result.has_value());
    return std::move(*result);
  }

  static MadPacket dr_request(uint8_t method, uint16_t attr, uint32_t mod, const DrPath& p,
                              std::span<const uint8_t> payload = {}) {
    MadPacket packet;
    packet.data = wire::build_dr_smp(method, attr, mod, 0, p, payload);
    return packet;
  }
  static MadPacket lid_request(uint8_t method, uint16_t attr, uint32_t mod, Lid dlid,
                               std::span<const uint8_t> payload = {}) {
    MadPacket packet;
    packet.data = wire::build_lid_smp(method, attr, mod, 0, payload);
    packet.address.lid = dlid;
    return packet;
  }

  Result<MadPacket> dr_get(uint16_t attr, uint32_t mod, std::string_view p) {
    return run(dr_request(wire::method::get, attr, mod, path(p)));
  }
  Result<MadPacket> dr_set(uint16_t attr, uint32_t mod, std::string_view p, std::span<const uint8_t> payload) {
    return run(dr_request(wire::method::set, attr, mod, path(p), payload));
  }
  Result<MadPacket> lid_get(uint16_t attr, uint32_t mod, Lid dlid) {
    return run(lid_request(wire::method::get, attr, mod, dlid));
  }

  SimPort& port() { return port_; }
  MadDispatcher& dispatcher() { return dispatcher_; }

 private:
  SimFabric& fabric_;
  SimPort& port_;
  MadDispatcher dispatcher_;
};

// The status of an answered SMP, either layout (any class version).
inline uint16_t smp_status(const MadPacket& p) {
  auto smp = wire::decode_smp(p.data);
  REQUIRE(smp.ok());
  return smp->status;
}

template <typename T, typename Decode>
T attribute_of(const MadPacket& p, Decode decode) {
  auto x = decode(wire::smp_data(p.data));
  REQUIRE(x.ok());
  return *x;
}

}  // namespace ibsm::sim_test
