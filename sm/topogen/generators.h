// Topology generators: synthetic fabrics for tests, benchmarks and ibsim.
// Every generator validates its parameters (invalid_argument with a message
// naming the parameter), is deterministic for the same parameters and seed,
// and names its nodes readably ("leaf-3", "spine-0", "sw-1-2-0", "host-17";
// the NodeDescription equals the name). GUIDs are explicit, so a written
// netfile describes itself: see builder.h.
//
// Port layout: on every switch the host ports come first (1..hosts), then the
// switch-to-switch ports in the order each generator documents.
#pragma once

#include <cstdint>
#include <vector>

#include "mad/base/status.h"
#include "sm/fabric/fabric.h"

namespace ibsm::topogen {

// Width and speed of every generated link, in PortInfo encodings (fabric.h).
struct LinkOptions {
  uint8_t width = link_width::x4;
  uint8_t speed = link_speed::qdr;
  uint8_t speed_ext = link_speed_ext::none;
};

// What a generator would build, computed without building it.
struct SizeEstimate {
  uint64_t switches = 0;
  uint64_t cas = 0;
  uint64_t links = 0;         // all cables
  uint64_t switch_links = 0;  // cables between two switches
  uint64_t ca_ports = 0;      // endpoint ports (each needs a LID at LMC 0)
  uint64_t switch_ports = 0;  // physical switch ports, cabled or not
  uint64_t nodes() const { return switches + cas; }
  // Unicast LIDs needed at LMC 0: one per switch (port 0) and per CA port.
  uint64_t lids_needed() const { return switches + ca_ports; }
};

// Largest switch a generator builds (IBA: ports 1..254).
inline constexpr unsigned kMaxSwitchPorts = 254;
// Refuse to build more nodes than this; a mistyped parameter should fail
// fast instead of eating the machine's memory.
inline constexpr uint64_t kMaxNodes = 1u << 20;

// Two-level leaf/spine (folded Clos). Leaf ports: hosts, then for each spine
// s its links_per_pair ports. Spine ports: for each leaf l its links.
struct LeafSpineParams {
  uint32_t leaves = 4;
  uint32_t spines = 2;
  uint32_t hosts_per_leaf = 4;
  uint32_t links_per_pair = 1;
  uint32_t radix = 0;  // ports on every switch; 0 = the fewest that fit
  LinkOptions link;
};
Result<SizeEstimate> estimate(const LeafSpineParams& p);
Result<Fabric> leaf_spine(const LeafSpineParams& p);

// Extended generalized fat tree XGFT(h; m1..mh; w1..wh) (Öhring et al.):
// down[i-1] = m_i children per level-i switch (m_1 = hosts per leaf),
// up[i-1] = w_i parents per level-(i-1) node (w_1 = ports per host).
// Hosts = prod m_i; level i has prod_{j>i} m_j * prod_{j<=i} w_j switches.
// Fewer parents than children slims the tree (oversubscription).
// Switch ports: the m_i down ports first, then the w_{i+1} up ports.
// Levels are named leaf, agg (agg<i> when there are several), spine.
struct XgftParams {
  std::vector<uint32_t> down;
  std::vector<uint32_t> up;
  uint32_t radix = 0;  // ports on every switch; 0 = the most any level needs
  LinkOptions link;
};
Result<SizeEstimate> estimate(const XgftParams& p);
Result<Fabric> xgft(const XgftParams& p);

// k-ary n-tree (Petrini and Vanneschi): k^n hosts, n levels of k^(n-1)
// switches with 2k ports; the XGFT(n; k..k; 1,k..k).
struct KaryNTreeParams {
  uint32_t k = 4;
  uint32_t n = 3;
  LinkOptions link;
};
XgftParams to_xgft(const KaryNTreeParams& p);
Result<SizeEstimate> estimate(const KaryNTreeParams& p);
Result<Fabric> kary_ntree(const KaryNTreeParams& p);

// 1D to 3D mesh or torus of switches named sw-x[-y[-z]]. Switch ports: hosts,
// then per dimension d a "+" port (hosts+1+2d) and a "-" port (hosts+2+2d);
// a "+" port cables to the neighbour's "-" port. A torus wraps every
// dimension (a size-2 dimension then has two parallel cables).
struct MeshParams {
  std::vector<uint32_t> dims = {4, 4};
  bool torus = false;
  uint32_t hosts_per_switch = 1;
  LinkOptions link;
};
Result<SizeEstimate> estimate(const MeshParams& p);
Result<Fabric> mesh(const MeshParams& p);

// Hypercube of 2^dimension switches named sw-<i>; port hosts+1+b joins the
// neighbour whose index differs in bit b (the same port on both ends).
struct HypercubeParams {
  uint32_t dimension = 4;
  uint32_t hosts_per_switch = 1;
  LinkOptions link;
};
Result<SizeEstimate> estimate(const HypercubeParams& p);
Result<Fabric> hypercube(const HypercubeParams& p);

// Dragonfly (Kim et al.): g groups of a routers named sw-<group>-<router>,
// all-to-all inside a group, p hosts and h global ports per router. Global
// cables are spread evenly over group pairs: every pair gets
// floor(a*h/(g-1)) or one more, so every pair is joined when a*h >= g-1.
// Router ports: hosts, then a-1 local ports (in peer order), then h global.
struct DragonflyParams {
  uint32_t a = 4;  // routers per group
  uint32_t p = 2;  // hosts per router
  uint32_t h = 2;  // global ports per router
  uint32_t g = 9;  // groups
  LinkOptions link;
};
Result<SizeEstimate> estimate(const DragonflyParams& p);
Result<Fabric> dragonfly(const DragonflyParams& p);

// Random regular graph of switches named sw-<i>: every switch has `degree`
// switch neighbours, no self-loops, no parallel cables, connected. Built from
// a circulant graph shuffled by degree-preserving edge swaps drawn from the
// seed; swapping continues from the same stream until it is connected.
struct RandomRegularParams {
  uint32_t switches = 16;
  uint32_t degree = 4;
  uint32_t hosts_per_switch = 1;
  uint64_t seed = 1;
  LinkOptions link;
};
Result<SizeEstimate> estimate(const RandomRegularParams& p);
Result<Fabric> random_regular(const RandomRegularParams& p);

// Two single-port CAs cabled to each other, no switch.
struct BackToBackParams {
  LinkOptions link;
};
Result<SizeEstimate> estimate(const BackToBackParams& p);
Result<Fabric> back_to_back(const BackToBackParams& p);

}  // namespace ibsm::topogen
