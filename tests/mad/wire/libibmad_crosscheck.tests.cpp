// Our field tables and codecs against libibmad's field definitions
// (rdma-core libibmad/fields.c), field by field, in both directions:
//  - table level: for every (our field, libibmad field) pair, on random
//    buffers, both read the same value, and writing a random value with
//    either gives byte-identical buffers;
//  - struct level: a random struct encoded by us reads back through
//    mad_get_field member by member, and fields written by mad_set_field
//    onto random bytes decode to the same members;
//  - coverage: every field of our structs has a libibmad twin (or is listed
//    as one libibmad lacks), and every libibmad field of the families we
//    implement is paired.
// libibmad's attribute offsets are relative to the attribute; its header
// offsets to the MAD start: the buffers below follow the same split.
#include <infiniband/mad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>
#include <infiniband/umad_types.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/wire/node_description.h"
#include "mad/wire/perf_counters.h"
#include "mad/wire/smp.h"
#include "wire_codecs.h"
#include "wire_random.h"

using namespace ibsm;
using namespace ibsm::wire;
using namespace ibsm::wire::testing;

namespace {

struct Mapping {
  Field ours;
  MAD_FIELDS theirs;
  int base = 0;  // libibmad's base offset in bytes
};

constexpr int kTableRounds = 2000;
constexpr int kStructRounds = 300;

std::string describe(const Mapping& m) {
  return std::string(m.ours.name) + " @" + std::to_string(m.ours.bit_offset) + "/" +
         std::to_string(m.ours.bit_width) + " vs libibmad " + mad_field_name(m.theirs);
}

bool is_array(const Field& f) { return f.bit_width > 64; }

// Table level: our field and libibmad's agree on every bit.
void check_pair(const Mapping& m, size_t buf_size, std::mt19937_64& rng) {
  INFO(describe(m));
  const Field& f = m.ours;
  REQUIRE(field_fits(buf_size, f));
  for (int round = 0; round < kTableRounds; ++round) {
    const auto bg = random_bytes(rng, buf_size);
    auto ours = bg;
    auto theirs = bg;
    if (is_array(f)) {
      REQUIRE(f.byte_aligned());
      std::vector<uint8_t> a(f.byte_size()), b(f.byte_size());
      get_bytes(bg, f, a);
      mad_get_array(theirs.data(), m.base, m.theirs, b.data());
      REQUIRE(a == b);
      auto in = random_bytes(rng, f.byte_size());
      set_bytes(ours, f, in);
      mad_set_array(theirs.data(), m.base, m.theirs, in.data());
    } else if (f.bit_width == 64) {
      REQUIRE(get_field(bg, f) == mad_get_field64(theirs.data(), m.base, m.theirs));
      const uint64_t v = rng();
      set_field(ours, f, v);
      mad_set_field64(theirs.data(), m.base, m.theirs, v);
      REQUIRE(mad_get_field64(ours.data(), m.base, m.theirs) == v);
      REQUIRE(get_field(theirs, f) == v);
    } else {
      REQUIRE(f.bit_width <= 32);
      REQUIRE(get_field(bg, f) == mad_get_field(theirs.data(), m.base, m.theirs));
      const uint64_t v = random_bits(rng, f.bit_width);
      set_field(ours, f, v);
      mad_set_field(theirs.data(), m.base, m.theirs, static_cast<uint32_t>(v));
      REQUIRE(mad_get_field(ours.data(), m.base, m.theirs) == v);
      REQUIRE(get_field(theirs, f) == v);
    }
    REQUIRE(ours == theirs);
  }
}

void check_pairs(std::span<const Mapping> map, size_t buf_size) {
  std::mt19937_64 rng(0x1BAD);
  for (const Mapping& m : map) check_pair(m, buf_size, rng);
}

const Mapping* find(std::span<const Mapping> map, const Field& f) {
  auto it = std::find_if(map.begin(), map.end(), [&](const Mapping& m) { return m.ours == f; });
  return it == map.end() ? nullptr : &*it;
}

// libibmad's reading of one member's field equals the member.
template <typename M>
void check_member(std::vector<uint8_t>& buf, const Mapping& m, const M& member) {
  INFO(describe(m));
  if constexpr (is_scalar_member<M>()) {
    const uint64_t theirs = m.ours.bit_width == 64 ? mad_get_field64(buf.data(), m.base, m.theirs)
                                                   : mad_get_field(buf.data(), m.base, m.theirs);
    REQUIRE(theirs == member_value(member));
  } else {
    std::vector<uint8_t> theirs(m.ours.byte_size());
    mad_get_array(buf.data(), m.base, m.theirs, theirs.data());
    const uint8_t* ours;
    if constexpr (std::is_same_v<M, Gid>) ours = member.raw.data();
    else ours = member.data();
    REQUIRE(std::equal(theirs.begin(), theirs.end(), ours));
  }
}

// Writes one member's value with libibmad.
template <typename M>
void libibmad_set(std::vector<uint8_t>& buf, const Mapping& m, const M& member) {
  if constexpr (is_scalar_member<M>()) {
    if (m.ours.bit_width == 64) mad_set_field64(buf.data(), m.base, m.theirs, member_value(member));
    else mad_set_field(buf.data(), m.base, m.theirs, static_cast<uint32_t>(member_value(member)));
  } else {
    std::vector<uint8_t> bytes;
    if constexpr (std::is_same_v<M, Gid>) bytes.assign(member.raw.begin(), member.raw.end());
    else bytes.assign(member.begin(), member.end());
    mad_set_array(buf.data(), m.base, m.theirs, bytes.data());
  }
}

// Struct level, through the struct's field table.
template <typename X>
void check_struct(std::span<const Mapping> map, std::span<const Field> not_in_libibmad, size_t buf_size) {
  std::mt19937_64 rng(0xC0DEC);
  X probe{};
  visit_fields(probe, [&](const Field& f, const auto&) {
    INFO("our field " << f.name << " @" << f.bit_offset);
    const bool excused = std::find(not_in_libibmad.begin(), not_in_libibmad.end(), f) != not_in_libibmad.end();
    CHECK((find(map, f) != nullptr) != excused);
  });
  for (int round = 0; round < kStructRounds; ++round) {
    // Ours to libibmad.
    const X x = random_struct<X>(rng);
    auto buf = random_bytes(rng, buf_size);
    encode(x, buf);
    visit_fields(x, [&](const Field& f, const auto& member) {
      if (const Mapping* m = find(map, f)) check_member(buf, *m, member);
    });
    // libibmad to ours: random values written by libibmad onto random bytes.
    auto theirs = random_bytes(rng, buf_size);
    const X values = random_struct<X>(rng);
    visit_fields(values, [&](const Field& f, const auto& member) {
      if (const Mapping* m = find(map, f)) libibmad_set(theirs, *m, member);
    });
    auto back = Codec<X>::decode(theirs);
    REQUIRE(back.ok());
    visit_fields(*back, [&](const Field& f, const auto& member) {
      if (const Mapping* m = find(map, f)) check_member(theirs, *m, member);
    });
  }
}

MAD_FIELDS next(MAD_FIELDS f, int n = 1) { return static_cast<MAD_FIELDS>(static_cast<int>(f) + n); }

// The pairs, one list per struct or header. The coverage test at the end
// checks these lists against libibmad's field families.

std::vector<Mapping> header_map() {
  namespace f = mad_fields;
  return {
      {f::base_version, IB_MAD_BASEVER_F},   {f::mgmt_class, IB_MAD_MGMTCLASS_F},
      {f::class_version, IB_MAD_CLASSVER_F}, {f::response_bit, IB_MAD_RESPONSE_F},
      {f::method_code, IB_MAD_METHOD_F},     {f::status, IB_MAD_STATUS_F},
      {f::transaction_id, IB_MAD_TRID_F},    {f::attribute_id, IB_MAD_ATTRID_F},
      {f::attribute_modifier, IB_MAD_ATTRMOD_F},
  };
}

std::vector<Mapping> smp_map() {
  namespace s = smp_fields;
  return {
      {s::m_key, IB_MAD_MKEY_F},
      {s::direction, IB_DRSMP_DIRECTION_F},
      {s::dr_status, IB_DRSMP_STATUS_F},
      {s::hop_pointer, IB_DRSMP_HOPPTR_F},
      {s::hop_count, IB_DRSMP_HOPCNT_F},
      {s::dr_slid, IB_DRSMP_DRSLID_F},
      {s::dr_dlid, IB_DRSMP_DRDLID_F},
      {s::initial_path, IB_DRSMP_PATH_F},
      {s::return_path, IB_DRSMP_RPATH_F},
      // PerfMgt data, which libibmad calls the GS data.
      {Field{perf_data_offset * 8, (mad_size - perf_data_offset) * 8, "PerfData"}, IB_GS_DATA_F},
  };
}

std::vector<Mapping> node_info_map() {
  namespace f = node_info_fields;
  return {
      {f::base_version, IB_NODE_BASE_VERS_F},        {f::class_version, IB_NODE_CLASS_VERS_F},
      {f::node_type, IB_NODE_TYPE_F},                {f::num_ports, IB_NODE_NPORTS_F},
      {f::system_image_guid, IB_NODE_SYSTEM_GUID_F}, {f::node_guid, IB_NODE_GUID_F},
      {f::port_guid, IB_NODE_PORT_GUID_F},           {f::partition_cap, IB_NODE_PARTITION_CAP_F},
      {f::device_id, IB_NODE_DEVID_F},               {f::revision, IB_NODE_REVISION_F},
      {f::local_port_num, IB_NODE_LOCAL_PORT_F},     {f::vendor_id, IB_NODE_VENDORID_F},
  };
}

std::vector<Mapping> port_info_map() {
  namespace f = port_info_fields;
  std::vector<Mapping> map{
      {f::m_key, IB_PORT_MKEY_F},
      {f::gid_prefix, IB_PORT_GID_PREFIX_F},
      {f::lid, IB_PORT_LID_F},
      {f::master_sm_lid, IB_PORT_SMLID_F},
      {f::capability_mask, IB_PORT_CAPMASK_F},
      {f::diag_code, IB_PORT_DIAG_F},
      {f::m_key_lease_period, IB_PORT_MKEY_LEASE_F},
      {f::local_port_num, IB_PORT_LOCAL_PORT_F},
      {f::link_width_enabled, IB_PORT_LINK_WIDTH_ENABLED_F},
      {f::link_width_supported, IB_PORT_LINK_WIDTH_SUPPORTED_F},
      {f::link_width_active, IB_PORT_LINK_WIDTH_ACTIVE_F},
      {f::link_speed_supported, IB_PORT_LINK_SPEED_SUPPORTED_F},
      {f::port_state, IB_PORT_STATE_F},
      {f::port_phys_state, IB_PORT_PHYS_STATE_F},
      {f::link_down_default_state, IB_PORT_LINK_DOWN_DEF_F},
      {f::m_key_protect_bits, IB_PORT_MKEY_PROT_BITS_F},
      {f::lmc, IB_PORT_LMC_F},
      {f::link_speed_active, IB_PORT_LINK_SPEED_ACTIVE_F},
      {f::link_speed_enabled, IB_PORT_LINK_SPEED_ENABLED_F},
      {f::neighbor_mtu, IB_PORT_NEIGHBOR_MTU_F},
      {f::master_sm_sl, IB_PORT_SMSL_F},
      {f::vl_cap, IB_PORT_VL_CAP_F},
      {f::init_type, IB_PORT_INIT_TYPE_F},
      {f::vl_high_limit, IB_PORT_VL_HIGH_LIMIT_F},
      {f::vl_arbitration_high_cap, IB_PORT_VL_ARBITRATION_HIGH_CAP_F},
      {f::vl_arbitration_low_cap, IB_PORT_VL_ARBITRATION_LOW_CAP_F},
      {f::init_type_reply, IB_PORT_INIT_TYPE_REPLY_F},
      {f::mtu_cap, IB_PORT_MTU_CAP_F},
      {f::vl_stall_count, IB_PORT_VL_STALL_COUNT_F},
      {f::hoq_life, IB_PORT_HOQ_LIFE_F},
      {f::operational_vls, IB_PORT_OPER_VLS_F},
      {f::partition_enforcement_inbound, IB_PORT_PART_EN_INB_F},
      {f::partition_enforcement_outbound, IB_PORT_PART_EN_OUTB_F},
      {f::filter_raw_inbound, IB_PORT_FILTER_RAW_INB_F},
      {f::filter_raw_outbound, IB_PORT_FILTER_RAW_OUTB_F},
      {f::m_key_violations, IB_PORT_MKEY_VIOL_F},
      {f::p_key_violations, IB_PORT_PKEY_VIOL_F},
      {f::q_key_violations, IB_PORT_QKEY_VIOL_F},
      {f::guid_cap, IB_PORT_GUID_CAP_F},
      {f::client_reregister, IB_PORT_CLIENT_REREG_F},
      {f::multicast_pkey_trap_suppression_enabled, IB_PORT_MCAST_PKEY_SUPR_ENAB_F},
      {f::subnet_timeout, IB_PORT_SUBN_TIMEOUT_F},
      {f::resp_time_value, IB_PORT_RESP_TIME_VAL_F},
      {f::local_phy_errors, IB_PORT_LOCAL_PHYS_ERR_F},
      {f::overrun_errors, IB_PORT_OVERRUN_ERR_F},
      {f::max_credit_hint, IB_PORT_MAX_CREDIT_HINT_F},
      {f::link_round_trip_latency, IB_PORT_LINK_ROUND_TRIP_F},
      {f::capability_mask2, IB_PORT_CAPMASK2_F},
      {f::link_speed_ext_active, IB_PORT_LINK_SPEED_EXT_ACTIVE_F},
      {f::link_speed_ext_supported, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F},
      {f::link_speed_ext_enabled, IB_PORT_LINK_SPEED_EXT_ENABLED_F},
  };
#ifdef IBSM_IBMAD_HAS_XDR
  map.push_back({f::link_speed_ext_active2, IB_PORT_LINK_SPEED_EXT_ACTIVE_2_F});
  map.push_back({f::link_speed_ext_supported2, IB_PORT_LINK_SPEED_EXT_SUPPORTED_2_F});
  map.push_back({f::link_speed_ext_enabled2, IB_PORT_LINK_SPEED_EXT_ENABLED_2_F});
#endif
  return map;
}

// PortInfo fields this libibmad does not know.
std::vector<Field> port_info_not_in_libibmad() {
#ifdef IBSM_IBMAD_HAS_XDR
  return {};
#else
  // The XDR speeds came to libibmad after rdma-core 44; layouts.tests.cpp pins them.
  namespace f = port_info_fields;
  return {f::link_speed_ext_active2, f::link_speed_ext_supported2, f::link_speed_ext_enabled2};
#endif
}

std::vector<Mapping> switch_info_map() {
  namespace f = switch_info_fields;
  return {
      {f::linear_fdb_cap, IB_SW_LINEAR_FDB_CAP_F},
      {f::random_fdb_cap, IB_SW_RANDOM_FDB_CAP_F},
      {f::multicast_fdb_cap, IB_SW_MCAST_FDB_CAP_F},
      {f::linear_fdb_top, IB_SW_LINEAR_FDB_TOP_F},
      {f::default_port, IB_SW_DEF_PORT_F},
      {f::default_multicast_primary_port, IB_SW_DEF_MCAST_PRIM_F},
      {f::default_multicast_not_primary_port, IB_SW_DEF_MCAST_NOT_PRIM_F},
      {f::life_time_value, IB_SW_LIFE_TIME_F},
      {f::port_state_change, IB_SW_STATE_CHANGE_F},
      {f::optimized_sl_to_vl_mapping_programming, IB_SW_OPT_SLTOVL_MAPPING_F},
      {f::lids_per_port, IB_SW_LIDS_PER_PORT_F},
      {f::partition_enforcement_cap, IB_SW_PARTITION_ENFORCE_CAP_F},
      {f::inbound_enforcement_cap, IB_SW_PARTITION_ENF_INB_F},
      {f::outbound_enforcement_cap, IB_SW_PARTITION_ENF_OUTB_F},
      {f::filter_raw_inbound_cap, IB_SW_FILTER_RAW_INB_F},
      {f::filter_raw_outbound_cap, IB_SW_FILTER_RAW_OUTB_F},
      {f::enhanced_port0, IB_SW_ENHANCED_PORT0_F},
      {f::multicast_fdb_top, IB_SW_MCAST_FDB_TOP_F},
  };
}

std::vector<Mapping> sm_info_map() {
  namespace f = sm_info_fields;
  return {
      {f::guid, IB_SMINFO_GUID_F},     {f::sm_key, IB_SMINFO_KEY_F},     {f::act_count, IB_SMINFO_ACT_F},
      {f::priority, IB_SMINFO_PRIO_F}, {f::sm_state, IB_SMINFO_STATE_F},
  };
}

std::vector<Mapping> guid_info_map() {
  std::vector<Mapping> map;
  for (size_t i = 0; i < guids_per_block; ++i)
    map.push_back({guid_info_fields::guid(i), next(IB_GI_GUID0_F, static_cast<int>(i))});
  return map;
}

std::vector<Mapping> guid_info_legacy_map() { return {{guid_info_fields::guid(0), IB_GUID_GUID0_F}}; }

std::vector<Mapping> notice_map() {
  namespace f = notice_fields;
  return {
      {f::is_generic, IB_NOTICE_IS_GENERIC_F},  {f::type, IB_NOTICE_TYPE_F},
      {f::producer_type, IB_NOTICE_PRODUCER_F}, {f::trap_number, IB_NOTICE_TRAP_NUMBER_F},
      {f::issuer_lid, IB_NOTICE_ISSUER_LID_F},  {f::notice_toggle, IB_NOTICE_TOGGLE_F},
      {f::notice_count, IB_NOTICE_COUNT_F},     {f::data_details, IB_NOTICE_DATA_DETAILS_F},
  };
}

std::vector<Mapping> notice_details_map() {
  namespace f = notice_fields;
  return {
      {f::trap128_lid, IB_NOTICE_DATA_LID_F},
      {f::trap144_lid, IB_NOTICE_DATA_144_LID_F},
      {f::trap144_capability_mask, IB_NOTICE_DATA_144_CAPMASK_F},
      // IssuerGID, through libibmad's GID fields placed at byte 64.
      {Field{512, 64, "IssuerGID prefix"}, IB_GID_PREFIX_F, 64},
      {Field{576, 64, "IssuerGID interface id"}, IB_GID_GUID_F, 64},
  };
}

std::vector<Mapping> rmpp_map() {
  namespace f = rmpp_fields;
  return {
      {f::version, IB_SA_RMPP_VERS_F}, {f::type, IB_SA_RMPP_TYPE_F},     {f::resp_time, IB_SA_RMPP_RESP_F},
      {f::flags, IB_SA_RMPP_FLAGS_F},  {f::status, IB_SA_RMPP_STATUS_F}, {f::data1, IB_SA_RMPP_D1_F},
      {f::data2, IB_SA_RMPP_D2_F},
  };
}

std::vector<Mapping> rmpp_meanings_map() {
  namespace f = rmpp_fields;
  return {
      {f::segment_number, IB_SA_RMPP_SEGNUM_F},
      {f::payload_length, IB_SA_RMPP_LEN_F},
      {f::new_window_last, IB_SA_RMPP_NEWWIN_F},
  };
}

std::vector<Mapping> sa_header_map() {
  namespace f = sa_fields;
  return {
      {f::sm_key, IB_SA_MKEY_F},
      {f::attribute_offset, IB_SA_ATTROFFS_F},
      {f::component_mask, IB_SA_COMPMASK_F},
  };
}

std::vector<Mapping> sa_data_map() { return {{sa_fields::data, IB_SA_DATA_F}}; }

// libibmad has these tables as one array or word each.
std::vector<Mapping> table_map() {
  return {
      {Field{0, 512, "LinearForwardingTable"}, IB_LINEAR_FORW_TBL_F},
      {Field{0, 512, "MulticastForwardingTable"}, IB_MULTICAST_FORW_TBL_F},
      {Field{0, 64, "SLtoVLMappingTable"}, IB_SLTOVL_MAPPING_TABLE_F},
      {Field{0, 512, "VLArbitrationTable"}, IB_VL_ARBITRATION_TABLE_F},
      {node_description_fields::node_string, IB_NODE_DESC_F},
  };
}

// SA records and the class attributes the SA serves. libibmad defines a few
// fields of PathRecord, MultiPathRecord, MCMemberRecord, ServiceRecord,
// GUIDInfoRecord and ClassPortInfo; the rest are pinned against saquery's
// layout in sa_records.tests.cpp.
std::vector<Mapping> path_record_map() {
  namespace f = path_record_fields;
  return {
      {f::dgid, IB_SA_PR_DGID_F}, {f::sgid, IB_SA_PR_SGID_F},      {f::dlid, IB_SA_PR_DLID_F},
      {f::slid, IB_SA_PR_SLID_F}, {f::numb_path, IB_SA_PR_NPATH_F}, {f::sl, IB_SA_PR_SL_F},
  };
}

std::vector<Field> path_record_not_in_libibmad() {
  namespace f = path_record_fields;
  return {f::service_id, f::raw_traffic,   f::flow_label, f::hop_limit,     f::tclass,
          f::reversible, f::p_key,         f::qos_class,  f::mtu_selector,  f::mtu,
          f::rate_selector, f::rate, f::packet_life_time_selector, f::packet_life_time, f::preference};
}

std::vector<Mapping> multi_path_record_map() {
  namespace f = multi_path_record_fields;
  return {{f::numb_path, IB_SA_MP_NPATH_F}, {f::sgid_count, IB_SA_MP_NSRC_F}, {f::dgid_count, IB_SA_MP_NDEST_F}};
}

std::vector<Mapping> multi_path_gid_map() { return {{multi_path_record_fields::gid(0), IB_SA_MP_GID0_F}}; }

std::vector<Mapping> mc_member_record_map() {
  namespace f = mc_member_record_fields;
  return {
      {f::mgid, IB_SA_MCM_MGID_F},   {f::port_gid, IB_SA_MCM_PORTGID_F},     {f::q_key, IB_SA_MCM_QKEY_F},
      {f::mlid, IB_SA_MCM_MLID_F},   {f::sl, IB_SA_MCM_SL_F},                {f::mtu, IB_SA_MCM_MTU_F},
      {f::rate, IB_SA_MCM_RATE_F},   {f::tclass, IB_SA_MCM_TCLASS_F},        {f::p_key, IB_SA_MCM_PKEY_F},
      {f::flow_label, IB_SA_MCM_FLOW_LABEL_F}, {f::join_state, IB_SA_MCM_JOIN_STATE_F},
      {f::proxy_join, IB_SA_MCM_PROXY_JOIN_F},
  };
}

std::vector<Field> mc_member_record_not_in_libibmad() {
  namespace f = mc_member_record_fields;
  return {f::mtu_selector, f::rate_selector, f::packet_life_time_selector, f::packet_life_time, f::hop_limit,
          f::scope};
}

std::vector<Mapping> service_record_map() {
  namespace f = service_record_fields;
  return {
      {f::service_id, IB_SA_SR_ID_F},      {f::service_gid, IB_SA_SR_GID_F}, {f::service_p_key, IB_SA_SR_PKEY_F},
      {f::service_lease, IB_SA_SR_LEASE_F}, {f::service_key, IB_SA_SR_KEY_F}, {f::service_name, IB_SA_SR_NAME_F},
  };
}

// libibmad has the 64 ServiceData bytes as one array.
std::vector<Mapping> service_data_map() { return {{Field{896, 512, "ServiceData"}, IB_SA_SR_DATA_F}}; }

std::vector<Field> service_record_data_fields() {
  std::vector<Field> data;
  for (const Field& f : field_table<ServiceRecord>())
    if (f.bit_offset >= 896) data.push_back(f);
  return data;
}

std::vector<Mapping> guid_info_record_map() {
  namespace f = guid_info_record_fields;
  std::vector<Mapping> map{{f::lid, IB_SA_GIR_LID_F}, {f::block_num, IB_SA_GIR_BLOCKNUM_F}};
  for (size_t i = 0; i < guids_per_block; ++i)
    map.push_back({guid_info_fields::guid(i).shifted(f::guid_info_offset), next(IB_SA_GIR_GUID0_F, static_cast<int>(i))});
  return map;
}

std::vector<Mapping> class_port_info_map() {
  namespace f = class_port_info_fields;
  return {
      {f::base_version, IB_CPI_BASEVER_F},       {f::class_version, IB_CPI_CLASSVER_F},
      {f::capability_mask, IB_CPI_CAPMASK_F},    {f::capability_mask2, IB_CPI_CAPMASK2_F},
      {f::resp_time_value, IB_CPI_RESP_TIME_VALUE_F}, {f::redirect_gid, IB_CPI_REDIRECT_GID_F},
      {f::redirect_tc, IB_CPI_REDIRECT_TC_F},    {f::redirect_sl, IB_CPI_REDIRECT_SL_F},
      {f::redirect_fl, IB_CPI_REDIRECT_FL_F},    {f::redirect_lid, IB_CPI_REDIRECT_LID_F},
      {f::redirect_p_key, IB_CPI_REDIRECT_PKEY_F}, {f::redirect_qp, IB_CPI_REDIRECT_QP_F},
      {f::redirect_q_key, IB_CPI_REDIRECT_QKEY_F}, {f::trap_gid, IB_CPI_TRAP_GID_F},
      {f::trap_tc, IB_CPI_TRAP_TC_F},            {f::trap_sl, IB_CPI_TRAP_SL_F},
      {f::trap_fl, IB_CPI_TRAP_FL_F},            {f::trap_lid, IB_CPI_TRAP_LID_F},
      {f::trap_p_key, IB_CPI_TRAP_PKEY_F},       {f::trap_hop_limit, IB_CPI_TRAP_HL_F},
      {f::trap_qp, IB_CPI_TRAP_QP_F},            {f::trap_q_key, IB_CPI_TRAP_QKEY_F},
  };
}

// PerfMgt attributes: libibmad's offsets are relative to the PerfMgt data (IB_PC_DATA_OFFS).
std::vector<Mapping> port_counters_map() {
  namespace f = port_counters_fields;
  return {
      {f::port_select, IB_PC_PORT_SELECT_F},
      {f::counter_select, IB_PC_COUNTER_SELECT_F},
      {f::symbol_errors, IB_PC_ERR_SYM_F},
      {f::link_error_recovery, IB_PC_LINK_RECOVERS_F},
      {f::link_downed, IB_PC_LINK_DOWNED_F},
      {f::rcv_errors, IB_PC_ERR_RCV_F},
      {f::rcv_remote_physical_errors, IB_PC_ERR_PHYSRCV_F},
      {f::rcv_switch_relay_errors, IB_PC_ERR_SWITCH_REL_F},
      {f::xmit_discards, IB_PC_XMT_DISCARDS_F},
      {f::xmit_constraint_errors, IB_PC_ERR_XMTCONSTR_F},
      {f::rcv_constraint_errors, IB_PC_ERR_RCVCONSTR_F},
      {f::counter_select2, IB_PC_COUNTER_SELECT2_F},
      {f::local_link_integrity_errors, IB_PC_ERR_LOCALINTEG_F},
      {f::excessive_buffer_overrun_errors, IB_PC_ERR_EXCESS_OVR_F},
      {f::vl15_dropped, IB_PC_VL15_DROPPED_F},
      {f::xmit_data, IB_PC_XMT_BYTES_F},
      {f::rcv_data, IB_PC_RCV_BYTES_F},
      {f::xmit_pkts, IB_PC_XMT_PKTS_F},
      {f::rcv_pkts, IB_PC_RCV_PKTS_F},
      {f::xmit_wait, IB_PC_XMT_WAIT_F},
  };
}

std::vector<Mapping> port_counters_extended_map() {
  namespace f = port_counters_extended_fields;
  return {
      {f::port_select, IB_PC_EXT_PORT_SELECT_F},
      {f::counter_select, IB_PC_EXT_COUNTER_SELECT_F},
      {f::xmit_data, IB_PC_EXT_XMT_BYTES_F},
      {f::rcv_data, IB_PC_EXT_RCV_BYTES_F},
      {f::xmit_pkts, IB_PC_EXT_XMT_PKTS_F},
      {f::rcv_pkts, IB_PC_EXT_RCV_PKTS_F},
      {f::unicast_xmit_pkts, IB_PC_EXT_XMT_UPKTS_F},
      {f::unicast_rcv_pkts, IB_PC_EXT_RCV_UPKTS_F},
      {f::multicast_xmit_pkts, IB_PC_EXT_XMT_MPKTS_F},
      {f::multicast_rcv_pkts, IB_PC_EXT_RCV_MPKTS_F},
  };
}

std::vector<std::vector<Mapping>> all_maps() {
  return {header_map(), smp_map(),       node_info_map(),      port_info_map(),     switch_info_map(),
          sm_info_map(), guid_info_map(), guid_info_legacy_map(), notice_map(),     notice_details_map(),
          rmpp_map(),    rmpp_meanings_map(), sa_header_map(),  sa_data_map(),      table_map(),
          path_record_map(), multi_path_record_map(), multi_path_gid_map(), mc_member_record_map(),
          service_record_map(), service_data_map(), guid_info_record_map(), class_port_info_map(),
          port_counters_map(), port_counters_extended_map()};
}

}  // namespace

