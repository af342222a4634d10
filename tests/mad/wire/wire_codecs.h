// One table of every struct with a field table: its wire size and decoder,
// so tests can run the same checks over all of them.
#pragma once

#include <span>

#include "mad/wire/class_port_info.h"
#include "mad/wire/guid_info.h"
#include "mad/wire/inform_info.h"
#include "mad/wire/linear_forwarding_table.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/multicast_forwarding_table.h"
#include "mad/wire/node_info.h"
#include "mad/wire/notice.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/perf_counters.h"
#include "mad/wire/port_info.h"
#include "mad/wire/rmpp.h"
#include "mad/wire/sa_records.h"
#include "mad/wire/sa_header.h"
#include "mad/wire/sl_to_vl_table.h"
#include "mad/wire/sm_info.h"
#include "mad/wire/switch_info.h"
#include "mad/wire/vl_arbitration_table.h"

namespace ibsm::wire::testing {

template <typename X>
struct Codec;

// begin: the first byte the struct owns (headers sit inside a MAD);
// size: the bytes from the buffer start its encoder needs.
#define IBSM_WIRE_CODEC(X, BEGIN, SIZE, DECODE)                                      \
  template <>                                                                        \
  struct Codec<X> {                                                                  \
    static constexpr size_t begin = BEGIN;                                           \
    static constexpr size_t size = SIZE;                                             \
    static Result<X> decode(std::span<const uint8_t> b) { return DECODE(b); }        \
  }

IBSM_WIRE_CODEC(NodeInfo, 0, node_info_size, decode_node_info);
IBSM_WIRE_CODEC(PortInfo, 0, port_info_size, decode_port_info);
IBSM_WIRE_CODEC(SwitchInfo, 0, switch_info_size, decode_switch_info);
IBSM_WIRE_CODEC(SmInfo, 0, sm_info_size, decode_sm_info);
IBSM_WIRE_CODEC(GuidInfo, 0, guid_info_size, decode_guid_info);
IBSM_WIRE_CODEC(LinearForwardingTable, 0, lft_block_size, decode_linear_forwarding_table);
IBSM_WIRE_CODEC(MulticastForwardingTable, 0, mft_block_size, decode_multicast_forwarding_table);
IBSM_WIRE_CODEC(PKeyTable, 0, p_key_table_size, decode_p_key_table);
IBSM_WIRE_CODEC(SlToVlTable, 0, sl_to_vl_table_size, decode_sl_to_vl_table);
IBSM_WIRE_CODEC(VlArbitrationTable, 0, vl_arbitration_table_size, decode_vl_arbitration_table);
IBSM_WIRE_CODEC(Notice, 0, notice_size_without_gid, decode_notice);
IBSM_WIRE_CODEC(MadHeader, 0, mad_header_size, decode_mad_header);
IBSM_WIRE_CODEC(RmppHeader, 24, rmpp_header_end, decode_rmpp_header);
IBSM_WIRE_CODEC(SaHeader, rmpp_header_end, sa_data_offset, decode_sa_header);

IBSM_WIRE_CODEC(ClassPortInfo, 0, class_port_info_size, decode_class_port_info);
IBSM_WIRE_CODEC(PortCounters, 0, port_counters_size, decode_port_counters);
IBSM_WIRE_CODEC(PortCountersExtended, 0, port_counters_extended_size, decode_port_counters_extended);
IBSM_WIRE_CODEC(InformInfo, 0, inform_info_size, decode_inform_info);
IBSM_WIRE_CODEC(NodeRecord, 0, sa_record_size::node, decode_node_record);
IBSM_WIRE_CODEC(PortInfoRecord, 0, sa_record_size::port_info, decode_port_info_record);
IBSM_WIRE_CODEC(SwitchInfoRecord, 0, sa_record_size::switch_info, decode_switch_info_record);
IBSM_WIRE_CODEC(SmInfoRecord, 0, sa_record_size::sm_info, decode_sm_info_record);
IBSM_WIRE_CODEC(LinkRecord, 0, sa_record_size::link, decode_link_record);
IBSM_WIRE_CODEC(LinearForwardingTableRecord, 0, sa_record_size::linear_forwarding_table,
                decode_linear_forwarding_table_record);
IBSM_WIRE_CODEC(MulticastForwardingTableRecord, 0, sa_record_size::multicast_forwarding_table,
                decode_multicast_forwarding_table_record);
IBSM_WIRE_CODEC(GuidInfoRecord, 0, sa_record_size::guid_info, decode_guid_info_record);
IBSM_WIRE_CODEC(PKeyTableRecord, 0, sa_record_size::p_key_table, decode_p_key_table_record);
IBSM_WIRE_CODEC(SlToVlTableRecord, 0, sa_record_size::sl_to_vl_mapping_table, decode_sl_to_vl_table_record);
IBSM_WIRE_CODEC(VlArbitrationTableRecord, 0, sa_record_size::vl_arbitration_table,
                decode_vl_arbitration_table_record);
IBSM_WIRE_CODEC(PathRecord, 0, sa_record_size::path, decode_path_record);
IBSM_WIRE_CODEC(McMemberRecord, 0, sa_record_size::mc_member, decode_mc_member_record);
IBSM_WIRE_CODEC(ServiceRecord, 0, sa_record_size::service, decode_service_record);
IBSM_WIRE_CODEC(InformInfoRecord, 0, sa_record_size::inform_info, decode_inform_info_record);
// The fixed part only: its GIDs go by counts (tests fill those themselves).
IBSM_WIRE_CODEC(MultiPathRecord, 0, sa_record_size::multi_path_fixed, decode_multi_path_record);

#undef IBSM_WIRE_CODEC

}  // namespace ibsm::wire::testing
