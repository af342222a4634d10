// What the SM writes into each port's PortInfo (IBA 14.2.5.6) during a sweep,
// computed from what the port holds now, so that a Set is sent only when
// something differs. Pure functions: the sweep decides when to send.
#pragma once

#include <cstdint>
#include <optional>

#include "mad/base/types.h"
#include "mad/wire/port_info.h"

namespace ibsm {

// Subnet-wide settings every port gets (OpenSM's defaults where it has one).
struct SubnetSettings {
  uint64_t subnet_prefix = 0xfe80000000000000ULL;
  Lid sm_lid;
  uint8_t sm_sl = 0;
  uint8_t subnet_timeout = 18;     // 4.096 us * 2^18 ~ 1 s (OpenSM's subnet_timeout)
  uint8_t max_op_vls = 5;          // OpenSM's max_op_vls: VL0-14 where both ends can
  uint8_t max_neighbor_mtu = 5;    // 4096 bytes; the ends' common cap decides
  uint8_t head_of_queue_life = 0x12;  // switch external ports (OpenSM's head_of_queue_lifetime)
  uint8_t vl_stall_count = 7;         // switch external ports
  // M_Key (IBA 14.2.4), OpenSM's m_key, m_key_protection_level and
  // m_key_lease_period (seconds; 0: the lease never runs out): what every
  // end port and switch port 0 gets (switch external ports have no M_Key),
  // when m_key is not 0 or the port holds a key.
  uint64_t m_key = 0;
  uint8_t m_key_protect_bits = 0;
  uint16_t m_key_lease_period = 0;
};

// The addressing a port should end up with.
struct PortAddress {
  Lid base_lid;
  uint8_t lmc = 0;
};

// What the peer at the other end of the cable can do (unset: no peer).
struct PeerCaps {
  uint8_t mtu_cap = 0;
  uint8_t vl_cap = 0;
};

// The PortInfo fields the SM manages (the ones port_info_update compares).
// Not every SMA keeps all of them (ibsim forgets SubnetTimeout, the GID
// prefix and NeighborMTU), so the sweep remembers, per port, what it asked
// for and what the port then held, and does not ask again for what the port
// evidently will not keep.
struct ManagedPortFields {
  uint16_t lid = 0;
  uint8_t lmc = 0;
  uint16_t master_sm_lid = 0;
  uint8_t master_sm_sl = 0;
  uint64_t gid_prefix = 0;
  uint8_t subnet_timeout = 0;
  uint8_t hoq_life = 0;
  uint8_t vl_stall_count = 0;
  uint8_t neighbor_mtu = 0;
  uint8_t operational_vls = 0;
  bool partition_enforcement_inbound = false;
  bool partition_enforcement_outbound = false;
  // Last, so the positional initialisations of the fields above (the SM
  // cache's reader) stay as they were; the cache does not keep it.
  uint8_t vl_high_limit = 0;
  bool operator==(const ManagedPortFields&) const = default;
};

// PortInfo:PartitionEnforcementInbound/Outbound of a switch port facing an
// end port (IBA 14.2.5.6), as the partition plan wants them.
struct PortEnforcement {
  bool inbound = false;
  bool outbound = false;
  bool operator==(const PortEnforcement&) const = default;
};
ManagedPortFields managed_fields(const wire::PortInfo& info);

// The M_Key fields the SM manages (IBA 14.2.4), kept apart from the others:
// the cache does not hold keys.
struct MKeyFields {
  uint64_t m_key = 0;
  uint8_t protect_bits = 0;
  uint16_t lease_period = 0;
  bool operator==(const MKeyFields&) const = default;
};
MKeyFields m_key_fields(const wire::PortInfo& info);

// The PortInfo to Set so `current` ends up configured for the subnet, or
// nullopt when it already is. `is_switch_port0` for a switch's management port,
// `is_switch_external` for its ports 1..N (which carry no LID of their own),
// `enforcement` for those of them the partition plan filters (unset: left
// as they are). Every field a Set may leave alone is set to its "no change"
// code (link width/speed enables, port state, physical state, link-down
// default). `vl_high_limit`: PortInfo:VLHighLimit as the QoS setup wants it
// (sm/sweep/vl_programming.h; unset: left as it is).
std::optional<wire::PortInfo> port_info_update(const wire::PortInfo& current, const SubnetSettings& subnet,
                                               const PortAddress& address, std::optional<PeerCaps> peer,
                                               bool is_switch_external,
                                               std::optional<PortEnforcement> enforcement = std::nullopt,
                                               std::optional<uint8_t> vl_high_limit = std::nullopt);

// A PortInfo Set that moves the port to `state` (ARMED or ACTIVE) and changes
// nothing else: the configured values of `configured` written back unchanged.
wire::PortInfo port_state_change(const wire::PortInfo& configured, PortState state);

// A PortInfo Set that changes only PortPhysicalState (IBA 14.2.5.6: the SM
// may write Disabled, which takes the link down and keeps it down, or
// Polling, which lets a disabled port train again), writing back the rest of
// `current` as the port holds it.
wire::PortInfo port_phys_state_change(const wire::PortInfo& current, PhysState phys);

}  // namespace ibsm