TEST_CASE("mad header fields match libibmad", "[wire][libibmad][header]") {
  namespace f = mad_fields;
  const auto map = header_map();
  check_pairs(map, mad_size);
  // libibmad splits the method byte into R and the method; ClassSpecific has
  // no libibmad field outside the DR SMP (checked there).
  const std::vector<Field> split{f::method, f::class_specific};
  check_struct<MadHeader>(map, split, mad_size);
  std::mt19937_64 rng(8);
  for (int round = 0; round < kStructRounds; ++round) {
    const auto h = random_struct<MadHeader>(rng);
    std::vector<uint8_t> buf(mad_size);
    encode(h, buf);
    REQUIRE(mad_get_field(buf.data(), 0, IB_MAD_RESPONSE_F) == (h.method >> 7));
    REQUIRE(mad_get_field(buf.data(), 0, IB_MAD_METHOD_F) == (h.method & 0x7F));
  }
}

TEST_CASE("smp fields match libibmad", "[wire][libibmad][smp]") {
  const auto map = smp_map();
  check_pairs(map, mad_size);

  std::mt19937_64 rng(21);
  for (int round = 0; round < kStructRounds; ++round) {
    // A random directed-route SMP of ours, read by libibmad.
    Smp smp;
    smp.mgmt_class = mgmt_class::subn_directed_route;
    smp.method = static_cast<uint8_t>(rng());
    smp.status = static_cast<uint16_t>(random_bits(rng, 15));
    smp.direction = rng() & 1;
    smp.hop_pointer = static_cast<uint8_t>(rng());
    smp.hop_count = static_cast<uint8_t>(rng());
    smp.tid = rng();
    smp.attr_id = static_cast<uint16_t>(rng());
    smp.attr_mod = static_cast<uint32_t>(rng());
    smp.m_key = rng();
    smp.dr_slid = static_cast<uint16_t>(rng());
    smp.dr_dlid = static_cast<uint16_t>(rng());
    for (auto* a : {&smp.data, &smp.initial_path, &smp.return_path})
      for (auto& b : *a) b = static_cast<uint8_t>(rng());
    std::vector<uint8_t> buf(mad_size);
    encode(smp, buf);
    uint8_t* p = buf.data();
    REQUIRE(mad_get_field(p, 0, IB_MAD_BASEVER_F) == 1);
    REQUIRE(mad_get_field(p, 0, IB_MAD_MGMTCLASS_F) == 0x81);
    REQUIRE(mad_get_field(p, 0, IB_MAD_CLASSVER_F) == 1);
    REQUIRE(mad_get_field(p, 0, IB_MAD_METHOD_F) == (smp.method & 0x7Fu));
    REQUIRE(mad_get_field(p, 0, IB_MAD_RESPONSE_F) == (smp.method >> 7));
    REQUIRE(mad_get_field(p, 0, IB_DRSMP_STATUS_F) == smp.status);
    REQUIRE(mad_get_field(p, 0, IB_DRSMP_DIRECTION_F) == smp.direction);
    REQUIRE(mad_get_field(p, 0, IB_DRSMP_HOPPTR_F) == smp.hop_pointer);
    REQUIRE(mad_get_field(p, 0, IB_DRSMP_HOPCNT_F) == smp.hop_count);
    REQUIRE(mad_get_field64(p, 0, IB_MAD_TRID_F) == smp.tid);
    REQUIRE(mad_get_field(p, 0, IB_MAD_ATTRID_F) == smp.attr_id);
    REQUIRE(mad_get_field(p, 0, IB_MAD_ATTRMOD_F) == smp.attr_mod);
    REQUIRE(mad_get_field64(p, 0, IB_MAD_MKEY_F) == smp.m_key);
    REQUIRE(mad_get_field(p, 0, IB_DRSMP_DRSLID_F) == smp.dr_slid);
    REQUIRE(mad_get_field(p, 0, IB_DRSMP_DRDLID_F) == smp.dr_dlid);
    std::array<uint8_t, 64> path{};
    mad_get_array(p, 0, IB_DRSMP_PATH_F, path.data());
    REQUIRE(path == smp.initial_path);
    mad_get_array(p, 0, IB_DRSMP_RPATH_F, path.data());
    REQUIRE(path == smp.return_path);
    REQUIRE(std::equal(smp.data.begin(), smp.data.end(), buf.begin() + IB_SMP_DATA_OFFS));

    // And one written by libibmad onto random bytes, decoded by us.
    auto theirs = random_bytes(rng, mad_size);
    p = theirs.data();
    mad_set_field(p, 0, IB_MAD_MGMTCLASS_F, 0x81);
    mad_set_field(p, 0, IB_DRSMP_STATUS_F, smp.status);
    mad_set_field(p, 0, IB_DRSMP_DIRECTION_F, smp.direction);
    mad_set_field(p, 0, IB_DRSMP_HOPPTR_F, smp.hop_pointer);
    mad_set_field(p, 0, IB_DRSMP_HOPCNT_F, smp.hop_count);
    mad_set_field64(p, 0, IB_MAD_MKEY_F, smp.m_key);
    mad_set_field(p, 0, IB_DRSMP_DRSLID_F, smp.dr_slid);
    mad_set_field(p, 0, IB_DRSMP_DRDLID_F, smp.dr_dlid);
    mad_set_array(p, 0, IB_DRSMP_PATH_F, smp.initial_path.data());
    mad_set_array(p, 0, IB_DRSMP_RPATH_F, smp.return_path.data());
    auto back = decode_smp(theirs);
    REQUIRE(back.ok());
    CHECK(back->status == smp.status);
    CHECK(back->direction == smp.direction);
    CHECK(back->hop_pointer == smp.hop_pointer);
    CHECK(back->hop_count == smp.hop_count);
    CHECK(back->m_key == smp.m_key);
    CHECK(back->dr_slid == smp.dr_slid);
    CHECK(back->dr_dlid == smp.dr_dlid);
    CHECK(back->initial_path == smp.initial_path);
    CHECK(back->return_path == smp.return_path);
  }
}

