// The SA's Get and GetTable (IBA 15.4) over a snapshot: a request names a
// record type, a template record (the request's SA data) and a
// ComponentMask; the answer is every record that agrees with the template
// on the selected components (mad/wire/sa/component_mask.h).
//
// Matching rules beyond plain byte comparison:
//  - A LID component (NodeRecord/PortInfoRecord/... LID, LinkRecord
//    FromLID/ToLID) matches any LID of the port's 2^LMC range, as OpenSM
//    does: the template LID is resolved through the LID index to the port
//    owning it, and records carry that port's base LID. An unowned LID
//    matches nothing. A LID key narrows the search to that port's records;
//    NodeRecord's NodeGUID and PortGUID narrow it through the GUID indexes.
//  - Secrets are zero for requesters that are not SM_Key-trusted, before
//    matching, so an untrusted query cannot probe them: PortInfo:M_Key
//    (IBA 15.2.5.3) and SMInfo:SM_Key.
//  - P_KeyTableRecords go to trusted requesters only (IBA 15.2.5.11, as
//    `saquery --smkey` sends): an untrusted request gets ERR_REQ_DENIED.
//    (OpenSM answers ERR_REQ_INVALID there; the spec's "denied" says why.)
//  - A ComponentMask bit that names no component of the record: ERR_REQ_INVALID.
//  - PortInfoRecord CapabilityMask/CapabilityMask2 match bitwise when the
//    request's AttributeModifier has bit 31 (port_info_cap_mask_match).
//  - A CA port's SLtoVLMappingTableRecord ignores InputPortNum and
//    OutputPortNum, its VLArbitrationTableRecord OutputPortNum: the port
//    has one table, its own (OpenSM answers so; osmtest -f q asks port 0).
//
// Status (IBA 15.2.1.1 table 187, in MAD status bits 8-15; wire::sa_status):
//  Get: exactly one match answers it, none ERR_NO_RECORDS, more
//  ERR_TOO_MANY_RECORDS. GetTable: every match, zero matches included
//  (success with no records, as OpenSM answers; only Get treats none as an error).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "mad/base/types.h"
#include "mad/wire/sa_header.h"
#include "sa/snapshot.h"
#include "sm/fabric/multicast_tables.h"

namespace ibsm::sa {

// AttributeModifier bit 31 of a PortInfoRecord Get/GetTable: match the
// CapabilityMask and CapabilityMask2 components bitwise (IBA 1.2 erratum;
// saquery -s and OpenSM use it so): a port matches when its mask holds every
// bit of the template's.
inline constexpr uint32_t port_info_cap_mask_match = 1u << 31;

struct SaQuery {
  uint8_t method = 0;       // wire::method::get or get_table
  uint16_t attribute = 0;   // wire::sa_attr::*
  uint64_t component_mask = 0;
  std::span<const uint8_t> record;  // the template; shorter than the record reads as zeros
  uint32_t attribute_modifier = 0;  // the request's; see port_info_cap_mask_match
  Lid requester;            // who asks (for per-requester visibility; all see the same today)
  uint32_t requester_qp = 1;  // the QP the request came from (an InformInfo subscriber's Reports go there)
  bool trusted = false;     // the request carried the SM's SM_Key
};

enum class SaQueryOutcome {
  answered,               // status and records below are the answer
  unsupported_attribute,  // no record table here: the agent answers (PathRecord, ServiceRecord, ... or an error)
  unsupported_method,     // a table attribute, but not Get/GetTable: the agent answers
};

struct SaQueryResult {
  SaQueryOutcome outcome = SaQueryOutcome::answered;
  uint16_t status = 0;       // the MAD status word (wire::sa_status::*, 0 for success)
  size_t record_size = 0;    // bytes of one record (IBA 15.2.5)
  uint16_t attr_offset = 0;  // record stride in 8-byte words (SA header AttributeOffset)
  size_t count = 0;
  std::vector<uint8_t> records;  // count records, each attr_offset * 8 bytes, zero padded

  std::span<const uint8_t> record(size_t i) const {
    return std::span<const uint8_t>(records).subspan(i * attr_offset * 8, record_size);
  }
};

// An answer that is a status alone, no records (errors, and a Get's misses).
SaQueryResult status_only(uint16_t status);

// An answer carrying `records`, each encoded in `record_size` bytes at the
// AttributeOffset stride (the registries' answers: services, subscriptions,
// multicast members).
template <typename R>
SaQueryResult records_answer(std::span<const R> records, size_t record_size) {
  SaQueryResult r;
  r.record_size = record_size;
  r.attr_offset = wire::sa_attr_offset_words(record_size);
  const size_t stride = size_t{r.attr_offset} * 8;
  r.count = records.size();
  r.records.assign(r.count * stride, 0);
  for (size_t i = 0; i < records.size(); ++i)
    encode(records[i], std::span<uint8_t>(r.records).subspan(i * stride, record_size));
  return r;
}

// The request's template as a whole record of `Size` bytes (a short one
// reads as zeros).
template <size_t Size>
std::array<uint8_t, Size> template_bytes(const SaQuery& q) {
  std::array<uint8_t, Size> t{};
  std::copy_n(q.record.begin(), std::min(q.record.size(), t.size()), t.begin());
  return t;
}

// True when `attribute` is one of the record tables run_query answers.
bool is_table_attribute(uint16_t attribute);

// `multicast`: the MFTs the switches hold, for MulticastForwardingTableRecords
// (null: none).
SaQueryResult run_query(const SaSnapshot& snapshot, const SaQuery& query, const MulticastTables* multicast = nullptr);

}  // namespace ibsm::sa
