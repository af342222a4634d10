// Fault injection for the simulated fabric, like ibsim's console `Error`
// command but deterministic: each drop decision draws from a seeded PRNG, so
// the same seed and the same traffic drop the same MADs.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace ibsm::sim {

// SplitMix64: small, fast, and good enough to pick which MADs to drop.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed = 0) : state_(seed) {}
  uint64_t next();
  // Uniform in [0, 1).
  double next_unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t state_;
};

class SimFaults {
 public:
  // Drop `fraction` (0..1) of the SMPs node `node` would answer; overrides the
  // fabric-wide rate for that node. The node's own stream starts from `seed`.
  void set_drop_rate(uint32_t node, double fraction, uint64_t seed);
  void set_drop_rate_all(double fraction, uint64_t seed);
  // Drop every SMP with this attribute the node would answer (ibsim's
  // `Error "node" 100 <attr>`).
  void set_drop_attribute(uint32_t node, uint16_t attr, bool drop);
  // The node's SMA answers nothing and forwards no directed-route SMP.
  void set_unresponsive(uint32_t node, bool unresponsive);
  void clear();

  bool unresponsive(uint32_t node) const;
  // Whether the SMA of `node` loses this SMP instead of answering it. Draws
  // from the node's stream (or the fabric-wide one) when a rate applies.
  bool drop_answer(uint32_t node, uint16_t attr);

 private:
  struct NodeFaults {
    bool has_rate = false;
    bool unresponsive = false;
    double rate = 0;
    SplitMix64 rng;
    std::vector<uint16_t> attributes;
  };

  std::unordered_map<uint32_t, NodeFaults> nodes_;
  double all_rate_ = 0;
  SplitMix64 all_rng_;
};

}  // namespace ibsm::sim