TEST_CASE("built smps are byte for byte what libibmad's mad_encode builds", "[wire][libibmad][smp]") {
  std::mt19937_64 rng(31);
  for (int round = 0; round < kStructRounds; ++round) {
    const bool directed = round % 2 == 0;
    DrPath path;
    const int hops = static_cast<int>(rng() % 64);
    for (int i = 0; i < hops; ++i) path = path.extended(static_cast<uint8_t>(1 + rng() % 254));
    const auto payload = random_bytes(rng, IB_SMP_DATA_SIZE);
    const uint8_t meth = round % 4 < 2 ? method::get : method::set;
    const uint16_t attr_id = static_cast<uint16_t>(rng());
    const uint32_t attr_mod = static_cast<uint32_t>(rng());
    const uint64_t tid = rng() | 1;  // libibmad makes up a TID for 0
    const uint64_t m_key = rng();

    const MadBuffer ours = directed ? build_dr_smp(meth, attr_id, attr_mod, tid, path, payload, m_key)
                                    : build_lid_smp(meth, attr_id, attr_mod, tid, payload, m_key);

    ib_rpc_t rpc{};
    rpc.mgtclass = directed ? IB_SMI_DIRECT_CLASS : IB_SMI_CLASS;
    rpc.method = meth;
    rpc.attr.id = attr_id;
    rpc.attr.mod = attr_mod;
    rpc.dataoffs = IB_SMP_DATA_OFFS;
    rpc.datasz = IB_SMP_DATA_SIZE;
    rpc.mkey = m_key;
    rpc.trid = tid;
    ib_dr_path_t dr{};
    dr.cnt = path.hops();
    std::copy(path.raw().begin(), path.raw().end(), dr.p);
    std::vector<uint8_t> theirs(IB_MAD_SIZE, 0);
    REQUIRE(mad_encode(theirs.data(), &rpc, directed ? &dr : nullptr, const_cast<uint8_t*>(payload.data())) !=
            nullptr);
    INFO("directed " << directed << " hops " << hops);
    REQUIRE(std::equal(ours.begin(), ours.end(), theirs.begin()));
  }
}

