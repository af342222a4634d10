// A small, fully specified PRNG for the generators. std:: distributions are
// implementation-defined and differ between standard libraries, so a topology
// built from a seed would not be the same everywhere; these few lines are.
// Xoshiro256** (Blackman and Vigna), seeded through SplitMix64 as its authors
// recommend so that nearby seeds give unrelated streams.
#pragma once

#include <cstdint>

namespace ibsm::topogen {

class Prng {
 public:
  explicit Prng(uint64_t seed) {
    for (auto& word : s_) word = splitmix64(seed);
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, bound); bound > 0. Rejection sampling keeps it unbiased.
  uint64_t below(uint64_t bound) {
    const uint64_t threshold = (0 - bound) % bound;  // 2^64 mod bound
    for (;;) {
      const uint64_t r = next();
      if (r >= threshold) return r % bound;
    }
  }

  // Advances `state` and returns the next SplitMix64 output.
  static uint64_t splitmix64(uint64_t& state) {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace ibsm::topogen
