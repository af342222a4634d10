#include "sa/qos_paths.h"

#include <algorithm>

#include "sa/link_rate.h"
#include "sa/partition_access.h"

namespace ibsm::sa {
namespace {

// Membership beyond GUID ranges, answered from the snapshot.
bool member(const SaSnapshot& s, const QosPortGroup& g, Guid guid) {
  const EndPort* port = s.by_port_guid(guid);
  if (port == nullptr) return false;
  return port_in_group(g, s.fabric, port->ref, s.sm_port, s.partitions.get(),
                       [&](uint16_t pkey) { return port_has_pkey(s, *port, pkey); });
}

// A level's P_Key range as partition numbers. OpenSM drops the membership
// bit of the asked P_Key only (osm_qos_level_has_pkey), so a level written
// 0x8002 never admits a request for 0x8002, while its shared-key search
// finds partition 2; ibsm drops it on both sides, as the match rules do.
QosRange partitions_of(const QosRange& r) { return {r.lo & wire::p_key_base_mask, r.hi & wire::p_key_base_mask}; }

}  // namespace

const QosLevel* path_qos_level(const SaSnapshot& s, const EndPort& source, const EndPort& destination,
                               QosRequest request) {
  if (!s.qos_policy) return nullptr;
  request.source = source.guid;
  request.destination = destination.guid;
  QosPortFacts facts{[&s](const QosPortGroup& g, Guid guid) { return member(s, g, guid); }};
  return match_qos_level(*s.qos_policy, request, facts);
}

void apply_qos_level(const SaSnapshot& s, const QosLevel& level, uint8_t& sl, uint8_t& mtu, uint8_t& rate,
                     uint8_t& packet_life) {
  if (!s.path_sl) sl = level.sl;
  if (level.mtu_limit && *level.mtu_limit != 0 && *level.mtu_limit < mtu) mtu = *level.mtu_limit;
  if (level.rate_limit && *level.rate_limit != 0 && rate_mbps(*level.rate_limit) != 0 &&
      rate_mbps(*level.rate_limit) < rate_mbps(rate))
    rate = *level.rate_limit;
  if (level.packet_life) packet_life = *level.packet_life;
}

bool qos_level_allows_pkey(const QosLevel& level, uint16_t pkey) {
  if (level.pkeys.empty()) return true;
  return std::any_of(level.pkeys.begin(), level.pkeys.end(),
                     [pkey](const QosRange& r) { return partitions_of(r).contains(pkey & wire::p_key_base_mask); });
}

std::optional<uint16_t> qos_level_pkey(const SaSnapshot& s, const QosLevel& level, const EndPort& source,
                                       const EndPort& destination) {
  if (level.pkeys.empty()) return shared_pkey(s, source, destination);
  // OpenSM (osm_qos_level_get_shared_pkey) walks each range upwards, in
  // file order, and answers the first key the pair shares as the range
  // spells it; ibsm answers it as the source holds it (its membership bit),
  // as it does without a level.
  for (const QosRange& r : level.pkeys) {
    const QosRange p = partitions_of(r);
    if (p.lo > p.hi) continue;
    if (auto k = shared_pkey_in(s, source, destination, static_cast<uint16_t>(p.lo), static_cast<uint16_t>(p.hi)))
      return k;
  }
  return std::nullopt;
}

bool qos_level_allows_lid(const QosLevel& level, const EndPort& port, Lid lid) {
  if (level.path_bits.empty()) return true;
  const uint32_t bits = uint32_t{lid.value} - port.base_lid.value;  // LMC-aligned base
  return std::any_of(level.path_bits.begin(), level.path_bits.end(),
                     [bits](const QosRange& r) { return r.contains(bits); });
}

}  // namespace ibsm::sa