TEST_CASE("nodeinfo fields match libibmad", "[wire][libibmad][nodeinfo]") {
  const auto map = node_info_map();
  check_pairs(map, smp_data_size);
  check_struct<NodeInfo>(map, {}, smp_data_size);
}

TEST_CASE("portinfo fields match libibmad", "[wire][libibmad][portinfo]") {
  const auto map = port_info_map();
  const auto not_in_libibmad = port_info_not_in_libibmad();
  check_pairs(map, smp_data_size);
  check_struct<PortInfo>(map, not_in_libibmad, smp_data_size);
}

TEST_CASE("switchinfo fields match libibmad", "[wire][libibmad][switchinfo]") {
  const auto map = switch_info_map();
  check_pairs(map, smp_data_size);
  check_struct<SwitchInfo>(map, {}, smp_data_size);
}

TEST_CASE("sminfo fields match libibmad", "[wire][libibmad][sminfo]") {
  const auto map = sm_info_map();
  check_pairs(map, smp_data_size);
  check_struct<SmInfo>(map, {}, smp_data_size);
}

TEST_CASE("guidinfo fields match libibmad", "[wire][libibmad][guidinfo]") {
  const auto map = guid_info_map();
  check_pairs(map, smp_data_size);
  check_struct<GuidInfo>(map, {}, smp_data_size);
  check_pairs(guid_info_legacy_map(), smp_data_size);
}

