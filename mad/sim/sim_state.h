// What the SMAs of a simulated fabric remember: per port what PortInfo
// reports, per switch SwitchInfo and its forwarding tables, and the P_Key,
// SL-to-VL and VL arbitration tables (stored only once written: until then
// every port has the same defaults). Kept compact, because a 48k-endpoint
// fabric has some 350k ports: a port is one small struct, an LFT grows only as
// far as it is written.
//
// The initial values are ibsim 0.10's, read with smpquery from a running
// ibsim: cabled ports start Init/LinkUp, free ports Down/Polling, a switch's
// port 0 Active; LIDs come from the topology (0 unless the netfile set them).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "mad/base/types.h"
#include "mad/sim/sim_options.h"
#include "sm/fabric/fabric.h"

namespace ibsm::sim {

inline constexpr uint32_t no_node = UINT32_MAX;

// ibsim 0.10's SMA constants (facts measured with smpquery, see sim_state.cpp).
namespace defaults {
inline constexpr uint16_t ca_partition_cap = 64;        // NodeInfo:PartitionCap of a CA
inline constexpr uint16_t switch_partition_cap = 8;     // NodeInfo:PartitionCap of a switch (port 0's table)
inline constexpr uint16_t switch_enforcement_cap = 64;  // SwitchInfo:PartitionEnforcementCap (external ports' tables)
inline constexpr uint8_t vl_arbitration_cap = 8;        // VLArbitrationHighCap and LowCap
inline constexpr uint8_t ca_guid_cap = 32;
inline constexpr uint8_t switch_guid_cap = 1;
}  // namespace defaults

// PortRecord::flags.
namespace port_flag {
inline constexpr uint8_t client_reregister = 1 << 0;
inline constexpr uint8_t partition_enforcement_inbound = 1 << 1;
inline constexpr uint8_t partition_enforcement_outbound = 1 << 2;
inline constexpr uint8_t filter_raw_inbound = 1 << 3;
inline constexpr uint8_t filter_raw_outbound = 1 << 4;
inline constexpr uint8_t is_sm = 1 << 5;      // a client at this port runs an SM (CapabilityMask:IsSM)
inline constexpr uint8_t unplugged = 1 << 6;  // fault injection: the cable is pulled
}  // namespace port_flag

// One port of one node; a CA's port 0 exists but is never used.
struct PortRecord {
  uint64_t m_key = 0;
  uint64_t gid_prefix = 0;
  std::array<uint8_t, 8> sl2vl{};  // CA and router ports: SLtoVLMappingTable as on the wire
  uint32_t peer_node = no_node;    // the cable's other end; stays while the link is down
  uint16_t lid = 0;
  uint16_t master_sm_lid = 0;
  uint16_t m_key_lease_period = 0;
  uint16_t m_key_violations = 0;  // PortInfo:M_KeyViolations (IBA 14.2.4.1), saturating
  PortState state = PortState::down;
  PhysState phys_state = PhysState::polling;
  uint8_t peer_port = 0;
  uint8_t lmc = 0;
  uint8_t master_sm_sl = 0;
  uint8_t m_key_protect_bits = 0;
  uint8_t link_down_default_state = 2;  // Polling
  uint8_t neighbor_mtu = 4;             // 2048
  uint8_t operational_vls = 4;          // VL0-7
  uint8_t width_enabled = 0;
  uint8_t width_active = 0;
  uint8_t speed_enabled = 0;
  uint8_t speed_active = 0;
  uint8_t speed_ext_enabled = 0;
  uint8_t speed_ext_active = 0;
  uint8_t hoq_life = 0;
  uint8_t vl_high_limit = 0;
  uint8_t vl_stall_count = 0;
  uint8_t subnet_timeout = 0;
  uint8_t init_type = 0;
  uint8_t flags = 0;

