#include "sa/qos_paths.h"

#include <algorithm>

#include "sa/link_rate.h"

namespace ibsm::sa {
namespace {

bool holds_pkey(const SaSnapshot& s, const EndPort& port, uint16_t pkey) {
  const auto& table = s.p_keys[port.ref.node.value];
  if (port.ref.port >= table.size()) return false;
  const auto& keys = table[port.ref.port];
  return std::any_of(keys.begin(), keys.end(), [pkey](uint16_t k) { return (k & 0x7FFF) == (pkey & 0x7FFF); });
}

// Membership beyond GUID ranges, answered from the snapshot.
bool member(const SaSnapshot& s, const QosPortGroup& g, Guid guid) {
  const EndPort* port = s.by_port_guid(guid);
  if (port == nullptr) return false;
  return port_in_group(g, s.fabric, port->ref, s.sm_port, s.partitions.get(),
                       [&](uint16_t pkey) { return holds_pkey(s, *port, pkey); });
}

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

}  // namespace ibsm::sa