TEST_CASE("notice fields match libibmad", "[wire][libibmad][notice]") {
  const auto map = notice_map();
  check_pairs(map, notice_size);
  check_struct<Notice>(map, {}, notice_size);
  check_pairs(notice_details_map(), notice_size);
  std::mt19937_64 rng(4);
  for (int round = 0; round < kStructRounds; ++round) {
    Notice n;
    n.issuer_gid = Gid::from_parts(rng(), rng());
    std::vector<uint8_t> buf(notice_size);
    encode(n, buf);
    REQUIRE(mad_get_field64(buf.data(), 64, IB_GID_PREFIX_F) == n.issuer_gid.prefix());
    REQUIRE(mad_get_field64(buf.data(), 64, IB_GID_GUID_F) == n.issuer_gid.interface_id());
  }
}

TEST_CASE("rmpp header fields match libibmad", "[wire][libibmad][rmpp]") {
  const auto map = rmpp_map();
  check_pairs(map, mad_size);
  check_struct<RmppHeader>(map, {}, mad_size);
  check_pairs(rmpp_meanings_map(), mad_size);
  CHECK(rmpp_flag::active == IB_RMPP_FLAG_ACTIVE);
  CHECK(rmpp_flag::first == IB_RMPP_FLAG_FIRST);
  CHECK(rmpp_flag::last == IB_RMPP_FLAG_LAST);
  CHECK(rmpp_type::data == IB_RMPP_TYPE_DATA);
  CHECK(rmpp_type::ack == IB_RMPP_TYPE_ACK);
  CHECK(rmpp_type::stop == IB_RMPP_TYPE_STOP);
  CHECK(rmpp_type::abort == IB_RMPP_TYPE_ABORT);
}

TEST_CASE("sa header fields match libibmad", "[wire][libibmad][sa]") {
  const auto map = sa_header_map();
  check_pairs(map, mad_size);
  check_struct<SaHeader>(map, {}, mad_size);
  check_pairs(sa_data_map(), mad_size);
}