  bool cabled() const { return peer_node != no_node; }
  bool link_up() const { return phys_state == PhysState::link_up && state != PortState::down; }
  bool has(uint8_t flag) const { return (flags & flag) != 0; }
  void set(uint8_t flag, bool on) { flags = static_cast<uint8_t>(on ? (flags | flag) : (flags & ~flag)); }
  // Does LID `dlid` address this port (its base LID and the 2^LMC after it)?
  bool answers_lid(uint16_t dlid) const {
    return lid != 0 && dlid >= lid && uint32_t{dlid} < uint32_t{lid} + (1u << lmc);
  }
};

struct NodeRecord {
  uint32_t first_port = 0;  // index of port 0 in the port table
  uint32_t switch_index = no_node;
  NodeType type = NodeType::unknown;
  uint8_t num_ports = 0;
  bool is_switch() const { return type == NodeType::switch_; }
};

struct SwitchRecord {
  uint16_t linear_fdb_top = 0;
  uint8_t life_time_value = 0;
  bool port_state_change = false;
  uint16_t multicast_fdb_top = 0xBFFF;  // with SimOptions::multicast_fdb_top only
  std::vector<uint8_t> lft;    // output port per LID; grown lazily, missing entries are 0xFF
  std::vector<uint8_t> mft;    // 64-byte blocks, index (block * positions + position)
  std::vector<uint8_t> sl2vl;  // 8 bytes per (input port, output port); empty until written
};

// What made a link change, which decides who notices (IBA 14.2.5.4:
// PortStateChange is not set for a change the SM made through Set on this
// switch; ibsim sends traps only for cabling changes).
enum class LinkCause : uint8_t { fault, sm_set };

class SimState {
 public:
  SimState(Fabric topology, const SimOptions& options);

  const Fabric& topology() const { return topology_; }
  const SimOptions& options() const { return options_; }
  size_t node_count() const { return nodes_.size(); }
  const NodeRecord& node(uint32_t n) const { return nodes_[n]; }
  const Node& topo_node(uint32_t n) const { return topology_.node(NodeIndex{n}); }
  uint32_t port_index(uint32_t n, uint8_t p) const { return nodes_[n].first_port + p; }
  PortRecord& port(uint32_t n, uint8_t p) { return ports_[port_index(n, p)]; }
  const PortRecord& port(uint32_t n, uint8_t p) const { return ports_[port_index(n, p)]; }
  SwitchRecord* switch_of(uint32_t n);
  const SwitchRecord* switch_of(uint32_t n) const;
  // The port whose PortInfo carries a node's LID: port 0 of a switch.
  // GUIDs as NodeInfo reports them (a switch's ports all carry its node GUID).
  Guid port_guid(uint32_t n, uint8_t p) const;

  // The output port for `lid` at switch `n`; 0xFF when there is none.
  uint8_t lft_port(uint32_t n, uint16_t lid) const;

  // Tables on the wire, stored on first write.
  size_t p_key_capacity(uint32_t n, uint8_t p) const;  // entries
  std::span<const uint8_t> p_key_table(uint32_t n, uint8_t p) const;  // 2 bytes per entry
  std::span<uint8_t> p_key_table_for_write(uint32_t n, uint8_t p);
  std::span<const uint8_t> vl_arbitration(uint32_t n, uint8_t p, bool high) const;  // 2 bytes per entry
  std::span<uint8_t> vl_arbitration_for_write(uint32_t n, uint8_t p, bool high);
  std::span<const uint8_t, 8> sl_to_vl(uint32_t n, uint8_t in_port, uint8_t out_port) const;
  std::span<uint8_t, 8> sl_to_vl_for_write(uint32_t n, uint8_t in_port, uint8_t out_port);
  static uint8_t mft_positions(uint8_t num_ports) { return static_cast<uint8_t>(num_ports / 16 + 1); }

  // The link state machine (IBA 7.2, 5.x). A link trains when it is cabled,
  // plugged and neither end is Disabled; it then comes up Init/LinkUp at both
  // ends. Going down leaves both ends Down, a Disabled end Disabled and the
  // other Polling.
  bool can_train(uint32_t n, uint8_t p) const;
  void link_down(uint32_t n, uint8_t p, LinkCause cause);
  void link_up(uint32_t n, uint8_t p, LinkCause cause);
  // Switches whose ports changed state through a fault since the last call,
  // in order and without repeats: the ones that owe their SM a trap 128.
  std::vector<uint32_t> take_trap_sources();

  // The M_Key lease timer of a port (IBA 14.2.4.2): when its protection bits
  // fall back to 0 unless a request with the right M_Key comes first. Kept
  // aside, for the few ports whose timer runs. nullopt: not running.
  std::optional<Micros> m_key_lease_end(uint32_t n, uint8_t p) const;
  void set_m_key_lease_end(uint32_t n, uint8_t p, std::optional<Micros> end);

 private:
  void note_change(uint32_t n, bool local, LinkCause cause);

  Fabric topology_;
  SimOptions options_;
  std::vector<NodeRecord> nodes_;
  std::vector<PortRecord> ports_;
  std::vector<SwitchRecord> switches_;
  std::unordered_map<uint32_t, std::vector<uint8_t>> p_keys_;     // by port index
  std::unordered_map<uint32_t, std::array<uint8_t, 32>> vl_arb_;  // low then high, by port index
  std::vector<uint32_t> trap_sources_;
  std::unordered_map<uint32_t, Micros> m_key_lease_ends_;  // by port index
};

}  // namespace ibsm::sim
