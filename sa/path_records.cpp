#include "sa/path_records.h"

#include <algorithm>
#include <array>
#include <span>

#include "mad/wire/constants.h"
#include "mad/wire/sa/multi_path_record.h"
#include "mad/wire/sa/path_record.h"
#include "mad/wire/sa_header.h"
#include "sa/link_rate.h"
#include "sa/qos_paths.h"
#include "sa/partition_access.h"

namespace ibsm::sa {
namespace {

using wire::Component;
using wire::Field;

constexpr int kMaxHops = 64;                 // OpenSM's bound on a traced path
constexpr uint32_t kMultiPathDefaultCap = 127;  // OpenSM's paths per GetMulti without NumbPath
constexpr uint8_t kMaxMtuCode = 5;      // 4096 bytes (IBA 14.2.5.6)

namespace pf = wire::path_record_fields;
constexpr uint64_t pr_bit(const Field& f) { return wire::component_bit(wire::path_record_components, f); }
constexpr uint64_t kServiceIdMsb = pr_bit(pf::service_id_msb);
constexpr uint64_t kServiceIdLsb = pr_bit(pf::service_id_lsb);
constexpr uint64_t kDgid = pr_bit(pf::dgid);
constexpr uint64_t kSgid = pr_bit(pf::sgid);
constexpr uint64_t kDlid = pr_bit(pf::dlid);
constexpr uint64_t kSlid = pr_bit(pf::slid);
constexpr uint64_t kRawTraffic = pr_bit(pf::raw_traffic);
constexpr uint64_t kFlowLabel = pr_bit(pf::flow_label);
constexpr uint64_t kHopLimit = pr_bit(pf::hop_limit);
constexpr uint64_t kTClass = pr_bit(pf::tclass);
constexpr uint64_t kReversible = pr_bit(pf::reversible);
constexpr uint64_t kNumbPath = pr_bit(pf::numb_path);
constexpr uint64_t kPKey = pr_bit(pf::p_key);
constexpr uint64_t kQosClass = pr_bit(pf::qos_class);
constexpr uint64_t kSl = pr_bit(pf::sl);
constexpr uint64_t kMtuSelector = pr_bit(pf::mtu_selector);
constexpr uint64_t kMtu = pr_bit(pf::mtu);
constexpr uint64_t kRateSelector = pr_bit(pf::rate_selector);
constexpr uint64_t kRate = pr_bit(pf::rate);
constexpr uint64_t kPltSelector = pr_bit(pf::packet_life_time_selector);
constexpr uint64_t kPlt = pr_bit(pf::packet_life_time);
constexpr uint64_t kPreference = pr_bit(pf::preference);
// IBA 15.2.5.16 table 207: bits 0..23 in this order.
static_assert(kServiceIdMsb == 1u << 0 && kServiceIdLsb == 1u << 1 && kDgid == 1u << 2 && kSgid == 1u << 3 &&
              kDlid == 1u << 4 && kSlid == 1u << 5 && kRawTraffic == 1u << 6 && kFlowLabel == 1u << 8 &&
              kHopLimit == 1u << 9 && kTClass == 1u << 10 && kReversible == 1u << 11 && kNumbPath == 1u << 12 &&
              kPKey == 1u << 13 && kQosClass == 1u << 14 && kSl == 1u << 15 && kMtuSelector == 1u << 16 &&
              kMtu == 1u << 17 && kRateSelector == 1u << 18 && kRate == 1u << 19 && kPltSelector == 1u << 20 &&
              kPlt == 1u << 21 && kPreference == 1u << 22);
constexpr uint64_t kPathMask = wire::component_mask_of(wire::path_record_components);
constexpr uint64_t kReservedBits = (uint64_t{1} << 7) | (uint64_t{1} << 23);
// Components matched by comparing the computed record (the rest are keys,
// query parameters, the requester's choices or selector-handled).
constexpr uint64_t kComparedAlways = kSl | kPreference | kReservedBits;

namespace mf = wire::multi_path_record_fields;
constexpr uint64_t mpr_bit(const Field& f) { return wire::component_bit(wire::multi_path_record_components, f); }
constexpr uint64_t kMprMask = wire::component_mask_of(wire::multi_path_record_components);
constexpr uint64_t kMprSgidCount = mpr_bit(mf::sgid_count);
constexpr uint64_t kMprDgidCount = mpr_bit(mf::dgid_count);
static_assert(kMprSgidCount == 1u << 19 && kMprDgidCount == 1u << 20);
// MultiPathRecord components that carry over to a PathRecord component.
struct MprToPr {
  uint64_t mpr;
  uint64_t pr;
};
constexpr std::array kMprToPr{
    MprToPr{mpr_bit(mf::raw_traffic), kRawTraffic},
    MprToPr{mpr_bit(mf::flow_label), kFlowLabel},
    MprToPr{mpr_bit(mf::hop_limit), kHopLimit},
    MprToPr{mpr_bit(mf::tclass), kTClass},
    MprToPr{mpr_bit(mf::reversible), kReversible},
    MprToPr{mpr_bit(mf::numb_path), kNumbPath},
    MprToPr{mpr_bit(mf::p_key), kPKey},
    MprToPr{mpr_bit(mf::qos_class), kQosClass},
    MprToPr{mpr_bit(mf::sl), kSl},
    MprToPr{mpr_bit(mf::mtu_selector), kMtuSelector},
    MprToPr{mpr_bit(mf::mtu), kMtu},
    MprToPr{mpr_bit(mf::rate_selector), kRateSelector},
    MprToPr{mpr_bit(mf::rate), kRate},
    MprToPr{mpr_bit(mf::packet_life_time_selector), kPltSelector},
    MprToPr{mpr_bit(mf::packet_life_time), kPlt},
    MprToPr{mpr_bit(mf::service_id_msb), kServiceIdMsb},
    MprToPr{mpr_bit(mf::service_id_lsb), kServiceIdLsb},
};

constexpr size_t kPathSize = wire::sa_record_size::path;

// Where to add answers, and when to stop.
// The most port pairs a GetTable with a wildcard source or destination may
// cover (a million: an all-pairs table of 1,000 ports, 64 MB of records
// without LMC); a bigger one is refused with ERR_NO_RESOURCES.
constexpr uint64_t kMaxWildcardPairs = uint64_t{1} << 20;

class Answers {
 public:
  Answers(bool get, uint32_t cap) : get_(get), cap_(cap) {
    out_.record_size = kPathSize;
    out_.attr_offset = wire::sa_attr_offset_words(kPathSize);
  }
  // A Get needs no more once it has two (that is already too many).
  bool full() const { return get_ ? out_.count > 1 : out_.count >= cap_; }
  uint32_t room() const { return cap_ - static_cast<uint32_t>(std::min<size_t>(out_.count, cap_)); }
  // Space for one more record, zeroed; keep() makes it an answer.
  std::span<uint8_t> next() {
    const size_t stride = size_t{out_.attr_offset} * 8;
    out_.records.resize((out_.count + 1) * stride, 0);
    return std::span<uint8_t>(out_.records).subspan(out_.count * stride, kPathSize);
  }
  void keep() { ++out_.count; }
  void drop() { out_.records.resize(out_.count * size_t{out_.attr_offset} * 8); }

