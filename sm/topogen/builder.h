// Assembles a generated fabric with deterministic identities, so generators
// only decide the wiring:
//   switch i (in creation order): node GUID 0x0002c90300000000 + i, and every
//     switch port carries it (IBA 14.2.5.6: switch ports share port 0's GUID);
//   CA i: node GUID 0x0002c90400000000 + i * 0x100, port n's GUID = node GUID + n
//     (the 0x100 stride leaves room for 254 ports), named host-<i>;
//   system image GUID = node GUID; NodeDescription = the name, which is also
//     what ibsim answers for NodeDescription, so SimFabric and ibsim agree.
// Cabled ports get the link's width and speed and come up as a fresh fabric
// without an SM does: LinkUp, Initialize; free ports stay Down, Polling, and
// switch port 0 is Active (as the netfile reader and ibsim start them).
#pragma once

#include <cstdint>
#include <string>

#include "mad/base/status.h"
#include "sm/fabric/fabric.h"
#include "sm/topogen/generators.h"

namespace ibsm::topogen {

inline constexpr uint64_t kSwitchGuidBase = 0x0002c90300000000ULL;
inline constexpr uint64_t kCaGuidBase = 0x0002c90400000000ULL;
inline constexpr uint64_t kCaGuidStride = 0x100;
inline constexpr uint32_t kVendorId = 0x0002c9;
inline constexpr uint16_t kSwitchDeviceId = 0xc738;
inline constexpr uint16_t kCaDeviceId = 0x1003;

class FabricBuilder {
 public:
  explicit FabricBuilder(const LinkOptions& link) : link_(link) {}

  // Both return an invalid index after an error; the error is kept and
  // returned by finish(), so generators need not check every call.
  NodeIndex add_switch(std::string name, unsigned ports);
  NodeIndex add_host(unsigned ports = 1);
  void connect(NodeIndex a, unsigned port_a, NodeIndex b, unsigned port_b);

  const Fabric& fabric() const { return fabric_; }
  // The fabric, or the first error met while building it.
  Result<Fabric> finish() &&;

 private:
  NodeIndex add(NodeType type, std::string name, unsigned ports, uint64_t guid);

  LinkOptions link_;
  Fabric fabric_;
  uint64_t switches_ = 0;
  uint64_t hosts_ = 0;
  Status error_;
};

}  // namespace ibsm::topogen
