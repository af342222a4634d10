#include "sa/mirror.h"

#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/sa/inform_info_record.h"
#include "mad/wire/sa/mc_member_record.h"
#include "mad/wire/sa/service_record.h"

namespace ibsm::sa {
namespace {

constexpr uint32_t kTidSpan = 0x10000;  // TIDs a mirror cycles through

// The records of a finished GetTable call, or why there are none.
template <typename R>
Result<std::vector<R>> table_of(const SaClientCall& call, std::string_view table, const MadAddress& master,
                                size_t record_size, Result<R> (*decode)(std::span<const uint8_t>)) {
  const Result<SaAnswer>& result = call.result();
  if (!result.ok())
    return Status(result.status().code(), fmt::format("{} table: {}", table, result.status().message()));
  const SaAnswer& a = *result;
  if (a.method != wire::method::get_table_resp || a.status != 0)
    return unavailable_error(fmt::format("the sa at lid {} answered the {} table with method 0x{:02x} status 0x{:04x}",
                                         master.lid, table, a.method, a.status));
  std::vector<R> records;
  const size_t n = a.record_count();
  records.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    std::span<const uint8_t> bytes = a.record(i);
    if (bytes.size() < record_size)
      return unavailable_error(fmt::format("the sa at lid {} answered {} records of {} bytes, {} expected", master.lid,
                                           table, bytes.size(), record_size));
    auto r = decode(bytes.first(record_size));
    if (!r.ok())
      return unavailable_error(
          fmt::format("{} record {} from the sa at lid {}: {}", table, i, master.lid, r.status().message()));
    records.push_back(std::move(*r));
  }
  return records;
}

}  // namespace

struct SaMirror::Read {
  MadAddress master;
  std::unique_ptr<SaClientCall> services;
  std::unique_ptr<SaClientCall> subscriptions;
  std::unique_ptr<SaClientCall> multicast;
  std::vector<SaClientCall*> calls() const { return {services.get(), subscriptions.get(), multicast.get()}; }
};

SaMirror::SaMirror(rmpp::MadSink sink, SaMirrorOptions options, LogSink& log)
    : sink_(std::move(sink)), options_(options), log_(log) {}

SaMirror::~SaMirror() = default;

uint64_t SaMirror::next_tid() {
  const uint32_t tid = options_.tid_base + tid_offset_;  // wraps like the range check in ours()
  tid_offset_ = (tid_offset_ + 1) % kTidSpan;
  return tid;
}

bool SaMirror::ours(uint64_t tid) const {
  // The low 32 bits only: the kernel owns the high 32 of a request's TID.
  return static_cast<uint32_t>(static_cast<uint32_t>(tid) - options_.tid_base) < kTidSpan;
}

void SaMirror::start(MadAddress master_sa, Micros now) {
  if (read_) {
    if (read_->master.lid == master_sa.lid && read_->master.qp == master_sa.qp) return;
    // Another master: what the old one would still answer no longer matters.
    ++counters_.reads_abandoned;
    read_.reset();
  }
  ++counters_.reads_started;
  read_ = std::make_unique<Read>();
  read_->master = master_sa;
  auto call = [&](uint16_t attribute) {
    SaRequest req;
    req.method = wire::method::get_table;
    req.attribute = attribute;
    req.component_mask = 0;  // every record
    req.sm_key = options_.sm_key;
    req.tid = next_tid();
    return std::make_unique<SaClientCall>(sink_, master_sa, std::move(req), options_.call);
  };
  read_->services = call(wire::sa_attr::service_record);
  read_->subscriptions = call(wire::sa_attr::inform_info_record);
  read_->multicast = call(wire::sa_attr::mc_member_record);
  for (SaClientCall* c : read_->calls()) c->start(now);
  finish(now);
}

bool SaMirror::handle(const MadPacket& packet, Micros now) {
  auto h = wire::decode_mad_header(packet.data);
  // Only responses: the mirror sends requests and the ACKs of the answers'
  // segments, so everything addressed to its calls comes with the R bit
  // (DATA, and the master's ABORT or STOP, which flip our ACKs' method).
  if (!h.ok() || h->mgmt_class != wire::mgmt_class::subn_adm || !h->is_response() || !ours(h->tid)) return false;
  // The TID alone says which call: the source LID need not be the one the
  // request went to (a master with LMC > 0 may answer from another of its
  // LIDs), and an abandoned read's TIDs are not the current read's.
  if (read_) {
    for (SaClientCall* c : read_->calls())
      if (c->handle(packet, now)) break;
    finish(now);
  }
  // Late, resent or stray: under the mirror's TIDs it is no answer the agent waits for.
  return true;
}

void SaMirror::poll(Micros now) {
  if (!read_) return;
  for (SaClientCall* c : read_->calls()) c->poll(now);
  finish(now);
}

std::optional<Micros> SaMirror::next_deadline() const {
  if (!read_) return std::nullopt;
  std::optional<Micros> next;
  for (const SaClientCall* c : read_->calls())
    if (auto t = c->next_deadline(); t && (!next || *t < *next)) next = t;
  return next;
}

void SaMirror::finish(Micros now) {
  if (!read_) return;
  const SaClientCall& services = *read_->services;
  const SaClientCall& subscriptions = *read_->subscriptions;
  const SaClientCall& multicast = *read_->multicast;
  // One call that failed fails the read at once; the others' answers are not needed.
  Status failure;
  bool all_done = true;
  for (const SaClientCall* c : read_->calls()) {
    if (c->done() && !c->result().ok() && failure.ok()) failure = c->result().status();
    all_done = all_done && c->done();
  }
  if (failure.ok() && !all_done) return;

  SaRegistrations regs;
  if (failure.ok()) {
    auto s = table_of<wire::ServiceRecord>(services, "service record", read_->master, wire::sa_record_size::service,
                                           wire::decode_service_record);
    auto i = table_of<wire::InformInfoRecord>(subscriptions, "inform info record", read_->master,
                                              wire::sa_record_size::inform_info, wire::decode_inform_info_record);
    auto m = table_of<wire::McMemberRecord>(multicast, "mcmember record", read_->master,
                                            wire::sa_record_size::mc_member, wire::decode_mc_member_record);
    if (!s.ok()) {
      failure = s.status();
    } else if (!i.ok()) {
      failure = i.status();
    } else if (!m.ok()) {
      failure = m.status();
    } else {
      regs.services = std::move(*s);
      regs.subscriptions = std::move(*i);
      regs.multicast = std::move(*m);
    }
  }
  const MadAddress master = read_->master;
  read_.reset();
  if (!failure.ok()) {
    ++counters_.reads_failed;
    last_error_ = failure;
    log(log_, LogLevel::warn, Subsystem::sa, "mirror read of the sa at lid {} failed, the copy of {} stays: {}",
        master.lid, copy_ ? fmt::format("lid {}", copy_->master.lid) : std::string("nothing"), failure.message());
    return;
  }
  ++counters_.reads_ok;
  counters_.services_held = regs.services.size();
  counters_.subscriptions_held = regs.subscriptions.size();
  counters_.multicast_members_held = regs.multicast.size();
  log(log_, LogLevel::debug, Subsystem::sa,
      "mirrored {} services, {} subscriptions and {} multicast members from the sa at lid {}", regs.services.size(),
      regs.subscriptions.size(), regs.multicast.size(), master.lid);
  copy_ = SaMirrorCopy{std::move(regs), master, now};
}

std::optional<SaImportResult> SaMirror::apply_to(SaAgent& agent, Micros now) const {
  if (!copy_) return std::nullopt;
  return agent.import(copy_->registrations, now);
}

}  // namespace ibsm::sa