  SaQueryResult finish() {
    if (get_ && out_.count != 1) {
      out_.status = out_.count == 0 ? wire::sa_status::no_records : wire::sa_status::too_many_records;
      out_.count = 0;
      out_.records.clear();
    }
    return std::move(out_);
  }

 private:
  bool get_;
  uint32_t cap_;
  SaQueryResult out_;
};

// A query in PathRecord terms, after validation.
struct PathRequest {
  std::array<uint8_t, kPathSize> bytes{};  // the template as sent (masked compares)
  wire::PathRecord t;                      // the same, decoded
  uint64_t mask = 0;
  uint64_t compared = 0;      // components compared with the computed record
  uint32_t per_pair = UINT32_MAX;  // paths per port pair at most
  bool slid_fixed = false;
  bool dlid_fixed = false;
  // The requesting port: it sees paths only between ports it shares a
  // partition with (OpenSM); null (not known) sees every path.
  const EndPort* requester = nullptr;
};

// One trace in progress, a switch hop per step(): a path and its way back
// are independent walks, and stepping them in turn lets the CPU overlap
// their LFT cache misses (the LFTs of a 10k-port fabric are tens of MB, so
// nearly every hop of a random query is a miss).
class Tracer {
 public:
  Tracer(const SaSnapshot& s, const EndPort& source, const EndPort& destination, Lid dlid)
      : s_(s), dst_(destination), dlid_(dlid.value), to_switch_(destination.ref.port == 0) {
    // End ports on port 0 are switches; CAs' are 1..N.
    const bool from_switch = source.ref.port == 0;
    at_ = source.ref.node;
    if (source.ref == destination.ref) {
      // From a port to itself: nothing crossed; the port's own MTU and rate.
      const wire::PortInfo& pi = s.port_info[at_.value][source.ref.port];
      t_ = TracedPath{0, pi.mtu_cap, from_switch ? s.link(at_, 0).rate : port_rate_code(pi)};
      state_ = State::arrived;
    } else if (from_switch) {
      cross(s.link(at_, 0).mtu, 0);  // the management port's MTUCap; it has no link rate
    } else {
      cross_link(s.link(at_, source.ref.port));
    }
  }