TEST_CASE("table attributes match libibmad", "[wire][libibmad][tables]") {
  const auto map = table_map();
  check_pairs(map, smp_data_size);

  std::mt19937_64 rng(77);
  for (int round = 0; round < kStructRounds; ++round) {
    std::array<uint8_t, 64> theirs{};
    std::vector<uint8_t> buf(smp_data_size);

    // LinearForwardingTable: one port per byte.
    const auto lft = random_struct<LinearForwardingTable>(rng);
    encode(lft, buf);
    mad_get_array(buf.data(), 0, IB_LINEAR_FORW_TBL_F, theirs.data());
    REQUIRE(theirs == lft.ports);
    auto raw = random_bytes(rng, 64);
    mad_set_array(buf.data(), 0, IB_LINEAR_FORW_TBL_F, raw.data());
    REQUIRE(std::equal(raw.begin(), raw.end(), decode_linear_forwarding_table(buf)->ports.begin()));

    // MulticastForwardingTable: 32 big-endian port masks.
    const auto mft = random_struct<MulticastForwardingTable>(rng);
    encode(mft, buf);
    mad_get_array(buf.data(), 0, IB_MULTICAST_FORW_TBL_F, theirs.data());
    for (size_t i = 0; i < 32; ++i) REQUIRE(((theirs[2 * i] << 8) | theirs[2 * i + 1]) == mft.port_masks[i]);
    raw = random_bytes(rng, 64);
    mad_set_array(buf.data(), 0, IB_MULTICAST_FORW_TBL_F, raw.data());
    auto mft_back = decode_multicast_forwarding_table(buf);
    for (size_t i = 0; i < 32; ++i) REQUIRE(((raw[2 * i] << 8) | raw[2 * i + 1]) == mft_back->port_masks[i]);

    // SLtoVLMappingTable: libibmad reads it as one 64-bit word, SL0 on top.
    const auto sl2vl = random_struct<SlToVlTable>(rng);
    encode(sl2vl, buf);
    const uint64_t word = mad_get_field64(buf.data(), 0, IB_SLTOVL_MAPPING_TABLE_F);
    for (size_t sl = 0; sl < 16; ++sl) REQUIRE(((word >> (60 - 4 * sl)) & 0xF) == sl2vl.vl_of_sl[sl]);
    const uint64_t w = rng();
    mad_set_field64(buf.data(), 0, IB_SLTOVL_MAPPING_TABLE_F, w);
    auto sl2vl_back = decode_sl_to_vl_table(buf);
    for (size_t sl = 0; sl < 16; ++sl) REQUIRE(((w >> (60 - 4 * sl)) & 0xF) == sl2vl_back->vl_of_sl[sl]);

    // VLArbitrationTable: (reserved nibble + VL, weight) pairs.
    const auto vla = random_struct<VlArbitrationTable>(rng);
    encode(vla, buf);
    mad_get_array(buf.data(), 0, IB_VL_ARBITRATION_TABLE_F, theirs.data());
    for (size_t i = 0; i < 32; ++i) {
      REQUIRE(theirs[2 * i] == vla.entries[i].vl);  // reserved nibble zero
      REQUIRE(theirs[2 * i + 1] == vla.entries[i].weight);
    }
    raw = random_bytes(rng, 64);
    mad_set_array(buf.data(), 0, IB_VL_ARBITRATION_TABLE_F, raw.data());
    auto vla_back = decode_vl_arbitration_table(buf);
    for (size_t i = 0; i < 32; ++i) {
      REQUIRE(vla_back->entries[i].vl == (raw[2 * i] & 0xF));
      REQUIRE(vla_back->entries[i].weight == raw[2 * i + 1]);
    }

    // NodeDescription: text up to the first NUL.
    std::string text;
    const size_t len = rng() % 65;
    for (size_t i = 0; i < len; ++i) text.push_back(static_cast<char>(1 + rng() % 255));
    encode(NodeDescription{text}, buf);
    mad_get_array(buf.data(), 0, IB_NODE_DESC_F, theirs.data());
    REQUIRE(std::equal(text.begin(), text.end(), theirs.begin(),
                       [](char c, uint8_t b) { return static_cast<uint8_t>(c) == b; }));
    for (size_t i = len; i < 64; ++i) REQUIRE(theirs[i] == 0);
    std::array<uint8_t, 64> desc{};
    std::copy(text.begin(), text.end(), desc.begin());
    mad_set_array(buf.data(), 0, IB_NODE_DESC_F, desc.data());
    REQUIRE(decode_node_description(buf)->text == text);
  }
}

TEST_CASE("constants match libibmad's", "[wire][libibmad][constants]") {
  CHECK(mad_size == IB_MAD_SIZE);
  CHECK(smp_data_offset == IB_SMP_DATA_OFFS);
  CHECK(smp_data_size == IB_SMP_DATA_SIZE);
  CHECK(sa_data_offset == IB_SA_DATA_OFFS);
  CHECK(sa_data_size == IB_SA_DATA_SIZE);
  CHECK(perf_data_offset == IB_PC_DATA_OFFS);
  CHECK(qp1_qkey == IB_DEFAULT_QP1_QKEY);
  CHECK(mgmt_class::subn_lid_routed == IB_SMI_CLASS);
  CHECK(mgmt_class::subn_directed_route == IB_SMI_DIRECT_CLASS);
  CHECK(mgmt_class::subn_adm == IB_SA_CLASS);
  CHECK(mgmt_class::perf_mgt == IB_PERFORMANCE_CLASS);
  CHECK(mgmt_class::board_mgt == IB_BOARD_MGMT_CLASS);
  CHECK(mgmt_class::dev_mgt == IB_DEVICE_MGMT_CLASS);
  CHECK(mgmt_class::comm_mgt == IB_CM_CLASS);
  CHECK(mgmt_class::snmp == IB_SNMP_CLASS);
  CHECK(mgmt_class::cong_mgt == IB_CC_CLASS);
  CHECK(mgmt_class::vendor_range2_first == IB_VENDOR_RANGE2_START_CLASS);
  CHECK(method::get == IB_MAD_METHOD_GET);
  CHECK(method::set == IB_MAD_METHOD_SET);
  CHECK(method::get_resp == IB_MAD_METHOD_GET_RESPONSE);
  CHECK(method::send == IB_MAD_METHOD_SEND);
  CHECK(method::trap == IB_MAD_METHOD_TRAP);
  CHECK(method::trap_repress == IB_MAD_METHOD_TRAP_REPRESS);
  CHECK(method::report == IB_MAD_METHOD_REPORT);
  CHECK(method::report_resp == IB_MAD_METHOD_REPORT_RESPONSE);
  CHECK(method::get_table == IB_MAD_METHOD_GET_TABLE);
  CHECK(method::get_table_resp == IB_MAD_METHOD_GET_TABLE_RESPONSE);
  CHECK(method::get_trace_table == IB_MAD_METHOD_GET_TRACE_TABLE);
  CHECK(method::get_multi == IB_MAD_METHOD_GETMULTI);
  CHECK(method::get_multi_resp == IB_MAD_METHOD_GETMULTI_RESPONSE);
  CHECK(method::delete_ == IB_MAD_METHOD_DELETE);
  CHECK(method::delete_resp == IB_MAD_METHOD_DELETE_RESPONSE);
  CHECK(method::response_bit == IB_MAD_RESPONSE);
  CHECK(mad_status::busy == IB_MAD_STS_BUSY);
  CHECK(mad_status::redirect == IB_MAD_STS_REDIRECT);
  CHECK(mad_status::bad_version == IB_MAD_STS_BAD_BASE_VER_OR_CLASS);
  CHECK(mad_status::method_unsupported == IB_MAD_STS_METHOD_NOT_SUPPORTED);
  CHECK(mad_status::method_attr_unsupported == IB_MAD_STS_METHOD_ATTR_NOT_SUPPORTED);
  CHECK(mad_status::invalid_field == IB_MAD_STS_INV_ATTR_VALUE);
  CHECK(attr::class_port_info == CLASS_PORT_INFO);
  CHECK(attr::notice == NOTICE);
  CHECK(attr::inform_info == INFORM_INFO);
  CHECK(smp_attr::node_description == IB_ATTR_NODE_DESC);
  CHECK(smp_attr::node_info == IB_ATTR_NODE_INFO);
  CHECK(smp_attr::switch_info == IB_ATTR_SWITCH_INFO);
  CHECK(smp_attr::guid_info == IB_ATTR_GUID_INFO);
  CHECK(smp_attr::port_info == IB_ATTR_PORT_INFO);
  CHECK(smp_attr::p_key_table == IB_ATTR_PKEY_TBL);
  CHECK(smp_attr::sl_to_vl_mapping_table == IB_ATTR_SLVL_TABLE);
  CHECK(smp_attr::vl_arbitration_table == IB_ATTR_VL_ARBITRATION);
  CHECK(smp_attr::linear_forwarding_table == IB_ATTR_LINEARFORWTBL);
  CHECK(smp_attr::multicast_forwarding_table == IB_ATTR_MULTICASTFORWTBL);
  CHECK(smp_attr::link_speed_width_pairs_table == IB_ATTR_LINKSPEEDWIDTHPAIRSTBL);
  CHECK(smp_attr::vendor_specific_mads_table == IB_ATTR_VENDORMADSTBL);
  CHECK(smp_attr::sm_info == IB_ATTR_SMINFO);
  CHECK(smp_attr::port_info_extended == IB_ATTR_PORT_INFO_EXT);
  CHECK(sa_attr::notice == IB_SA_ATTR_NOTICE);
  CHECK(sa_attr::inform_info == IB_SA_ATTR_INFORMINFO);
  CHECK(sa_attr::node_record == IB_SA_ATTR_NODERECORD);
  CHECK(sa_attr::port_info_record == IB_SA_ATTR_PORTINFORECORD);
  CHECK(sa_attr::sl_to_vl_mapping_table_record == IB_SA_ATTR_SL2VLTABLERECORD);
  CHECK(sa_attr::switch_info_record == IB_SA_ATTR_SWITCHINFORECORD);
  CHECK(sa_attr::linear_forwarding_table_record == IB_SA_ATTR_LFTRECORD);
  CHECK(sa_attr::random_forwarding_table_record == IB_SA_ATTR_RFTRECORD);
  CHECK(sa_attr::multicast_forwarding_table_record == IB_SA_ATTR_MFTRECORD);
  CHECK(sa_attr::sm_info_record == IB_SA_ATTR_SMINFORECORD);
  CHECK(sa_attr::link_record == IB_SA_ATTR_LINKRECORD);
  CHECK(sa_attr::guid_info_record == IB_SA_ATTR_GUIDINFORECORD);
  CHECK(sa_attr::service_record == IB_SA_ATTR_SERVICERECORD);
  CHECK(sa_attr::p_key_table_record == IB_SA_ATTR_PKEYTABLERECORD);
  CHECK(sa_attr::path_record == IB_SA_ATTR_PATHRECORD);
  CHECK(sa_attr::vl_arbitration_table_record == IB_SA_ATTR_VLARBTABLERECORD);
  CHECK(sa_attr::mc_member_record == IB_SA_ATTR_MCRECORD);
  CHECK(sa_attr::multi_path_record == IB_SA_ATTR_MULTIPATH);
  CHECK(sa_attr::inform_info_record == IB_SA_ATTR_INFORMINFORECORD);
  CHECK(static_cast<int>(NodeType::ca) == IB_NODE_CA);
  CHECK(static_cast<int>(NodeType::switch_) == IB_NODE_SWITCH);
  CHECK(static_cast<int>(NodeType::router) == IB_NODE_ROUTER);
}

