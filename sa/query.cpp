#include "sa/query.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <initializer_list>
#include <optional>

#include "mad/wire/constants.h"
#include "mad/wire/sa_records.h"
#include "sa/record_tables.h"

namespace ibsm::sa {
namespace {

using wire::Component;
using wire::Field;

// The ComponentMask bit of the component at `f`'s bits (asserts it exists).
uint64_t bit_of(std::span<const Component> comps, const Field& f) {
  const uint64_t bit = wire::component_bit(comps, f);
  assert(bit != 0 && "no component at this field");
  return bit;
}

// The template after key resolution, and where to look.
struct Plan {
  std::array<uint8_t, wire::sa_data_size> tmpl{};
  RecordScope scope;
  bool nothing = false;  // a key names no port: no record can match
};

// Narrows `plan` to the node (and, of a CA, the port) of end port `e`.
void narrow_to(const SaSnapshot& s, Plan& plan, const EndPort& e) {
  const bool is_switch = s.fabric.node(e.ref.node).is_switch();
  if (plan.scope.node && *plan.scope.node != e.ref.node) plan.nothing = true;
  if (plan.scope.port && !is_switch && *plan.scope.port != e.ref.port) plan.nothing = true;
  plan.scope.node = e.ref.node;
  if (!is_switch) plan.scope.port = e.ref.port;
}

// Resolves LID components: the template LID becomes the base LID of the
// port owning it (records carry base LIDs), the first one narrows the search.
void resolve_lids(const SaSnapshot& s, Plan& plan, uint64_t mask, std::span<const Component> comps,
                  std::initializer_list<Field> lid_fields) {
  bool first = true;
  for (const Field& f : lid_fields) {
    const bool primary = first;
    first = false;
    if ((mask & bit_of(comps, f)) == 0) continue;
    const EndPort* owner = s.by_lid(Lid{static_cast<uint16_t>(wire::get_field(plan.tmpl, f))});
    if (owner == nullptr) {
      plan.nothing = true;
      return;
    }
    wire::set_field(plan.tmpl, f, s.record_lid(owner->ref.node, owner->ref.port).value);
    if (primary) narrow_to(s, plan, *owner);
  }
}

// Get or GetTable over one record table. `compared` gives the components a
// record is compared on byte for byte (the mask, unless a table says
// otherwise), or nullopt when the table's own rule already rejects it.
template <typename R, typename Visit, typename Fixup, typename Compared>
SaQueryResult run_table(const SaSnapshot& s, const SaQuery& q, Plan& plan, size_t size,
                        std::span<const Component> comps, Visit visit, Fixup fixup, Compared compared) {
  SaQueryResult out;
  out.record_size = size;
  out.attr_offset = wire::sa_attr_offset_words(size);
  const size_t stride = size_t{out.attr_offset} * 8;
  const bool get = q.method == wire::method::get;
  if (!plan.nothing) {
    std::array<uint8_t, wire::sa_data_size> buf{};
    const std::span<uint8_t> rec(buf.data(), size);
    const std::span<const uint8_t> tmpl(plan.tmpl.data(), size);
    visit(s, plan.scope, RecordVisitor<R>([&](const R& found) {
            if (get && out.count > 1) return;  // already too many
            R r = found;
            fixup(r);
            wire::encode(r, rec);
            const std::optional<uint64_t> mask = compared(s, q, r, tmpl);
            if (!mask || !wire::masked_fields_equal(rec, tmpl, *mask, comps)) return;
            out.records.resize((out.count + 1) * stride, 0);
            std::copy(rec.begin(), rec.end(), out.records.begin() + static_cast<std::ptrdiff_t>(out.count * stride));
            ++out.count;
          }));
  }
  if (get && out.count != 1) {
    out.status = out.count == 0 ? wire::sa_status::no_records : wire::sa_status::too_many_records;
    out.count = 0;
    out.records.clear();
  }
  return out;
}

struct NoFixup {
  template <typename R>
  void operator()(R&) const {}
};

struct WholeMask {
  template <typename R>
  std::optional<uint64_t> operator()(const SaSnapshot&, const SaQuery& q, const R&, std::span<const uint8_t>) const {
    return q.component_mask;
  }
};

// The parts of a query every table shares: method, mask and template.
template <typename R, typename Visit, typename Fixup = NoFixup, typename Compared = WholeMask>
SaQueryResult run(const SaSnapshot& s, const SaQuery& q, size_t size, std::span<const Component> comps, Visit visit,
                  std::initializer_list<Field> lid_fields, Fixup fixup = {},
                  void (*narrow)(const SaSnapshot&, Plan&, uint64_t) = nullptr, Compared compared = {}) {
  if ((q.component_mask & ~wire::component_mask_of(comps)) != 0) return status_only(wire::sa_status::req_invalid);
  Plan plan;
  std::copy_n(q.record.begin(), std::min(q.record.size(), size), plan.tmpl.begin());
  resolve_lids(s, plan, q.component_mask, comps, lid_fields);
  if (narrow != nullptr && !plan.nothing) narrow(s, plan, q.component_mask);
  return run_table<R>(s, q, plan, size, comps, visit, fixup, compared);
}

// NodeRecord's NodeGUID and PortGUID keys, through the GUID indexes.
void narrow_node_record(const SaSnapshot& s, Plan& plan, uint64_t mask) {
  namespace f = wire::node_record_fields;
  const Field port_guid = wire::node_info_fields::port_guid.shifted(f::node_info_offset);
  const Field node_guid = wire::node_info_fields::node_guid.shifted(f::node_info_offset);
  const auto comps = std::span<const Component>(wire::node_record_components);
  if (mask & bit_of(comps, port_guid)) {
    const EndPort* e = s.by_port_guid(Guid{wire::get_field(plan.tmpl, port_guid)});
    if (e == nullptr) {
      plan.nothing = true;
      return;
    }
    narrow_to(s, plan, *e);
  }
  if (mask & bit_of(comps, node_guid)) {
    auto n = s.by_node_guid(Guid{wire::get_field(plan.tmpl, node_guid)});
    if (!n || (plan.scope.node && *plan.scope.node != *n)) {
      plan.nothing = true;
      return;
    }
    plan.scope.node = *n;
  }
}

// True when the record's LID belongs to a CA (or router) port, not a switch.
bool lid_of_end_node(const SaSnapshot& s, Lid lid) {
  const EndPort* e = s.by_lid(lid);
  return e != nullptr && !s.fabric.node(e->ref.node).is_switch();
}

// A CA port has one SL2VL table and one set of VLArb blocks, its own: the
// port numbers of its records are not keys. OpenSM ignores InputPortNum and
// OutputPortNum for a CA's SLtoVLMappingTableRecord, and takes a CA's
// VLArbitrationTableRecord OutputPortNum as the port the LID belongs to,
// whatever the request says (osmtest -f q asks with OutputPortNum 0).
struct SlToVlCompared {
  std::optional<uint64_t> operator()(const SaSnapshot& s, const SaQuery& q, const wire::SlToVlTableRecord& r,
                                     std::span<const uint8_t>) const {
    namespace f = wire::sl_to_vl_table_record_fields;
    const auto comps = std::span<const Component>(wire::sl_to_vl_table_record_components);
    if (!lid_of_end_node(s, r.lid)) return q.component_mask;
    return q.component_mask & ~(bit_of(comps, f::input_port_num) | bit_of(comps, f::output_port_num));
  }
};
struct VlArbitrationCompared {
  std::optional<uint64_t> operator()(const SaSnapshot& s, const SaQuery& q, const wire::VlArbitrationTableRecord& r,
                                     std::span<const uint8_t>) const {
    namespace f = wire::vl_arbitration_table_record_fields;
    const auto comps = std::span<const Component>(wire::vl_arbitration_table_record_components);
    if (!lid_of_end_node(s, r.lid)) return q.component_mask;
    return q.component_mask & ~bit_of(comps, f::output_port_num);
  }
};

// PortInfoRecord's CapabilityMask and CapabilityMask2 components, when the
// request sets bit 31 of the attribute modifier (the IBA 1.2 erratum behind
// ClassPortInfo IsPortInfoCapMaskMatchSupported and CapabilityMask2's
// IsPortInfoCapMask2MatchSupported): a port matches when its mask has every
// bit the template's has, not only the same mask. `saquery -s` asks so for
// IsSM. Without bit 31 the components compare as any other.
struct PortInfoCompared {
  std::optional<uint64_t> operator()(const SaSnapshot&, const SaQuery& q, const wire::PortInfoRecord& r,
                                     std::span<const uint8_t> tmpl) const {
    if ((q.attribute_modifier & port_info_cap_mask_match) == 0) return q.component_mask;
    namespace f = wire::port_info_record_fields;
    namespace pf = wire::port_info_fields;
    const auto comps = std::span<const Component>(wire::port_info_record_components);
    struct Mask {
      Field field;
      uint64_t held;
    };
    uint64_t mask = q.component_mask;
    for (const Mask& m : {Mask{pf::capability_mask.shifted(f::port_info_offset), r.port_info.capability_mask},
                          Mask{pf::capability_mask2.shifted(f::port_info_offset), r.port_info.capability_mask2}}) {
      const uint64_t bit = bit_of(comps, m.field);
      if ((mask & bit) == 0) continue;
      const uint64_t want = wire::get_field(tmpl, m.field);
      if ((m.held & want) != want) return std::nullopt;
      mask &= ~bit;
    }
    return mask;
  }
};

}  // namespace

SaQueryResult status_only(uint16_t status) {
  SaQueryResult r;
  r.status = status;
  return r;
}

bool is_table_attribute(uint16_t attribute) {
  namespace a = wire::sa_attr;
  switch (attribute) {
    case a::node_record:
    case a::port_info_record:
    case a::link_record:
    case a::switch_info_record:
    case a::linear_forwarding_table_record:
    case a::multicast_forwarding_table_record:
    case a::sm_info_record:
    case a::guid_info_record:
    case a::p_key_table_record:
    case a::sl_to_vl_mapping_table_record:
    case a::vl_arbitration_table_record: return true;
    default: return false;
  }
}

SaQueryResult run_query(const SaSnapshot& s, const SaQuery& q, const MulticastTables* multicast) {
  namespace a = wire::sa_attr;
  namespace size = wire::sa_record_size;
  if (!is_table_attribute(q.attribute)) {
    SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
    r.outcome = SaQueryOutcome::unsupported_attribute;
    return r;
  }
  if (q.method != wire::method::get && q.method != wire::method::get_table) {
    SaQueryResult r = status_only(wire::mad_status::method_attr_unsupported);
    r.outcome = SaQueryOutcome::unsupported_method;
    return r;
  }
  const bool trusted = q.trusted;
  switch (q.attribute) {
    case a::node_record:
      return run<wire::NodeRecord>(s, q, size::node, wire::node_record_components, visit_node_records,
                                   {wire::node_record_fields::lid}, NoFixup{}, narrow_node_record);
    case a::port_info_record:
      return run<wire::PortInfoRecord>(
          s, q, size::port_info, wire::port_info_record_components, visit_port_info_records,
          {wire::port_info_record_fields::endport_lid},
          [trusted](wire::PortInfoRecord& r) {
            if (!trusted) r.port_info.m_key = 0;
          },
          nullptr, PortInfoCompared{});
    case a::link_record:
      return run<wire::LinkRecord>(s, q, size::link, wire::link_record_components, visit_link_records,
                                   {wire::link_record_fields::from_lid, wire::link_record_fields::to_lid});
    case a::switch_info_record:
      return run<wire::SwitchInfoRecord>(s, q, size::switch_info, wire::switch_info_record_components,
                                         visit_switch_info_records, {wire::switch_info_record_fields::lid});
    case a::linear_forwarding_table_record:
      return run<wire::LinearForwardingTableRecord>(s, q, size::linear_forwarding_table, wire::lft_record_components,
                                                    visit_lft_records, {wire::lft_record_fields::lid});
    case a::multicast_forwarding_table_record:
      return run<wire::MulticastForwardingTableRecord>(s, q, size::multicast_forwarding_table,
                                                       wire::mft_record_components,
                                                       [multicast](const SaSnapshot& snap, const RecordScope& scope,
                                                                   const auto& fn) {
                                                         visit_mft_records(snap, multicast, scope, fn);
                                                       },
                                                       {wire::mft_record_fields::lid});
    case a::sm_info_record:
      return run<wire::SmInfoRecord>(s, q, size::sm_info, wire::sm_info_record_components, visit_sm_info_records,
                                     {wire::sm_info_record_fields::lid}, [trusted](wire::SmInfoRecord& r) {
                                       if (!trusted) r.sm_info.sm_key = 0;
                                     });
    case a::guid_info_record:
      return run<wire::GuidInfoRecord>(s, q, size::guid_info, wire::guid_info_record_components,
                                       visit_guid_info_records, {wire::guid_info_record_fields::lid});
    case a::p_key_table_record:
      if (!trusted) return status_only(wire::sa_status::req_denied);
      return run<wire::PKeyTableRecord>(s, q, size::p_key_table, wire::p_key_table_record_components,
                                        visit_p_key_table_records, {wire::p_key_table_record_fields::lid});
    case a::sl_to_vl_mapping_table_record:
      return run<wire::SlToVlTableRecord>(s, q, size::sl_to_vl_mapping_table,
                                          wire::sl_to_vl_table_record_components, visit_sl_to_vl_table_records,
                                          {wire::sl_to_vl_table_record_fields::lid}, NoFixup{}, nullptr,
                                          SlToVlCompared{});
    case a::vl_arbitration_table_record:
      return run<wire::VlArbitrationTableRecord>(s, q, size::vl_arbitration_table,
                                                 wire::vl_arbitration_table_record_components,
                                                 visit_vl_arbitration_table_records,
                                                 {wire::vl_arbitration_table_record_fields::lid}, NoFixup{}, nullptr,
                                                 VlArbitrationCompared{});
    default: break;
  }
  assert(false && "is_table_attribute and run_query disagree");
  return status_only(wire::mad_status::method_attr_unsupported);
}

}  // namespace ibsm::sa
