#include "sa/agent.h"

#include <algorithm>
#include <array>
#include <vector>

#include "mad/wire/class_port_info.h"
#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/rmpp.h"  // rmpp_header_end
#include "mad/wire/sa_header.h"
#include "sa/notices.h"
#include "sa/partition_access.h"
#include "sa/path_records.h"

namespace ibsm::sa {
namespace {

constexpr size_t kHeaderBytes = wire::sa_data_offset;  // common + RMPP + SA headers

// What the SA serves, as its ClassPortInfo says (IBA 15.2.1.1, the bits in
// mad/wire/class_port_info.h): MultiPathRecord (RMPP is done in user space,
// both ways; TraceRecord, which the bit names too, is not served, as OpenSM
// advertises it without TraceRecord), and the bitwise PortInfoRecord
// CapabilityMask/CapabilityMask2 match (sa/query.h).
// Not advertised: IsSubnetOptionalRecordsSupported (it promises every
// optional record but MCMemberRecord, TraceRecord and MultiPathRecord, and
// RandomForwardingTableRecord and ServiceAssociationRecord are not served;
// OpenSM leaves it clear for the same two), Get/Set(Notice) and traps,
// ReInit, GID-scoped MultiPath, LinkSpeedWidthPairs, PA services, and every
// other CapabilityMask2 feature. UD multicast is served: MCMemberRecord
// joins and leaves (IBA 15.2.5.17, sa/mc_member_records.h).
constexpr uint16_t kSaCapabilityMask = wire::sa_cap::is_multi_path_supported |
                                       wire::sa_cap::is_port_info_capability_mask_match_supported |
                                       wire::sa_cap::is_ud_multicast_supported;
constexpr uint32_t kSaCapabilityMask2 = wire::sa_cap2::is_port_info_capability_mask2_match_supported;

// The SA's own ClassPortInfo: no redirection, traps not forwarded through it.
wire::ClassPortInfo sa_class_port_info(uint8_t resp_time_value) {
  wire::ClassPortInfo info;
  info.class_version = wire::sa_class_version;
  info.capability_mask = kSaCapabilityMask;
  info.capability_mask2 = kSaCapabilityMask2;
  info.resp_time_value = resp_time_value & 0x1F;
  return info;
}

// Which methods an answer with records uses RMPP for.
bool answers_by_rmpp(uint8_t request_method, size_t count) {
  switch (request_method) {
    case wire::method::get_table:
    case wire::method::get_multi:
    case wire::method::get_trace_table: return true;
    case wire::method::delete_: return count > 1;
    default: return false;
  }
}

// What tells two requests apart, the TID aside: the common header without the
// TID (bytes 0-7, 16-23), the SA header (36-55), and the data.
SaAgent::RequestIdentity request_identity(std::span<const uint8_t> header, std::span<const uint8_t> data) {
  static_assert(std::tuple_size_v<decltype(SaAgent::RequestIdentity::header)> ==
                kHeaderBytes - 8 - (wire::rmpp_header_end - wire::rmpp_header_offset));
  SaAgent::RequestIdentity id;
  size_t n = 0;
  for (size_t i = 0; i < kHeaderBytes; ++i)
    if (i < 8 || (i >= 16 && i < wire::rmpp_header_offset) || i >= wire::rmpp_header_end) id.header[n++] = header[i];
  id.data.assign(data.begin(), data.end());
  return id;
}

}  // namespace

SaAgent::SaAgent(rmpp::MadSink sink, SaAgentOptions options, LogSink& log)
    : sink_(std::move(sink)),
      options_(options),
      log_(log),
      rmpp_(sink_, options_.rmpp),
      services_(options_.services),
      subscriptions_(options_.subscriptions),
      multicast_(options_.multicast, log) {}

SaAgent::~SaAgent() = default;

void SaAgent::set_snapshot(std::shared_ptr<const SaSnapshot> snapshot, Micros now) {
  const auto counts = registration_counts();
  const bool installs = snapshot && (pending_import_ || pending_multicast_import_);
  if (snapshot && snapshot_) {
    for (const wire::Notice& n : notices_between(*snapshot_, *snapshot, snapshot->sm_lid)) subscriptions_.publish(n, now);
  }
  if (snapshot) subscriptions_.prune(*snapshot);
  snapshot_ = std::move(snapshot);
  if (snapshot_ && pending_import_) {
    subscriptions_.import(std::move(*pending_import_), *snapshot_);
    pending_import_.reset();
  }
  if (snapshot_) {
    multicast_.set_snapshot(*snapshot_);
    if (pending_multicast_import_) {
      multicast_.import(*pending_multicast_import_, *snapshot_);
      pending_multicast_import_.reset();
    }
    publish_multicast_events(now);
  }
  if (installs) ++registrations_changes_;
  note_if_changed(counts);
  poll(now);
}

SaImportResult SaAgent::import(SaRegistrations registrations, Micros now) {
  SaImportResult r;
  ++registrations_changes_;
  r.services = services_.import(std::move(registrations.services), now, registrations.service_lease_left);
  if (snapshot_) {
    r.subscriptions = subscriptions_.import(std::move(registrations.subscriptions), *snapshot_);
    pending_import_.reset();
  } else {
    pending_import_ = std::move(registrations.subscriptions);
    r.subscriptions_deferred = true;
  }
  if (snapshot_) {
    r.multicast = multicast_.import(registrations.multicast, *snapshot_);
    pending_multicast_import_.reset();
  } else {
    pending_multicast_import_ = std::move(registrations.multicast);
    r.multicast_deferred = true;
  }
  poll(now);
  return r;
}

SaRegistrations SaAgent::registrations(Micros now) const {
  SaRegistrations r;
  for (ServiceRegistry::Held& h : services_.held(now)) {
    r.services.push_back(h.record);
    r.service_lease_left.push_back(h.lease_left);
  }
  r.subscriptions = pending_import_ ? *pending_import_ : subscriptions_.records();
  r.multicast = pending_multicast_import_ ? *pending_multicast_import_ : multicast_.records();
  return r;
}

std::array<size_t, 3> SaAgent::registration_counts() const {
  return {services_.size(), subscriptions_.size(), multicast_.member_count()};
}

void SaAgent::note_if_changed(const std::array<size_t, 3>& before) {
  if (registration_counts() != before) ++registrations_changes_;
}

void SaAgent::set_partitions(std::shared_ptr<const PartitionConfig> partitions, Micros now) {
  const auto counts = registration_counts();
  multicast_.set_partitions(std::move(partitions), snapshot_.get());
  note_if_changed(counts);
  if (snapshot_) publish_multicast_events(now);
  poll(now);
}

void SaAgent::publish_multicast_events(Micros now) {
  const std::vector<McEvent> events = multicast_.take_events();
  if (events.empty() || !snapshot_) return;
  wire::Gid sm_gid;
  if (const EndPort* sm = snapshot_->by_lid(snapshot_->sm_lid)) sm_gid = port_gid(*snapshot_, *sm);
  for (const McEvent& e : events) subscriptions_.publish(sm_notice(e.trap, snapshot_->sm_lid, sm_gid, e.mgid), now);
}

void SaAgent::publish(const wire::Notice& notice, Micros now) {
  subscriptions_.publish(notice, now);
  poll(now);
}

void SaAgent::handle(const MadPacket& packet, Micros now) {
  ++counters_.received;
  arrived_ = now;
  const std::span<const uint8_t> mad(packet.data);
  auto header = wire::decode_mad_header(mad);
  if (!header.ok() || header->base_version != wire::mad_base_version || header->mgmt_class != wire::mgmt_class::subn_adm) {
    ++counters_.malformed_dropped;
    log(log_, LogLevel::debug, Subsystem::sa, "dropped an unreadable MAD from lid {}", packet.address.lid);
    return;
  }
  if (header->is_response()) {
    // The only requests the SA sends are Reports.
    if (header->method == wire::method::report_resp) {
      ++counters_.report_responses;
      subscriptions_.on_report_response(packet);
    } else {
      ++counters_.unexpected_responses;
    }
    return;
  }
  // RMPP first: the ACKs of our answers come back with the request's method
  // and must not be taken for new requests; a request may itself be a transfer.
  if (header->class_version == wire::sa_class_version && rmpp_.handle(packet, now)) {
    for (auto& d : rmpp_.take_deliveries()) {
      ++counters_.rmpp_requests;
      if (d.header.size() < kHeaderBytes) {
        ++counters_.malformed_dropped;
        continue;
      }
      if (d.data.size() > options_.max_request_bytes) {
        ++counters_.requests;
        ++counters_.errors;
        send_single(d.peer, d.header, *wire::response_method(header->method), wire::sa_status::req_invalid, 0, {});
        continue;
      }
      serve(d.peer, d.header, d.data, now);
    }
    return;
  }
  serve(packet.address, mad.first(kHeaderBytes), mad.subspan(kHeaderBytes), now);
}

void SaAgent::serve(const MadAddress& peer, std::span<const uint8_t> header_bytes, std::span<const uint8_t> data,
                    Micros now) {
  ++counters_.requests;
  auto header = wire::decode_mad_header(header_bytes);
  const uint8_t method = header->method;
  const auto reply_method = wire::response_method(method);
  if (!reply_method || method == wire::method::trap || method == wire::method::report) {
    // Send, Trap, Report to the SA, or a method the class does not have: the
    // generic "method not supported" (IBA 13.4.7 table 110), answered as a GetResp.
    ++counters_.errors;
    send_single(peer, header_bytes, wire::method::get_resp, wire::mad_status::method_unsupported, 0, data);
    return;
  }
  if (header->class_version != wire::sa_class_version) {
    ++counters_.errors;
    send_single(peer, header_bytes, *reply_method, wire::mad_status::bad_version, 0, data);
    return;
  }
  // An RMPP-active request was taken by the sessions above; here RMPP bits
  // on a single MAD mean a duplicate of a request still being answered (the
  // sessions are keyed by TID) or a broken header.
  auto sa = wire::decode_sa_header(header_bytes.size() >= kHeaderBytes ? header_bytes : std::span<const uint8_t>{});
  if (!sa.ok()) {
    ++counters_.malformed_dropped;
    return;
  }
  if (const auto key = rmpp::session_key(peer, header_bytes); rmpp_.state(key) == rmpp::TransferState::active) {
    if (same_request(key, header_bytes.first(kHeaderBytes), data)) {
      ++counters_.duplicates;
      return;
    }
    // Another request under the same TID: the requester has given up on the
    // answer under way (under ibsim a new client process starts from the TIDs
    // of the last one, and umad2sim clients never ACK). Serve the new one.
    ++counters_.tid_reused;
    rmpp_.cancel(key);
  }

  if (!snapshot_) {
    // No sweep has finished yet: busy, ask again (IBA 13.4.7).
    ++counters_.errors;
    send_single(peer, header_bytes, *reply_method, wire::mad_status::busy, 0, data);
    return;
  }

  if (header->attr_id == wire::sa_attr::class_port_info) {
    if (method != wire::method::get) {
      ++counters_.errors;
      send_single(peer, header_bytes, *reply_method, wire::mad_status::method_attr_unsupported, 0, data);
      return;
    }
    std::array<uint8_t, wire::sa_data_size> out{};
    wire::encode(sa_class_port_info(options_.resp_time_value), out);
    ++counters_.answered;
    send_single(peer, header_bytes, *reply_method, wire::mad_status::ok, 0, out);
    return;
  }

  SaQuery query;
  query.method = method;
  query.attribute = header->attr_id;
  query.component_mask = sa->component_mask;
  query.attribute_modifier = header->attr_mod;
  query.record = data;
  query.requester = peer.lid;
  query.requester_qp = peer.qp;
  query.trusted = options_.sm_key != 0 && sa->sm_key == options_.sm_key;
  SaQueryResult result = answer(query, data, now);
  send_result(peer, header_bytes, method, std::move(result), data, now);
}

SaQueryResult SaAgent::answer(const SaQuery& query, std::span<const uint8_t> /*data*/, Micros now) {
  if (is_table_attribute(query.attribute)) return run_query(*snapshot_, query, multicast_tables_.get());
  switch (query.attribute) {
    case wire::sa_attr::path_record:
    case wire::sa_attr::multi_path_record: return run_path_query(*snapshot_, query);
    case wire::sa_attr::service_record: return services_.handle(*snapshot_, query, now);
    case wire::sa_attr::inform_info:
    case wire::sa_attr::inform_info_record: return subscriptions_.handle(*snapshot_, query, now);
    case wire::sa_attr::mc_member_record: {
      SaQueryResult r = multicast_.handle(*snapshot_, query);
      publish_multicast_events(now);
      return r;
    }
    default: break;
  }
  SaQueryResult r;
  r.outcome = SaQueryOutcome::unsupported_attribute;
  return r;
}

void SaAgent::send_result(const MadAddress& peer, std::span<const uint8_t> header, uint8_t request_method,
                          SaQueryResult result, std::span<const uint8_t> request_data, Micros now) {
  const uint8_t reply_method = *wire::response_method(request_method);
  if (result.outcome != SaQueryOutcome::answered) {
    // An attribute the SA does not serve, or a method it does not serve it
    // with: "method/attribute combination not supported" (IBA 13.4.7).
    ++counters_.errors;
    send_single(peer, header, reply_method, wire::mad_status::method_attr_unsupported, 0, request_data);
    return;
  }
  if (result.status != wire::mad_status::ok) {
    ++counters_.errors;
    send_single(peer, header, reply_method, result.status, result.attr_offset, request_data);
    return;
  }
  if (!answers_by_rmpp(request_method, result.count)) {
    ++counters_.answered;
    send_single(peer, header, reply_method, wire::mad_status::ok, result.attr_offset,
                result.count == 0 ? std::span<const uint8_t>{} : result.record(0));
    return;
  }
  // The header every segment repeats: the request's TID and attribute, the
  // response method, AttributeOffset for the records, the request's ComponentMask.
  std::array<uint8_t, kHeaderBytes> out{};
  std::copy(header.begin(), header.begin() + kHeaderBytes, out.begin());
  wire::set_field(out, wire::mad_fields::method, reply_method);
  wire::set_field(out, wire::mad_fields::status, 0);
  wire::set_field(out, wire::sa_fields::attribute_offset, result.attr_offset);
  wire::set_field(out, wire::sa_fields::sm_key, 0);  // never echo a key back
  // A MultiPathRecord query is answered with PathRecords (IBA o15-0.2.7).
  if (wire::get_field(out, wire::mad_fields::attribute_id) == wire::sa_attr::multi_path_record)
    wire::set_field(out, wire::mad_fields::attribute_id, wire::sa_attr::path_record);
  // The records move into the transfer: a big table is not copied again.
  std::vector<uint8_t> records = std::move(result.records);
  records.resize(result.count * result.attr_offset * 8);
  Status started = rmpp_.start_send(peer, out, std::move(records), now);
  if (!started.ok()) {
    ++counters_.rmpp_refused;
    ++counters_.errors;
    log(log_, LogLevel::warn, Subsystem::sa, "answer to lid {} not sent: {}", peer.lid, started.message());
    send_single(peer, header, reply_method, wire::sa_status::no_resources, result.attr_offset, {});
    return;
  }
  ++counters_.answered;
  ++counters_.rmpp_answers;
  remember_request(rmpp::session_key(peer, out), header.first(kHeaderBytes), request_data);
  note_answer(header, wire::mad_status::ok);
}

void SaAgent::note_answer(std::span<const uint8_t> request_header, uint16_t status) {
  auto h = wire::decode_mad_header(request_header);
  if (!h.ok()) return;
  const SaAnswerKind kind{h->attr_id, h->method, status};
  ++counters_.answers_by_kind[kind];
  const bool registers = h->attr_id == wire::sa_attr::service_record || h->attr_id == wire::sa_attr::inform_info ||
                         h->attr_id == wire::sa_attr::mc_member_record;
  if (registers && status == 0 && (h->method == wire::method::set || h->method == wire::method::delete_))
    ++registrations_changes_;
  if (on_answer_) on_answer_(kind, arrived_);
}

bool SaAgent::same_request(const rmpp::SessionKey& key, std::span<const uint8_t> header,
                           std::span<const uint8_t> data) const {
  auto it = rmpp_requests_.find(key);
  return it == rmpp_requests_.end() || it->second == request_identity(header, data);
}

void SaAgent::remember_request(const rmpp::SessionKey& key, std::span<const uint8_t> header,
                               std::span<const uint8_t> data) {
  if (rmpp_requests_.size() >= options_.rmpp.max_sessions)
    std::erase_if(rmpp_requests_,
                  [&](const auto& entry) { return rmpp_.state(entry.first) != rmpp::TransferState::active; });
  rmpp_requests_[key] = request_identity(header, data);
}

void SaAgent::send_single(const MadAddress& peer, std::span<const uint8_t> header, uint8_t method, uint16_t status,
                          uint16_t attr_offset, std::span<const uint8_t> data) {
  MadPacket out;
  out.address = peer;
  std::copy(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(std::min(header.size(), kHeaderBytes)),
            out.data.begin());
  wire::set_field(out.data, wire::mad_fields::method, method);
  wire::set_field(out.data, wire::mad_fields::status, status);
  // A plain MAD: no RMPP (a request that came by RMPP is answered this way
  // only with an error or one record).
  std::fill(out.data.begin() + wire::rmpp_header_offset, out.data.begin() + wire::rmpp_header_end, uint8_t{0});
  wire::set_field(out.data, wire::sa_fields::attribute_offset, attr_offset);
  wire::set_field(out.data, wire::sa_fields::sm_key, 0);
  const size_t n = std::min(data.size(), wire::sa_data_size);
  std::copy(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n), out.data.begin() + kHeaderBytes);
  sink_(out);
  note_answer(header, status);
}

void SaAgent::poll(Micros now) {
  rmpp_.poll(now);
  const size_t services = services_.size();
  services_.expire(now);
  if (services_.size() != services) ++registrations_changes_;
  for (const MadPacket& report : subscriptions_.take_due(now)) sink_(report);
}

std::optional<Micros> SaAgent::next_deadline() const {
  std::optional<Micros> next;
  for (auto t : {rmpp_.next_deadline(), services_.next_expiry(), subscriptions_.next_deadline()})
    if (t && (!next || *t < *next)) next = t;
  return next;
}

}  // namespace ibsm::sa