  bool running() const { return state_ == State::running; }
  std::optional<TracedPath> result() const {
    return state_ == State::arrived ? std::optional<TracedPath>(t_) : std::nullopt;
  }

  // At a switch: one hop along its LFT entry for the DLID.
  void step() {
    const std::vector<uint8_t>& lft = s_.lft(at_);
    if (dlid_ >= lft.size()) return fail();
    const uint8_t out = lft[dlid_];
    if (out == 0) {  // delivered to this switch
      if (!to_switch_ || at_ != dst_.ref.node) return fail();
      cross(s_.link(at_, 0).mtu, 0);
      state_ = State::arrived;
      return;
    }
    if (out > s_.link_ports(at_)) return fail();  // kNoRoute (0xFF) included
    cross_link(s_.link(at_, out));
  }

 private:
  enum class State : uint8_t { running, arrived, failed };

  void fail() { state_ = State::failed; }
  void cross(uint8_t mtu, uint8_t rate) {
    if (mtu != 0 && (t_.mtu == 0 || mtu < t_.mtu)) t_.mtu = mtu;
    const uint32_t m = rate_mbps(rate);
    if (m != 0 && m < mbps_) {
      mbps_ = m;
      t_.rate = rate;
    }
  }
  // Crosses a cable; arriving at a CA ends the walk, at the destination or not.
  void cross_link(const PortLink& l) {
    if (!l.usable() || ++t_.hops > kMaxHops) return fail();
    cross(l.mtu, l.rate);
    at_ = NodeIndex{l.remote_node};
    if (!l.remote_is_switch)
      state_ = at_ == dst_.ref.node && l.remote_port == dst_.ref.port ? State::arrived : State::failed;
  }