TEST_CASE("every libibmad field of the implemented families is paired", "[wire][libibmad][coverage]") {
  std::set<int> paired;
  for (const auto& map : all_maps())
    for (const Mapping& m : map) paired.insert(m.theirs);
  const std::vector<std::pair<MAD_FIELDS, MAD_FIELDS>> ranges{  // [first, last)
      {IB_GID_PREFIX_F, IB_SM_DATA_F},   // GID, MAD, DR SMP, SA headers
      {IB_GS_DATA_F, IB_PORT_FIRST_F},   // (IB_SM_DATA_F is an empty slot in libibmad)
      {IB_PORT_FIRST_F, IB_PORT_LAST_F},
      {IB_NODE_FIRST_F, IB_NODE_LAST_F},
      {IB_SW_FIRST_F, IB_SW_LAST_F},
      {IB_LINEAR_FORW_TBL_F, next(IB_NOTICE_DATA_144_CAPMASK_F)},  // LFT, MFT, NodeDesc, Notice
      {IB_SMINFO_GUID_F, next(IB_SA_RMPP_NEWWIN_F)},               // SMInfo, RMPP
      {IB_SLTOVL_MAPPING_TABLE_F, next(IB_VL_ARBITRATION_TABLE_F)},
      {IB_GUID_GUID0_F, next(IB_GUID_GUID0_F)},
      {IB_GI_GUID0_F, next(IB_GI_GUID7_F)},
      {IB_PORT_CAPMASK2_F, IB_PORT_LINK_SPEED_EXT_LAST_F},
      {IB_SA_MP_NPATH_F, next(IB_SA_SR_DATA_F)},  // MultiPath, Path, MCMember, Service records
      {IB_CPI_BASEVER_F, next(IB_CPI_TRAP_QKEY_F)},
      {IB_SA_GIR_LID_F, next(IB_SA_GIR_GUID7_F)},
      {IB_PC_FIRST_F, IB_PC_LAST_F},
      {IB_PC_EXT_FIRST_F, IB_PC_EXT_LAST_F},
  };
  size_t checked = 0;
  for (auto [first, last] : ranges) {
    for (int f = first; f < last; ++f) {
      INFO("libibmad field " << mad_field_name(static_cast<MAD_FIELDS>(f)) << " (" << f << ")");
      CHECK(paired.count(f) == 1);
      ++checked;
    }
  }
  CHECK(checked > 180);
}

TEST_CASE("pathrecord fields match libibmad", "[wire][libibmad][sa][pathrecord]") {
  const auto map = path_record_map();
  check_pairs(map, sa_record_size::path);
  check_struct<PathRecord>(map, path_record_not_in_libibmad(), sa_record_size::path);
  CHECK(sa_record_size::path == IB_SA_PR_RECSZ);
}

TEST_CASE("multipathrecord fields match libibmad", "[wire][libibmad][sa][multipath]") {
  check_pairs(multi_path_record_map(), sa_data_size);
  check_pairs(multi_path_gid_map(), sa_data_size);
  std::mt19937_64 rng(12);
  for (int round = 0; round < kStructRounds; ++round) {
    auto x = random_struct<MultiPathRecord>(rng);
    x.sgid_count = static_cast<uint8_t>(1 + rng() % 5);
    x.dgid_count = static_cast<uint8_t>(rng() % 6);
    for (auto& g : x.gids) g = Gid::from_parts(rng(), rng());
    std::vector<uint8_t> buf(sa_data_size);
    encode(x, buf);
    REQUIRE(mad_get_field(buf.data(), 0, IB_SA_MP_NPATH_F) == x.numb_path);
    REQUIRE(mad_get_field(buf.data(), 0, IB_SA_MP_NSRC_F) == x.sgid_count);
    REQUIRE(mad_get_field(buf.data(), 0, IB_SA_MP_NDEST_F) == x.dgid_count);
    // libibmad reads GID i through its first GID field at a base offset.
    for (size_t i = 0; i < x.gid_count(); ++i) {
      std::array<uint8_t, 16> g{};
      mad_get_array(buf.data(), static_cast<int>(16 * i), IB_SA_MP_GID0_F, g.data());
      REQUIRE(g == x.gids[i].raw);
    }
  }
}

TEST_CASE("mcmemberrecord fields match libibmad", "[wire][libibmad][sa][mcmember]") {
  const auto map = mc_member_record_map();
  // libibmad's IB_SA_MCM_RECSZ (53) counts a byte past the record's 52: use its size.
  check_pairs(map, IB_SA_MCM_RECSZ);
  check_struct<McMemberRecord>(map, mc_member_record_not_in_libibmad(), IB_SA_MCM_RECSZ);
  // libibumad's record struct, padded to the 8-byte stride.
  CHECK(sizeof(umad_sa_mcmember_record) == sa_attr_offset_words(sa_record_size::mc_member) * 8);
  namespace f = mc_member_record_fields;
  CHECK(f::q_key.byte_offset() == offsetof(umad_sa_mcmember_record, qkey));
  CHECK(f::mlid.byte_offset() == offsetof(umad_sa_mcmember_record, mlid));
  CHECK(f::mtu_selector.byte_offset() == offsetof(umad_sa_mcmember_record, mtu));
  CHECK(f::tclass.byte_offset() == offsetof(umad_sa_mcmember_record, tclass));
  CHECK(f::p_key.byte_offset() == offsetof(umad_sa_mcmember_record, pkey));
  CHECK(f::rate_selector.byte_offset() == offsetof(umad_sa_mcmember_record, rate));
  CHECK(f::packet_life_time_selector.byte_offset() == offsetof(umad_sa_mcmember_record, pkt_life));
  CHECK(f::sl.byte_offset() == offsetof(umad_sa_mcmember_record, sl_flow_hop));
  CHECK(f::scope.byte_offset() == offsetof(umad_sa_mcmember_record, scope_state));
  CHECK(f::proxy_join.byte_offset() == offsetof(umad_sa_mcmember_record, proxy_join));
  CHECK(mc_join_state::full_member == UMAD_SA_MCM_JOIN_STATE_FULL_MEMBER);
  CHECK(mc_join_state::non_member == UMAD_SA_MCM_JOIN_STATE_NON_MEMBER);
  CHECK(mc_join_state::send_only_non_member == UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_NON_MEMBER);
  CHECK(mc_join_state::send_only_full_member == UMAD_SA_MCM_JOIN_STATE_SEND_ONLY_FULL_MEMBER);
}

