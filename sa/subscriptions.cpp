#include "sa/subscriptions.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <span>

#include "mad/wire/constants.h"
#include "mad/wire/field.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/sa/inform_info_record.h"
#include "mad/wire/sa_header.h"
#include "sa/notices.h"
#include "sa/partition_access.h"

namespace ibsm::sa {
namespace {

constexpr uint16_t max_notice_type = wire::notice_type::info;  // 0-4 are the defined types (IBA 13.4.8.2)

constexpr bool is_security_trap(uint16_t trap) {
  return trap >= wire::trap_number::bad_m_key && trap <= wire::trap_number::bad_p_key_switch_external_port;
}

// The Set answer: the InformInfo echoed, with `status`.
SaQueryResult echo(wire::InformInfo info, uint16_t status) {
  if (status != 0) info.subscribe = 0;  // o13-13.1.1
  SaQueryResult r = records_answer(std::span<const wire::InformInfo>(&info, 1), wire::inform_info_size);
  r.status = status;
  return r;
}

// True when two InformInfos name the same subscription (Subscribe aside).
bool same_subscription(const wire::InformInfo& a, const wire::InformInfo& b) {
  if (a.gid != b.gid) return false;
  if (a.gid == wire::Gid{} && (a.lid_range_begin != b.lid_range_begin || a.lid_range_end != b.lid_range_end))
    return false;
  return a.is_generic == b.is_generic && a.type == b.type && a.trap_number == b.trap_number && a.qpn == b.qpn &&
         a.resp_time_value == b.resp_time_value && a.producer_type == b.producer_type;
}

// A Set's InformInfo against IBA 13.4.8.3: the status to refuse it with, or 0.
uint16_t validate(const SaSnapshot& s, const wire::InformInfo& ii, bool trusted) {
  const uint16_t invalid = wire::sa_status::req_invalid;
  if (ii.gid != wire::Gid{}) {
    if (port_by_gid(s, ii.gid) == nullptr) return invalid;
  } else if (ii.lid_range_begin.value != wire::inform_all_lids) {
    // LIDRangeBegin 0 (osmtest -f v subscribes with every field zero) is
    // accepted as OpenSM accepts it: a range that holds no port, so it
    // matches no notice that names an issuer.
    if (!ii.lid_range_begin.is_unicast() && ii.lid_range_begin.value != 0) return invalid;
    const uint16_t end = ii.lid_range_end.value == 0 ? ii.lid_range_begin.value : ii.lid_range_end.value;
    if (end < ii.lid_range_begin.value || end > Lid::max_unicast) return invalid;
  }
  if (ii.type != wire::inform_all_types && ii.type > max_notice_type) return invalid;
  if (ii.generic()) {
    const bool producer_ok = ii.producer_type == wire::inform_all_producer_types ||
                             (ii.producer_type >= wire::producer_type::channel_adapter &&
                              ii.producer_type <= wire::producer_type::class_manager);
    if (!producer_ok) return invalid;
    if (is_security_trap(ii.trap_number) && !trusted) return wire::sa_status::req_denied;
  }
  return 0;
}

}  // namespace

SaQueryResult Subscriptions::handle(const SaSnapshot& snapshot, const SaQuery& query, Micros now) {
  const bool inform = query.attribute == wire::sa_attr::inform_info;
  const bool record = query.attribute == wire::sa_attr::inform_info_record;
  if (!inform && !record) {
    SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
    r.outcome = SaQueryOutcome::unsupported_attribute;
    return r;
  }
  if (inform && query.method == wire::method::set) return set(snapshot, query, now);
  if (record && (query.method == wire::method::get || query.method == wire::method::get_table))
    return get_records(snapshot, query);
  SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
  r.outcome = SaQueryOutcome::unsupported_method;
  return r;
}

SaQueryResult Subscriptions::set(const SaSnapshot& s, const SaQuery& q, Micros) {
  std::array<uint8_t, wire::inform_info_size> bytes{};
  std::copy_n(q.record.begin(), std::min(q.record.size(), bytes.size()), bytes.begin());
  auto decoded = wire::decode_inform_info(bytes);
  if (!decoded.ok()) return status_only(wire::sa_status::req_invalid);
  wire::InformInfo info = *decoded;
  // A subscription's QPN is the QP the subscriber sent from, whatever the
  // record says (OpenSM keeps it so, and osmtest -f v relies on it: it
  // subscribes with QPN 0 and unsubscribes with QPN 1, the GSI's QP). The
  // Reports go there; an unsubscribe names it.
  if (info.subscribe == 1) info.qpn = q.requester_qp;
  if (info.subscribe > 1 || info.is_generic > 1) return echo(info, wire::sa_status::req_invalid);
  const EndPort* requester = requester_port(s, q.requester);
  if (requester == nullptr) return echo(info, wire::sa_status::req_invalid);

  auto mine = [&](const Subscription& sub) { return sub.port == requester->guid && same_subscription(sub.info, info); };
  auto found = std::find_if(subs_.begin(), subs_.end(), mine);

  if (info.subscribe == 0) {
    if (found == subs_.end()) return echo(info, wire::sa_status::req_invalid);
    subs_.erase(found);
    return echo(info, 0);
  }

  if (uint16_t bad = validate(s, info, q.trusted)) return echo(info, bad);
  if (found != subs_.end()) {
    found->info = info;
    found->lid = q.requester;
    found->trusted = q.trusted;
    return echo(info, 0);
  }
  if (subs_.size() >= options_.max_subscriptions) return echo(info, wire::sa_status::no_resources);

  Subscription sub;
  sub.port = requester->guid;
  sub.gid = port_gid(s, *requester);
  sub.lid = q.requester;
  sub.info = info;
  sub.trusted = q.trusted;
  // The lowest Enum this subscriber does not use yet; subs_ stays ordered
  // by (SubscriberGID, Enum), which is also the answer order.
  auto by_key = [](const Subscription& a, const Subscription& b) {
    return a.gid.raw != b.gid.raw ? a.gid.raw < b.gid.raw : a.enum_ < b.enum_;
  };
  auto it = std::lower_bound(subs_.begin(), subs_.end(), sub, by_key);
  while (it != subs_.end() && it->gid == sub.gid && it->enum_ == sub.enum_) {
    ++sub.enum_;
    ++it;
  }
  subs_.insert(it, sub);
  return echo(info, 0);
}

std::vector<wire::InformInfoRecord> Subscriptions::records() const {
  std::vector<wire::InformInfoRecord> out;
  out.reserve(subs_.size());
  for (const Subscription& sub : subs_) out.push_back({sub.gid, sub.enum_, sub.info});
  return out;
}

SaQueryResult Subscriptions::get_records(const SaSnapshot& s, const SaQuery& q) const {
  const auto comps = std::span<const wire::Component>(wire::inform_info_record_components);
  if ((q.component_mask & ~wire::component_mask_of(comps)) != 0) return status_only(wire::sa_status::req_invalid);
  std::array<uint8_t, wire::sa_record_size::inform_info> tmpl{}, buf{};
  std::copy_n(q.record.begin(), std::min(q.record.size(), tmpl.size()), tmpl.begin());
  const EndPort* requester = q.trusted ? nullptr : requester_port(s, q.requester);

  std::vector<wire::InformInfoRecord> found;
  for (const Subscription& sub : subs_) {
    if (!q.trusted) {
      const EndPort* subscriber = s.by_port_guid(sub.port);
      if (requester == nullptr || subscriber == nullptr || !ports_share_pkey(s, *requester, *subscriber)) continue;
    }
    wire::InformInfoRecord r{sub.gid, sub.enum_, sub.info};
    if (!q.trusted) r.inform_info.qpn = 0;  // C15-0.2-1.16
    wire::encode(r, buf);
    if (!wire::masked_fields_equal(buf, tmpl, q.component_mask, comps)) continue;
    found.push_back(r);
  }
  if (q.method == wire::method::get && found.size() != 1)
    return status_only(found.empty() ? wire::sa_status::no_records : wire::sa_status::too_many_records);
  return records_answer(std::span<const wire::InformInfoRecord>(found), wire::sa_record_size::inform_info);
}

ImportResult Subscriptions::import(std::vector<wire::InformInfoRecord> records, const SaSnapshot& snapshot) {
  ImportResult result;
  // What is held now, by subscriber port: the trust and LID to keep.
  std::multimap<uint64_t, const Subscription*> held;
  for (const Subscription& s : subs_) held.emplace(s.port.value, &s);
  // The import by subscriber GID, in record order: duplicates and Enums are
  // a matter of one subscriber's few subscriptions.
  std::map<std::array<uint8_t, 16>, std::vector<Subscription>> by_gid;
  std::map<std::array<uint8_t, 16>, std::vector<bool>> renumber;  // the record's Enum was taken
  size_t count = 0;
  for (const wire::InformInfoRecord& rec : records) {
    const EndPort* port = port_by_gid(snapshot, rec.subscriber_gid);
    if (port == nullptr || count >= options_.max_subscriptions) {
      ++result.dropped;
      continue;
    }
    std::vector<Subscription>& mine = by_gid[rec.subscriber_gid.raw];
    if (std::any_of(mine.begin(), mine.end(),
                    [&](const Subscription& s) { return same_subscription(s.info, rec.inform_info); })) {
      ++result.dropped;
      continue;
    }
    Subscription sub;
    sub.port = port->guid;
    sub.gid = rec.subscriber_gid;
    sub.lid = port->base_lid;
    sub.enum_ = rec.enum_;
    sub.info = rec.inform_info;
    sub.info.subscribe = 1;  // a held subscription is a subscribed one
    sub.trusted = sub.info.generic() && is_security_trap(sub.info.trap_number);
    for (auto [it, end] = held.equal_range(sub.port.value); it != end; ++it) {
      if (it->second->info != sub.info) continue;
      sub.trusted = sub.trusted || it->second->trusted;
      if (snapshot.by_lid(it->second->lid) == port) sub.lid = it->second->lid;
      break;
    }
    renumber[sub.gid.raw].push_back(
        std::any_of(mine.begin(), mine.end(), [&](const Subscription& s) { return s.enum_ == sub.enum_; }));
    mine.push_back(sub);
    ++count;
  }

  std::vector<Subscription> next;
  next.reserve(count);
  for (auto& [gid, mine] : by_gid) {
    // The records' own Enums stand; a taken one becomes the lowest free, in
    // record order, never one that a later record names itself.
    const std::vector<bool>& moved = renumber[gid];
    std::set<uint16_t> used;
    for (size_t i = 0; i < mine.size(); ++i)
      if (!moved[i]) used.insert(mine[i].enum_);
    uint16_t lowest = 0;  // never decreases: each Enum handed out fills the lowest gap
    for (size_t i = 0; i < mine.size(); ++i) {
      if (!moved[i]) continue;
      while (used.count(lowest) != 0) ++lowest;
      mine[i].enum_ = lowest;
      used.insert(lowest);
    }
    std::sort(mine.begin(), mine.end(), [](const Subscription& a, const Subscription& b) { return a.enum_ < b.enum_; });
    for (Subscription& sub : mine) next.push_back(std::move(sub));
  }
  subs_ = std::move(next);  // by_gid iterates by GID bytes: subs_'s order, by GID then Enum
  result.installed = subs_.size();
  return result;
}

bool Subscriptions::matches(const Subscription& sub, const wire::Notice& n) const {
  const wire::InformInfo& ii = sub.info;
  if (ii.generic() != n.is_generic) return false;
  if (ii.type != wire::inform_all_types && ii.type != n.type) return false;
  if (n.is_generic) {
    if (ii.trap_number != wire::inform_all_trap_numbers && ii.trap_number != n.trap_number) return false;
    if (ii.producer_type != wire::inform_all_producer_types && ii.producer_type != n.producer_type) return false;
    if (is_security_trap(n.trap_number) && !sub.trusted) return false;
  } else {
    if (ii.device_id() != wire::inform_all_trap_numbers && ii.device_id() != n.trap_number) return false;
    if (ii.vendor_id() != wire::inform_all_producer_types && ii.vendor_id() != n.producer_type) return false;
  }

  // The source: the issuer, or the port (group) a trap 64-67 is about.
  const bool about_gid = n.is_generic && is_gid_service_trap(n.trap_number);
  if (ii.gid != wire::Gid{}) return ii.gid == n.issuer_gid || (about_gid && ii.gid == notice_details_gid(n));
  if (ii.lid_range_begin.value == wire::inform_all_lids) return true;
  const uint16_t begin = ii.lid_range_begin.value;
  const uint16_t end = ii.lid_range_end.value == 0 ? begin : ii.lid_range_end.value;
  auto in_range = [&](uint64_t lid) { return lid >= begin && lid <= end; };
  if (in_range(n.issuer_lid.value)) return true;
  // Traps 128-131 and 144 name the reporting port's LID in their details.
  if (!n.is_generic) return false;
  std::array<uint8_t, wire::notice_size> bytes{};
  wire::encode(n, bytes);
  if (n.trap_number >= wire::trap_number::link_state_change &&
      n.trap_number <= wire::trap_number::flow_control_update_watchdog)
    return in_range(wire::get_field(bytes, wire::notice_fields::trap128_lid));
  if (n.trap_number == wire::trap_number::capability_mask_change)
    return in_range(wire::get_field(bytes, wire::notice_fields::trap144_lid));
  return false;
}

Micros Subscriptions::report_timeout(const Subscription& sub) const {
  // 4.096 us * 2^RespTimeValue (IBA 13.4.6.2), in whole microseconds.
  const Micros t = (Micros{4096} << (sub.info.resp_time_value & 0x1F)) / 1000;
  return std::clamp(t, options_.min_report_timeout, options_.max_report_timeout);
}

void Subscriptions::publish(const wire::Notice& notice, Micros now) {
  for (const Subscription& sub : subs_) {
    if (!matches(sub, notice)) continue;
    if (pending_.size() >= options_.max_pending_reports) {
      ++counters_.dropped;
      continue;
    }
    wire::SaMad mad;
    mad.header.method = wire::method::report;
    mad.header.tid = next_tid_++;
    mad.header.attr_id = wire::attr::notice;
    wire::encode(notice, std::span<uint8_t>(mad.data).first(wire::notice_size));

    Pending p;
    p.port = sub.port;
    p.timeout = report_timeout(sub);
    p.next_send = now;
    wire::encode(mad, p.packet.data);
    p.packet.address.lid = sub.lid;
    p.packet.address.qp = sub.info.qpn != 0 ? sub.info.qpn : 1;
    p.packet.address.qkey = wire::qp1_qkey;
    p.packet.response_timeout_ms = static_cast<uint32_t>((p.timeout + 999) / 1000);
    pending_.emplace(static_cast<uint32_t>(mad.header.tid), std::move(p));
  }
}

std::vector<MadPacket> Subscriptions::take_due(Micros now) {
  std::vector<MadPacket> out;
  for (auto it = pending_.begin(); it != pending_.end();) {
    Pending& p = it->second;
    if (p.next_send > now || (p.attempts == 0 && in_flight_ >= options_.max_outstanding_reports)) {
      ++it;
      continue;
    }
    if (p.attempts > options_.max_report_retries) {
      ++counters_.given_up;
      it = retire(it);
      continue;
    }
    if (p.attempts == 0) {
      ++counters_.sent;
      ++in_flight_;
    } else {
      ++counters_.retried;
    }
    ++p.attempts;
    p.next_send = now + p.timeout;
    out.push_back(p.packet);  // a retry keeps its TID, so a late answer to any send ends it
    ++it;
  }
  return out;
}

std::map<uint32_t, Subscriptions::Pending>::iterator Subscriptions::retire(std::map<uint32_t, Pending>::iterator it) {
  if (it->second.attempts > 0) --in_flight_;
  return pending_.erase(it);
}

void Subscriptions::on_report_response(const MadPacket& response) {
  auto h = wire::decode_mad_header(response.data);
  if (!h.ok() || h->mgmt_class != wire::mgmt_class::subn_adm || h->method != wire::method::report_resp) return;
  // The low 32 bits only: the MAD layer below may put its own agent number in
  // the high 32 (as sa/client.cpp says for the SA's own requests).
  auto it = pending_.find(static_cast<uint32_t>(h->tid));
  if (it == pending_.end() || it->second.attempts == 0) return;
  retire(it);
  ++counters_.acknowledged;
}

std::optional<Micros> Subscriptions::next_deadline() const {
  const bool window_open = in_flight_ < options_.max_outstanding_reports;
  std::optional<Micros> first;
  for (const auto& [tid, p] : pending_)
    if ((p.attempts > 0 || window_open) && (!first || p.next_send < *first)) first = p.next_send;
  return first;
}

void Subscriptions::prune(const SaSnapshot& snapshot) {
  std::erase_if(subs_, [&](Subscription& sub) {
    const EndPort* e = snapshot.by_port_guid(sub.port);
    if (e == nullptr) return true;
    if (snapshot.by_lid(sub.lid) != e) sub.lid = e->base_lid;  // the port was given new LIDs
    return false;
  });
  for (auto it = pending_.begin(); it != pending_.end();) {
    const EndPort* e = snapshot.by_port_guid(it->second.port);
    if (e == nullptr) {
      ++counters_.dropped;
      it = retire(it);
      continue;
    }
    if (snapshot.by_lid(it->second.packet.address.lid) != e) it->second.packet.address.lid = e->base_lid;
    ++it;
  }
}

}  // namespace ibsm::sa
