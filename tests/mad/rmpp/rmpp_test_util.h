// Test helpers for RMPP: SA response headers, a deterministic PRNG, and a
// lossy link that drops, duplicates and reorders MADs in virtual time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <vector>

#include "mad/rmpp/segments.h"
#include "mad/transport.h"
#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/rmpp.h"
#include "mad/wire/sa_header.h"

namespace ibsm::rmpp::testing {

// splitmix64: the same numbers on every platform and library.
class Prng {
 public:
  explicit Prng(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
  bool chance(uint32_t per_mille) { return below(1000) < per_mille; }
  std::vector<uint8_t> bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(next());
    return v;
  }

 private:
  uint64_t state_;
};

// The first 56 bytes of a SubnAdmGetTableResp: common header and SA header.
inline wire::MadBuffer sa_response_header(uint64_t tid, uint16_t attr_id = wire::sa_attr::node_record,
                                          uint16_t attr_offset = 14) {
  wire::MadBuffer mad{};
  wire::MadHeader h{.mgmt_class = wire::mgmt_class::subn_adm,
                    .class_version = wire::sa_class_version,
                    .method = wire::method::get_table_resp,
                    .tid = tid,
                    .attr_id = attr_id};
  wire::encode(h, mad);
  wire::encode(wire::SaHeader{.sm_key = 0, .attr_offset = attr_offset, .component_mask = 0x5}, mad);
  return mad;
}

inline wire::RmppHeader rmpp_of(const MadPacket& p) {
  auto r = wire::decode_rmpp_header(p.data);
  return r.ok() ? *r : wire::RmppHeader{};
}
inline wire::RmppHeader rmpp_of(const wire::MadBuffer& m) {
  auto r = wire::decode_rmpp_header(m);
  return r.ok() ? *r : wire::RmppHeader{};
}

struct LinkFaults {
  uint32_t drop = 0;     // per mille of MADs lost
  uint32_t dup = 0;      // per mille delivered twice
  uint32_t reorder = 0;  // per mille delayed by up to `jitter`, overtaken by later ones
};

// MADs in flight between side A and side B, delivered at virtual times.
class LossyLink {
 public:
  LossyLink(LinkFaults faults, uint64_t seed, Micros latency = 10, Micros jitter = 60)
      : faults_(faults), prng_(seed), latency_(latency), jitter_(jitter) {}

  void send(const MadPacket& p, bool to_b, Micros now) {
    ++sent_;
    if (prng_.chance(faults_.drop)) {
      ++dropped_;
      return;
    }
    push(p, to_b, now);
    if (prng_.chance(faults_.dup)) push(p, to_b, now);
  }
  std::optional<Micros> next_time() const {
    if (queue_.empty()) return std::nullopt;
    return std::min_element(queue_.begin(), queue_.end(), earlier)->at;
  }
  struct Delivery {
    Micros at;
    uint64_t seq;
    bool to_b;
    MadPacket packet;
  };
  // The earliest MAD due at `now`, if any.
  std::optional<Delivery> pop_due(Micros now) {
    if (queue_.empty()) return std::nullopt;
    auto it = std::min_element(queue_.begin(), queue_.end(), earlier);
    if (it->at > now) return std::nullopt;
    Delivery d = *it;
    queue_.erase(it);
    return d;
  }
  bool empty() const { return queue_.empty(); }
  uint64_t sent() const { return sent_; }
  uint64_t dropped() const { return dropped_; }

 private:
  static bool earlier(const Delivery& a, const Delivery& b) { return a.at != b.at ? a.at < b.at : a.seq < b.seq; }
  void push(const MadPacket& p, bool to_b, Micros now) {
    Micros at = now + latency_;
    if (prng_.chance(faults_.reorder)) at += 1 + static_cast<Micros>(prng_.below(static_cast<uint64_t>(jitter_)));
    queue_.push_back({at, seq_++, to_b, p});
  }

  LinkFaults faults_;
  Prng prng_;
  Micros latency_;
  Micros jitter_;
  std::deque<Delivery> queue_;
  uint64_t seq_ = 0;
  uint64_t sent_ = 0;
  uint64_t dropped_ = 0;
};

}  // namespace ibsm::rmpp::testing
