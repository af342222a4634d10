#include "sa/service_records.h"

#include <algorithm>
#include <span>
#include <vector>

#include "mad/wire/constants.h"
#include "mad/wire/sa_header.h"
#include "sa/partition_access.h"

namespace ibsm::sa {
namespace {

namespace srf = wire::service_record_fields;
using wire::Component;

constexpr std::span<const Component> service_components() { return wire::service_record_components; }

constexpr uint64_t service_bit(const wire::Field& field) { return wire::component_bit(wire::service_record_components, field); }

constexpr uint64_t id_bit = service_bit(srf::service_id);
constexpr uint64_t gid_bit = service_bit(srf::service_gid);
constexpr uint64_t pkey_bit = service_bit(srf::service_p_key);
constexpr uint64_t lease_bit = service_bit(srf::service_lease);
static_assert(id_bit != 0 && gid_bit != 0 && pkey_bit != 0 && lease_bit != 0);

constexpr Micros micros_per_second = 1'000'000;

// The answer carrying `records`, ServiceKey hidden from untrusted requesters.
SaQueryResult answer(std::vector<wire::ServiceRecord> records, bool trusted) {
  if (!trusted)
    for (wire::ServiceRecord& r : records) r.service_key = {};
  return records_answer(std::span<const wire::ServiceRecord>(records), wire::sa_record_size::service);
}

// Checks the mask of a Set or Delete and reads the record it names, with
// OpenSM's defaults for an unselected lease and P_Key. Returns a status on error.
uint16_t read_identity(const SaQuery& q, wire::ServiceRecord& out) {
  if ((q.component_mask & ~wire::component_mask_of(service_components())) != 0) return wire::sa_status::req_invalid;
  if ((q.component_mask & (id_bit | gid_bit)) != (id_bit | gid_bit))
    return wire::sa_status::req_insufficient_components;
  auto rec = wire::decode_service_record(template_bytes<wire::sa_record_size::service>(q));
  if (!rec.ok()) return wire::sa_status::req_invalid;
  out = *rec;
  if ((q.component_mask & lease_bit) == 0) out.service_lease = wire::service_lease_infinite;
  if ((q.component_mask & pkey_bit) == 0) out.service_p_key = wire::default_p_key;
  return 0;
}

// The port a ServiceGID names: by its interface ID alone, whatever the
// prefix, as OpenSM finds a service's port (partition_access.h: GidPrefix::any).
const EndPort* service_port_of(const SaSnapshot& s, const wire::Gid& service_gid) {
  return port_by_gid(s, service_gid, GidPrefix::any);
}

// True when the requester may register or withdraw records of `service_gid`:
// the GID names the requester's own port.
bool is_owner(const SaSnapshot& s, const SaQuery& q, const wire::Gid& service_gid) {
  if (q.trusted) return true;
  const EndPort* requester = requester_port(s, q.requester);
  return requester != nullptr && service_port_of(s, service_gid) == requester;
}

}  // namespace

SaQueryResult ServiceRegistry::handle(const SaSnapshot& snapshot, const SaQuery& query, Micros now) {
  if (query.attribute != wire::sa_attr::service_record) {
    SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
    r.outcome = SaQueryOutcome::unsupported_attribute;
    return r;
  }
  switch (query.method) {
    case wire::method::set: return set(snapshot, query, now);
    case wire::method::delete_: return remove(snapshot, query, now);
    case wire::method::get:
    case wire::method::get_table: return get(snapshot, query, now);
    default: break;
  }
  SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
  r.outcome = SaQueryOutcome::unsupported_method;
  return r;
}

SaQueryResult ServiceRegistry::set(const SaSnapshot& s, const SaQuery& q, Micros now) {
  wire::ServiceRecord rec;
  if (uint16_t bad = read_identity(q, rec)) return status_only(bad);
  const EndPort* service_port = service_port_of(s, rec.service_gid);
  if (service_port == nullptr) return status_only(wire::sa_status::req_gid_invalid);
  if (!is_owner(s, q, rec.service_gid)) return status_only(wire::sa_status::req_denied);
  if ((q.component_mask & pkey_bit) != 0 && !q.trusted) {
    // The owner is the service port itself, so one table answers for both.
    if (!port_has_pkey(s, *service_port, rec.service_p_key)) return status_only(wire::sa_status::req_invalid);
  }

  // The record keeps its ServiceGID as the requester gave it, as OpenSM
  // stores the record it received: a Get or Delete with the same GID finds
  // it, and one with another prefix for the same port is another record.
  const Key key{rec.service_id, rec.service_gid.raw, rec.service_p_key};
  if (auto it = records_.find(key); it != records_.end()) erase(it);
  if (records_.size() >= options_.max_records) return status_only(wire::sa_status::no_resources);
  Stored stored{rec, std::nullopt, false};
  if (rec.service_lease != wire::service_lease_infinite) {
    stored.expires = now + Micros{rec.service_lease} * micros_per_second;
    leases_.emplace(*stored.expires, key);
  }
  records_.emplace(key, stored);
  return answer({rec}, q.trusted);
}

SaQueryResult ServiceRegistry::remove(const SaSnapshot& s, const SaQuery& q, Micros now) {
  wire::ServiceRecord rec;
  if (uint16_t bad = read_identity(q, rec)) return status_only(bad);
  // Ownership first, on the named identity: a stranger learns nothing of
  // what is registered.
  if (!is_owner(s, q, rec.service_gid)) return status_only(wire::sa_status::req_denied);
  if ((q.component_mask & pkey_bit) != 0 && !q.trusted) {
    const EndPort* requester = requester_port(s, q.requester);
    if (requester == nullptr || !port_has_pkey(s, *requester, rec.service_p_key))
      return status_only(wire::sa_status::req_invalid);
  }
  auto it = records_.find(Key{rec.service_id, rec.service_gid.raw, rec.service_p_key});
  if (it == records_.end()) return status_only(wire::sa_status::no_records);
  if (!live(it->second, now)) {
    erase(it);
    return status_only(wire::sa_status::no_records);
  }
  wire::ServiceRecord deleted = it->second.record;
  erase(it);
  return answer({deleted}, q.trusted);
}

SaQueryResult ServiceRegistry::get(const SaSnapshot& s, const SaQuery& q, Micros now) const {
  if ((q.component_mask & ~wire::component_mask_of(service_components())) != 0)
    return status_only(wire::sa_status::req_invalid);
  const auto tmpl = template_bytes<wire::sa_record_size::service>(q);
  const EndPort* requester = q.trusted ? nullptr : requester_port(s, q.requester);
  std::vector<wire::ServiceRecord> found;
  std::array<uint8_t, wire::sa_record_size::service> buf{};
  for (const auto& [key, stored] : records_) {
    if (!live(stored, now)) continue;
    const uint16_t pkey = stored.record.service_p_key;
    if (!q.trusted && (pkey & wire::p_key_base_mask) != 0 &&
        (requester == nullptr || !port_has_pkey(s, *requester, pkey)))
      continue;
    wire::encode(stored.record, buf);
    if (!wire::masked_fields_equal(buf, tmpl, q.component_mask, service_components())) continue;
    found.push_back(stored.record);
  }
  if (q.method == wire::method::get && found.size() != 1)
    return status_only(found.empty() ? wire::sa_status::no_records : wire::sa_status::too_many_records);
  return answer(std::move(found), q.trusted);
}

ImportResult ServiceRegistry::import(std::vector<wire::ServiceRecord> records, Micros now,
                                     const std::vector<std::optional<Micros>>& lease_left) {
  ImportResult result;
  std::map<Key, Stored> next;
  for (size_t i = 0; i < records.size(); ++i) {
    const wire::ServiceRecord& rec = records[i];
    // What was left of the lease at the save; -1: not known. (A plain value,
    // not an optional: GCC 12 at -O1 for aarch64 takes a copied optional
    // for uninitialized here.)
    const Micros left = i < lease_left.size() && lease_left[i] ? *lease_left[i] : Micros{-1};
    const Key key{rec.service_id, rec.service_gid.raw, rec.service_p_key};
    if (next.size() >= options_.max_records || next.count(key) != 0) {
      ++result.dropped;
      continue;
    }
    // A restore from the cache is not a mirror's import: a mirror read of
    // the same bytes later (a takeover) restarts the lease whole.
    Stored stored{rec, std::nullopt, lease_left.empty()};
    if (rec.service_lease != wire::service_lease_infinite && left >= 0) {
      stored.expires = now + left;  // restored from the cache: what was left of it
    } else if (auto held = records_.find(key);
               held != records_.end() && held->second.imported && held->second.record == rec) {
      stored.expires = held->second.expires;  // the same import again: the lease runs on
    } else if (rec.service_lease != wire::service_lease_infinite) {
      stored.expires = now + Micros{rec.service_lease} * micros_per_second;
    }
    next.emplace(key, stored);
  }
  records_ = std::move(next);
  leases_.clear();
  for (const auto& [key, stored] : records_)
    if (stored.expires) leases_.emplace(*stored.expires, key);
  result.installed = records_.size();
  return result;
}

std::vector<ServiceRegistry::Held> ServiceRegistry::held(Micros now) const {
  std::vector<Held> out;
  out.reserve(records_.size());
  for (const auto& [key, s] : records_) {
    if (!live(s, now)) continue;
    out.push_back({s.record, s.expires ? std::optional<Micros>(*s.expires - now) : std::nullopt});
  }
  return out;
}

void ServiceRegistry::erase(std::map<Key, Stored>::iterator it) {
  if (it->second.expires) leases_.erase({*it->second.expires, it->first});
  records_.erase(it);
}

void ServiceRegistry::expire(Micros now) {
  while (!leases_.empty() && leases_.begin()->first <= now) {
    auto it = records_.find(leases_.begin()->second);
    if (it != records_.end()) {
      erase(it);
    } else {
      leases_.erase(leases_.begin());
    }
  }
}

std::optional<Micros> ServiceRegistry::next_expiry() const {
  if (leases_.empty()) return std::nullopt;
  return leases_.begin()->first;
}

}  // namespace ibsm::sa