  const SaSnapshot& s_;
  const EndPort& dst_;
  uint16_t dlid_;
  bool to_switch_;
  NodeIndex at_;
  TracedPath t_;
  uint32_t mbps_ = UINT32_MAX;
  State state_ = State::running;
};

// Applies a selector to `value` (IBA 15.2.5.16 MTUSelector / RateSelector):
// false when the path cannot meet it. `order` maps a code to its magnitude,
// `below` gives the largest code under a limit (0: none).
template <typename Order, typename Below>
bool apply_lowerable(uint8_t selector, uint8_t required, uint8_t& value, Order order, Below below) {
  switch (selector) {
    case wire::sa_selector::greater_than: return order(value) > order(required);
    case wire::sa_selector::less_than:
      if (order(value) >= order(required)) value = below(required);
      return value != 0;
    case wire::sa_selector::exactly:
      if (order(value) < order(required)) return false;
      value = required;
      return true;
    default: return true;  // largest available: the path's own
  }
}

bool apply_packet_life_time(uint8_t selector, uint8_t required, uint8_t value) {
  switch (selector) {
    case wire::sa_selector::greater_than: return value > required;
    case wire::sa_selector::less_than: return value < required;
    case wire::sa_selector::exactly: return value == required;
    default: return true;  // smallest available: the path's own
  }
}

// The path record for one (SLID, DLID) of a port pair, written into `out`
// (64 zeroed bytes); false when there is no such path or it does not match.
bool lid_pair_path(const SaSnapshot& s, const PathRequest& q, const EndPort& src, const EndPort& dst, Lid slid,
                   Lid dlid, uint8_t preference, uint16_t p_key, const QosLevel* level, std::span<uint8_t> out) {
  Tracer there(s, src, dst, dlid), back(s, dst, src, slid);
  while (there.running() || back.running()) {
    if (there.running()) there.step();
    if (back.running()) back.step();
  }
  const auto fwd = there.result();
  if (!fwd) return false;
  const bool reversible = back.result().has_value();
  // Reversible=0 in the mask is "don't care", not "one-way only" (IBA 15.2.5.16).
  if ((q.mask & kReversible) && q.t.reversible && !reversible) return false;

  uint8_t mtu = fwd->mtu;
  uint8_t rate = fwd->rate;
  uint8_t plt = src.ref == dst.ref ? 0 : s.path_packet_life_time;
  uint8_t sl = s.path_sl ? static_cast<uint8_t>(s.path_sl(slid, dlid) & 0x0F) : 0;
  // The QoS policy's level lowers the limits before the selectors judge them.
  if (level != nullptr && src.ref != dst.ref) apply_qos_level(s, *level, sl, mtu, rate, plt);
  if ((q.mask & kMtuSelector) && (q.mask & kMtu) &&
      !apply_lowerable(q.t.mtu_selector, q.t.mtu, mtu, [](uint8_t m) { return uint32_t{m}; },
                       [](uint8_t m) { return static_cast<uint8_t>(m > 1 ? m - 1 : 0); }))
    return false;
  if ((q.mask & kRateSelector) && (q.mask & kRate) &&
      !apply_lowerable(q.t.rate_selector, q.t.rate, rate, rate_mbps, rate_code_below))
    return false;
  if ((q.mask & kPltSelector) && (q.mask & kPlt) &&
      !apply_packet_life_time(q.t.packet_life_time_selector, q.t.packet_life_time, plt))
    return false;

  wire::PathRecord r;
  if (q.mask & kServiceIdMsb) r.service_id |= q.t.service_id & 0xFF00000000000000ULL;
  if (q.mask & kServiceIdLsb) r.service_id |= q.t.service_id & 0x00FFFFFFFFFFFFFFULL;
  r.dgid = wire::Gid::from_parts(s.subnet_prefix, dst.guid.value);
  r.sgid = wire::Gid::from_parts(s.subnet_prefix, src.guid.value);
  r.dlid = dlid;
  r.slid = slid;
  const bool raw = (q.mask & kRawTraffic) && q.t.raw_traffic;
  r.raw_traffic = raw;
  if (q.mask & kFlowLabel) r.flow_label = q.t.flow_label;
  if (q.mask & kHopLimit) r.hop_limit = q.t.hop_limit;
  if (q.mask & kTClass) r.tclass = q.t.tclass;
  r.reversible = reversible;
  r.numb_path = 0;
  r.p_key = raw ? 0 : p_key;
  if (q.mask & kQosClass) r.qos_class = q.t.qos_class;
  r.sl = sl;
  r.mtu_selector = r.rate_selector = r.packet_life_time_selector = wire::sa_selector::exactly;
  r.mtu = mtu;
  r.rate = rate;
  r.packet_life_time = plt;
  r.preference = preference;
  wire::encode(r, out);
  return q.compared == 0 ||
         wire::masked_fields_equal(out, q.bytes, q.compared, std::span<const Component>(wire::path_record_components));
}

// The LIDs of a port a path may use, in order: the one the request names,
// else the port's 2^LMC LIDs; a QoS level with path bits keeps only those.
struct UsableLids {
  std::array<uint16_t, 128> lid{};  // LMC is 3 bits
  uint32_t count = 0;
};
UsableLids usable_lids(const EndPort& port, bool fixed, Lid asked, const QosLevel* level) {
  UsableLids out;
  const uint32_t lo = fixed ? asked.value : port.base_lid.value;
  const uint32_t hi = fixed ? lo : lo + (1u << std::min<uint8_t>(port.lmc, 7)) - 1;
  for (uint32_t l = lo; l <= hi; ++l) {
    const Lid lid{static_cast<uint16_t>(l)};
    if (level == nullptr || qos_level_allows_lid(*level, port, lid)) out.lid[out.count++] = lid.value;
  }
  return out;
}

// Every path between two ports, in OpenSM's order (the header comment).
void port_pair_paths(const SaSnapshot& s, const PathRequest& q, const EndPort& src, const EndPort& dst,
                     Answers& answers) {
  if (src.base_lid.value == 0 || dst.base_lid.value == 0) return;
  // The policy's level for the pair, as the request carries what a rule matches.
  const QosLevel* level = nullptr;
  if (s.qos_policy) {
    QosRequest qr;
    if (q.mask & (kServiceIdMsb | kServiceIdLsb)) qr.service_id = q.t.service_id;
    if (q.mask & kPKey) qr.pkey = q.t.p_key;
    if (q.mask & kQosClass) qr.qos_class = static_cast<uint8_t>(q.t.qos_class);
    level = path_qos_level(s, src, dst, qr);
  }
  // Partitions (IBA 10.9.2, 15.4): the pair shares the asked P_Key, or else
  // the path carries one they share; raw packets carry none. A level's
  // P_Keys narrow both (sa/qos_paths.h).
  const bool raw = (q.mask & kRawTraffic) && q.t.raw_traffic;
  uint16_t p_key = 0;
  if (!raw) {
    if (q.mask & kPKey) {
      if (!ports_share_this_pkey(s, src, dst, q.t.p_key)) return;
      if (level != nullptr && !qos_level_allows_pkey(*level, q.t.p_key)) return;
      p_key = q.t.p_key;
    } else {
      const auto shared = level != nullptr ? qos_level_pkey(s, *level, src, dst) : shared_pkey(s, src, dst);
      if (!shared) return;
      p_key = *shared;
    }
  }
  if (q.requester != nullptr && q.requester != &src &&
      !(ports_share_pkey(s, *q.requester, src) && ports_share_pkey(s, *q.requester, dst)))
    return;
  const UsableLids from = usable_lids(src, q.slid_fixed, q.t.slid, level);
  const UsableLids to = usable_lids(dst, q.dlid_fixed, q.t.dlid, level);
  const uint32_t limit = std::min(q.per_pair, answers.room());
  uint32_t found = 0;
  auto try_pair = [&](uint16_t sl, uint16_t dl, uint8_t preference) {
    std::span<uint8_t> rec = answers.next();
    if (lid_pair_path(s, q, src, dst, Lid{sl}, Lid{dl}, preference, p_key, level, rec)) {
      answers.keep();
      ++found;
    } else {
      answers.drop();
    }
  };
  // Preference 0: both LIDs step together, each path on its own LID pair.
  for (uint32_t i = 0; i < from.count && i < to.count && found < limit && !answers.full(); ++i)
    try_pair(from.lid[i], to.lid[i], 0);
  // Preference 2: the remaining combinations, source major.
  for (uint32_t i = 0; i < from.count && found < limit && !answers.full(); ++i)
    for (uint32_t j = 0; j < to.count && found < limit && !answers.full(); ++j)
      if (i != j) try_pair(from.lid[i], to.lid[j], 2);
}

// Validates what every path query shares; 0 when fine, else the status.
uint16_t check_request(const PathRequest& q) {
  if ((q.mask & kMtuSelector) && (q.mask & kMtu) && (q.t.mtu == 0 || q.t.mtu > kMaxMtuCode))
    return wire::sa_status::req_invalid;
  if ((q.mask & kRateSelector) && (q.mask & kRate) && rate_mbps(q.t.rate) == 0) return wire::sa_status::req_invalid;
  return 0;
}

void finish_request(PathRequest& q) {
  q.compared = q.mask & kComparedAlways;
  if (!(q.mask & kMtuSelector)) q.compared |= q.mask & kMtu;
  if (!(q.mask & kRateSelector)) q.compared |= q.mask & kRate;
  if (!(q.mask & kPltSelector)) q.compared |= q.mask & kPlt;
}

// A P_Key in the template must be one the requester holds: a port asks for
// paths of its own partitions only (OpenSM answers none for the others).
bool p_key_allowed(const SaSnapshot& s, const PathRequest& q) {
  if (!(q.mask & kPKey) || ((q.mask & kRawTraffic) && q.t.raw_traffic)) return true;
  return q.requester == nullptr || port_has_pkey(s, *q.requester, q.t.p_key);
}

SaQueryResult path_record_query(const SaSnapshot& s, const SaQuery& query) {
  const bool get = query.method == wire::method::get;
  if ((query.component_mask & ~kPathMask) != 0) return status_only(wire::sa_status::req_invalid);
  PathRequest q;
  std::copy_n(query.record.begin(), std::min(query.record.size(), kPathSize), q.bytes.begin());
  auto decoded = wire::decode_path_record(q.bytes);
  if (!decoded.ok()) return status_only(wire::sa_status::req_invalid);
  q.t = *decoded;
  q.mask = query.component_mask;
  if (uint16_t st = check_request(q); st != 0) return status_only(st);
  finish_request(q);
  if (get) q.per_pair = 1;  // IBA 1.2 erratum: a Get is NumbPath 1
  else if (q.mask & kNumbPath) q.per_pair = q.t.numb_path;

  Answers answers(get, UINT32_MAX);
  const uint16_t bad_gid = get ? wire::sa_status::no_records : wire::sa_status::req_gid_invalid;

  // Source: SGID, SLID (the same port when both), else the requester.
  const EndPort* src = nullptr;
  if (q.mask & kSgid) {
    src = port_by_gid(s, q.t.sgid);
    if (src == nullptr) return status_only(bad_gid);
  }
  if (q.mask & kSlid) {
    const EndPort* by_lid = s.by_lid(q.t.slid);
    if (by_lid == nullptr || (src != nullptr && by_lid != src)) return answers.finish();
    src = by_lid;
    q.slid_fixed = true;
  }
  q.requester = s.by_lid(query.requester);

  const EndPort* dst = nullptr;
  if (q.mask & kDgid) {
    dst = port_by_gid(s, q.t.dgid);
    if (dst == nullptr) return status_only(bad_gid);
  }
  if (q.mask & kDlid) {
    const EndPort* by_lid = s.by_lid(q.t.dlid);
    if (by_lid == nullptr || (dst != nullptr && by_lid != dst)) return answers.finish();
    dst = by_lid;
    q.dlid_fixed = true;
  }
  if (!p_key_allowed(s, q) || q.per_pair == 0) return answers.finish();

  // No source (or no destination) named: every end port, in port GUID order
  // (OpenSM's "world" query; osmtest -f v compares its first records with
  // those of a query from the lowest port). Bounded: beyond
  // kMaxWildcardPairs pairs the answer is ERR_NO_RESOURCES, not gigabytes.
  const std::span<const EndPort> all(s.endports);
  const std::span<const EndPort> sources = src != nullptr ? std::span<const EndPort>(src, 1) : all;
  const std::span<const EndPort> destinations = dst != nullptr ? std::span<const EndPort>(dst, 1) : all;
  if (!get && (src == nullptr || dst == nullptr) && uint64_t{sources.size()} * destinations.size() > kMaxWildcardPairs)
    return status_only(wire::sa_status::no_resources);
  for (const EndPort& from : sources) {
    for (const EndPort& to : destinations) {
      if (answers.full()) return answers.finish();
      port_pair_paths(s, q, from, to, answers);
    }
  }
  return answers.finish();
}

SaQueryResult multi_path_query(const SaSnapshot& s, const SaQuery& query) {
  const uint64_t mask = query.component_mask;
  if ((mask & ~kMprMask) != 0) return status_only(wire::sa_status::req_invalid);
  // SGIDCount and DGIDCount are required components (IBA 15.2.5.16), and
  // ServiceID is one component split in two: half of it is not enough.
  // OpenSM answers both with ERR_INSUFFICIENT_COMPONENTS too.
  constexpr uint64_t kMprServiceId = mpr_bit(mf::service_id_msb) | mpr_bit(mf::service_id_lsb);
  if ((mask & (kMprSgidCount | kMprDgidCount)) != (kMprSgidCount | kMprDgidCount) ||
      ((mask & kMprServiceId) != 0 && (mask & kMprServiceId) != kMprServiceId))
    return status_only(wire::sa_status::req_insufficient_components);
  const std::span<const uint8_t> rec = query.record;
  constexpr size_t fixed = wire::sa_record_size::multi_path_fixed;
  if (rec.size() < fixed) return status_only(wire::sa_status::req_invalid);
  // Counts given but zero, or more GIDs than the record carries: invalid.
  const size_t n_src = wire::get_field(rec, mf::sgid_count);
  const size_t n_dst = wire::get_field(rec, mf::dgid_count);
  if (n_src == 0 || n_dst == 0 || rec.size() < fixed + 16 * (n_src + n_dst))
    return status_only(wire::sa_status::req_invalid);
  // A masked reserved component must be zero, as in any template.
  for (const Component& c : wire::multi_path_record_components)
    if ((mask & (uint64_t{1} << c.bit)) && c.field.name == "Reserved" && wire::get_field(rec, c.field) != 0)
      return status_only(wire::sa_status::req_invalid);

  // The fixed part as a PathRecord template and mask.
  PathRequest q;
  for (const MprToPr& m : kMprToPr)
    if (mask & m.mpr) q.mask |= m.pr;
  wire::PathRecord& t = q.t;
  t.raw_traffic = wire::get_field(rec, mf::raw_traffic) != 0;
  t.flow_label = static_cast<uint32_t>(wire::get_field(rec, mf::flow_label));
  t.hop_limit = static_cast<uint8_t>(wire::get_field(rec, mf::hop_limit));
  t.tclass = static_cast<uint8_t>(wire::get_field(rec, mf::tclass));
  t.reversible = wire::get_field(rec, mf::reversible) != 0;
  t.numb_path = static_cast<uint8_t>(wire::get_field(rec, mf::numb_path));
  t.p_key = static_cast<uint16_t>(wire::get_field(rec, mf::p_key));
  t.qos_class = static_cast<uint16_t>(wire::get_field(rec, mf::qos_class));
  t.sl = static_cast<uint8_t>(wire::get_field(rec, mf::sl));
  t.mtu_selector = static_cast<uint8_t>(wire::get_field(rec, mf::mtu_selector));
  t.mtu = static_cast<uint8_t>(wire::get_field(rec, mf::mtu));
  t.rate_selector = static_cast<uint8_t>(wire::get_field(rec, mf::rate_selector));
  t.rate = static_cast<uint8_t>(wire::get_field(rec, mf::rate));
  t.packet_life_time_selector = static_cast<uint8_t>(wire::get_field(rec, mf::packet_life_time_selector));
  t.packet_life_time = static_cast<uint8_t>(wire::get_field(rec, mf::packet_life_time));
  t.service_id = (wire::get_field(rec, mf::service_id_msb) << 56) | wire::get_field(rec, mf::service_id_lsb);
  wire::encode(t, q.bytes);
  if (uint16_t st = check_request(q); st != 0) return status_only(st);
  finish_request(q);
  const uint32_t cap = (q.mask & kNumbPath) ? t.numb_path : kMultiPathDefaultCap;

  // Every GID must name a port of this subnet (multicast ones do not).
  auto port_at = [&](size_t i) {
    return port_by_gid(s, wire::get_gid(rec, mf::gid(i)));
  };
  for (size_t i = 0; i < n_src + n_dst; ++i)
    if (port_at(i) == nullptr) return status_only(wire::sa_status::req_gid_invalid);

  Answers answers(false, cap);
  q.requester = s.by_lid(query.requester);
  if (!p_key_allowed(s, q) || cap == 0) return answers.finish();
  for (size_t i = 0; i < n_src && !answers.full(); ++i)
    for (size_t j = 0; j < n_dst && !answers.full(); ++j)
      port_pair_paths(s, q, *port_at(i), *port_at(n_src + j), answers);
  return answers.finish();
}

}  // namespace

std::optional<TracedPath> trace_path(const SaSnapshot& s, const EndPort& source, const EndPort& destination,
                                     Lid dlid) {
  Tracer t(s, source, destination, dlid);
  while (t.running()) t.step();
  return t.result();
}

bool is_path_attribute(uint16_t attribute) {
  return attribute == wire::sa_attr::path_record || attribute == wire::sa_attr::multi_path_record;
}

SaQueryResult run_path_query(const SaSnapshot& snapshot, const SaQuery& query) {
  if (!is_path_attribute(query.attribute)) {
    SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
    r.outcome = SaQueryOutcome::unsupported_attribute;
    return r;
  }
  const bool path = query.attribute == wire::sa_attr::path_record;
  const bool supported = path ? query.method == wire::method::get || query.method == wire::method::get_table
                              : query.method == wire::method::get_multi;
  if (!supported) {
    SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
    r.outcome = SaQueryOutcome::unsupported_method;
    return r;
  }
  return path ? path_record_query(snapshot, query) : multi_path_query(snapshot, query);
}

}  // namespace ibsm::sa