TEST_CASE("servicerecord fields match libibmad", "[wire][libibmad][sa][service]") {
  const auto map = service_record_map();
  check_pairs(map, sa_record_size::service);
  check_pairs(service_data_map(), sa_record_size::service);
  check_struct<ServiceRecord>(map, service_record_data_fields(), sa_record_size::service);
  // ServiceData element by element, through libibmad's one array.
  std::mt19937_64 rng(13);
  for (int round = 0; round < kStructRounds; ++round) {
    const auto x = random_struct<ServiceRecord>(rng);
    std::vector<uint8_t> buf(sa_record_size::service);
    encode(x, buf);
    std::array<uint8_t, 64> d{};
    mad_get_array(buf.data(), 0, IB_SA_SR_DATA_F, d.data());
    auto be_at = [&](size_t off, size_t n) {
      uint64_t v = 0;
      for (size_t i = 0; i < n; ++i) v = (v << 8) | d[off + i];
      return v;
    };
    for (size_t i = 0; i < 16; ++i) REQUIRE(d[i] == x.data8[i]);
    for (size_t i = 0; i < 8; ++i) REQUIRE(be_at(16 + 2 * i, 2) == x.data16[i]);
    for (size_t i = 0; i < 4; ++i) REQUIRE(be_at(32 + 4 * i, 4) == x.data32[i]);
    for (size_t i = 0; i < 2; ++i) REQUIRE(be_at(48 + 8 * i, 8) == x.data64[i]);
  }
}

TEST_CASE("guidinforecord fields match libibmad", "[wire][libibmad][sa][guidinfo]") {
  const auto map = guid_info_record_map();
  check_pairs(map, sa_record_size::guid_info);
  check_struct<GuidInfoRecord>(map, {}, sa_record_size::guid_info);
  CHECK(sa_record_size::guid_info == IB_SA_GIR_RECSZ);
  CHECK(sa_record_size::node == IB_SA_NR_RECSZ);
}

TEST_CASE("classportinfo fields match libibmad and libibumad", "[wire][libibmad][sa][classportinfo]") {
  const auto map = class_port_info_map();
  check_pairs(map, class_port_info_size);
  check_struct<ClassPortInfo>(map, {}, class_port_info_size);
  namespace f = class_port_info_fields;
  CHECK(sizeof(umad_class_port_info) == class_port_info_size);
  CHECK(f::redirect_tc.byte_offset() == offsetof(umad_class_port_info, redir_tc_sl_fl));
  CHECK(f::redirect_lid.byte_offset() == offsetof(umad_class_port_info, redir_lid));
  CHECK(f::trap_gid.byte_offset() == offsetof(umad_class_port_info, trapgid));
  CHECK(f::trap_hop_limit.byte_offset() == offsetof(umad_class_port_info, trap_hl_qp));
  CHECK(f::trap_q_key.byte_offset() == offsetof(umad_class_port_info, trap_qkey));
}

TEST_CASE("portcounters fields match libibmad", "[wire][libibmad][perf]") {
  const auto map = port_counters_map();
  check_pairs(map, port_counters_size);
  check_struct<PortCounters>(map, {}, port_counters_size);
}

TEST_CASE("portcountersextended fields match libibmad", "[wire][libibmad][perf]") {
  const auto map = port_counters_extended_map();
  check_pairs(map, port_counters_extended_size);
  check_struct<PortCountersExtended>(map, {}, port_counters_extended_size);
}

TEST_CASE("perfmgt constants match libibmad's", "[wire][libibmad][perf]") {
  CHECK(perf_data_offset == IB_PC_DATA_OFFS);
  CHECK(perf_attr::class_port_info == CLASS_PORT_INFO);
  CHECK(perf_attr::port_counters == IB_GSI_PORT_COUNTERS);
  CHECK(perf_attr::port_counters_extended == IB_GSI_PORT_COUNTERS_EXT);
}

TEST_CASE("sa constants match libibumad's", "[wire][libibmad][sa][constants]") {
  CHECK(sa_selector::greater_than == UMAD_SA_SELECTOR_GREATER_THAN);
  CHECK(sa_selector::less_than == UMAD_SA_SELECTOR_LESS_THAN);
  CHECK(sa_selector::exactly == UMAD_SA_SELECTOR_EXACTLY);
  CHECK(sa_selector::largest == UMAD_SA_SELECTOR_LARGEST_AVAIL);
  CHECK(sa_selector::smallest == UMAD_SA_SELECTOR_SMALLEST_AVAIL);
  CHECK(sa_cap::is_subnet_opt_rec_supported == UMAD_SA_CAP_MASK_IS_SUBNET_OPT_REC_SUP);
  CHECK(sa_cap::is_ud_multicast_supported == UMAD_SA_CAP_MASK_IS_UD_MCAST_SUP);
  CHECK(sa_cap::is_multi_path_supported == UMAD_SA_CAP_MASK_IS_MULTIPATH_SUP);
  CHECK(sa_cap::is_reinit_supported == UMAD_SA_CAP_MASK_IS_REINIT_SUP);
  CHECK(sa_cap::is_gid_scoped_multi_path_supported == UMAD_SA_CAP_MASK_IS_GID_SCOPED_MULTIPATH_SUP);
  CHECK(sa_cap::is_port_info_capability_mask_match_supported == UMAD_SA_CAP_MASK_IS_PORTINFO_CAP_MASK_MATCH_SUP);
  CHECK(sa_cap::is_link_speed_width_pairs_record_supported == UMAD_SA_CAP_MASK_IS_LINK_SPEED_WIDTH_PAIRS_REC_SUP);
  CHECK(sa_cap::is_pa_services_supported == UMAD_SA_CAP_MASK_IS_PA_SERVICES_SUP);
  CHECK(sa_cap2::is_unpath_repath_supported == UMAD_SA_CAP_MASK2_IS_UNPATH_REPATH_SUP);
  CHECK(sa_cap2::is_qos_supported == UMAD_SA_CAP_MASK2_IS_QOS_SUP);
  CHECK(sa_cap2::is_reverse_path_p_key_member_bit_supported == UMAD_SA_CAP_MASK2_IS_REV_PATH_PKEY_MEM_BIT_SUP);
  CHECK(sa_cap2::is_mcast_top_supported == UMAD_SA_CAP_MASK2_IS_MCAST_TOP_SUP);
  CHECK(sa_cap2::is_hierarchy_info_supported == UMAD_SA_CAP_MASK2_IS_HIERARCHY_INFO_SUP);
  CHECK(sa_cap2::is_additional_guid_supported == UMAD_SA_CAP_MASK2_IS_ADDITIONAL_GUID_SUP);
  CHECK(sa_cap2::is_full_port_info_record_supported == UMAD_SA_CAP_MASK2_IS_FULL_PORTINFO_REC_SUP);
  CHECK(sa_cap2::is_extended_speeds_supported == UMAD_SA_CAP_MASK2_IS_EXT_SPEEDS_SUP);
  CHECK(sa_cap2::is_multicast_service_record_supported == UMAD_SA_CAP_MASK2_IS_MCAST_SERVICE_REC_SUP);
  CHECK(sa_cap2::is_port_info_capability_mask2_match_supported == UMAD_SA_CAP_MASK2_IS_PORT_INFO_CAPMASK2_MATCH_SUP);
  CHECK(class_port_info_size == sizeof(umad_class_port_info));
}
