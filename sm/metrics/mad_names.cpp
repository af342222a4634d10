#include "sm/metrics/mad_names.h"

#include <fmt/format.h>

#include "mad/wire/constants.h"

namespace ibsm::metrics {
namespace {

const char* smp_attribute(uint16_t a) {
  namespace s = wire::smp_attr;
  switch (a) {
    case 0x0001: return "ClassPortInfo";
    case s::notice: return "Notice";
    case s::node_description: return "NodeDescription";
    case s::node_info: return "NodeInfo";
    case s::switch_info: return "SwitchInfo";
    case s::guid_info: return "GUIDInfo";
    case s::port_info: return "PortInfo";
    case s::p_key_table: return "P_KeyTable";
    case s::sl_to_vl_mapping_table: return "SLtoVLMappingTable";
    case s::vl_arbitration_table: return "VLArbitrationTable";
    case s::linear_forwarding_table: return "LinearForwardingTable";
    case s::random_forwarding_table: return "RandomForwardingTable";
    case s::multicast_forwarding_table: return "MulticastForwardingTable";
    case s::link_speed_width_pairs_table: return "LinkSpeedWidthPairsTable";
    case s::vendor_specific_mads_table: return "VendorSpecificMadsTable";
    case s::sm_info: return "SMInfo";
    case s::vendor_diag: return "VendorDiag";
    case s::led_info: return "LedInfo";
    case s::port_info_extended: return "PortInfoExtended";
    default: return nullptr;
  }
}

const char* sa_attribute(uint16_t a) {
  namespace s = wire::sa_attr;
  switch (a) {
    case s::class_port_info: return "ClassPortInfo";
    case s::notice: return "Notice";
    case s::inform_info: return "InformInfo";
    case s::node_record: return "NodeRecord";
    case s::port_info_record: return "PortInfoRecord";
    case s::sl_to_vl_mapping_table_record: return "SLtoVLMappingTableRecord";
    case s::switch_info_record: return "SwitchInfoRecord";
    case s::linear_forwarding_table_record: return "LinearForwardingTableRecord";
    case s::random_forwarding_table_record: return "RandomForwardingTableRecord";
    case s::multicast_forwarding_table_record: return "MulticastForwardingTableRecord";
    case s::sm_info_record: return "SMInfoRecord";
    case s::link_speed_width_pairs_table_record: return "LinkSpeedWidthPairsTableRecord";
    case s::link_record: return "LinkRecord";
    case s::guid_info_record: return "GuidInfoRecord";
    case s::service_record: return "ServiceRecord";
    case s::p_key_table_record: return "P_KeyTableRecord";
    case s::path_record: return "PathRecord";
    case s::vl_arbitration_table_record: return "VLArbitrationTableRecord";
    case s::mc_member_record: return "MCMemberRecord";
    case s::trace_record: return "TraceRecord";
    case s::multi_path_record: return "MultiPathRecord";
    case s::service_association_record: return "ServiceAssociationRecord";
    case s::inform_info_record: return "InformInfoRecord";
    default: return nullptr;
  }
}

// PerfMgt attributes (IBA 16.1.3, table 240).
const char* perf_attribute(uint16_t a) {
  switch (a) {
    case 0x0001: return "ClassPortInfo";
    case 0x0010: return "PortSamplesControl";
    case 0x0011: return "PortSamplesResult";
    case 0x0012: return "PortCounters";
    case 0x001F: return "PortCountersExtended";
    default: return nullptr;
  }
}

}  // namespace

std::string mgmt_class_label(uint8_t c) {
  switch (c) {
    case wire::mgmt_class::subn_lid_routed: return "smp_lid_routed";
    case wire::mgmt_class::subn_directed_route: return "smp_directed_route";
    case wire::mgmt_class::subn_adm: return "sa";
    case wire::mgmt_class::perf_mgt: return "perf";
    default: return fmt::format("0x{:02x}", c);
  }
}

std::string method_label(uint8_t m) {
  namespace k = wire::method;
  switch (m) {
    case k::get: return "Get";
    case k::set: return "Set";
    case k::send: return "Send";
    case k::trap: return "Trap";
    case k::report: return "Report";
    case k::trap_repress: return "TrapRepress";
    case k::get_table: return "GetTable";
    case k::get_trace_table: return "GetTraceTable";
    case k::get_multi: return "GetMulti";
    case k::delete_: return "Delete";
    case k::get_resp: return "GetResp";
    case k::report_resp: return "ReportResp";
    case k::get_table_resp: return "GetTableResp";
    case k::get_trace_table_resp: return "GetTraceTableResp";
    case k::get_multi_resp: return "GetMultiResp";
    case k::delete_resp: return "DeleteResp";
    default: return fmt::format("0x{:02x}", m);
  }
}

std::string attribute_label(uint8_t mgmt_class, uint16_t attribute) {
  const char* name = nullptr;
  switch (mgmt_class) {
    case wire::mgmt_class::subn_lid_routed:
    case wire::mgmt_class::subn_directed_route: name = smp_attribute(attribute); break;
    case wire::mgmt_class::subn_adm: name = sa_attribute(attribute); break;
    case wire::mgmt_class::perf_mgt: name = perf_attribute(attribute); break;
    default: break;
  }
  return name ? std::string(name) : fmt::format("0x{:04x}", attribute);
}

std::string sa_status_label(uint16_t status) {
  // The common status (IBA 13.4.7, table 110) in the low byte; the SA's own
  // (IBA 15.2.1.1, table 187) in the high byte.
  switch (status) {
    case wire::mad_status::ok: return "ok";
    case wire::mad_status::busy: return "busy";
    case wire::mad_status::redirect: return "redirect";
    case wire::mad_status::bad_version: return "bad_version";
    case wire::mad_status::method_unsupported: return "method_unsupported";
    case wire::mad_status::method_attr_unsupported: return "method_attr_unsupported";
    case wire::mad_status::invalid_field: return "invalid_field";
    case wire::sa_status::no_resources: return "ERR_NO_RESOURCES";
    case wire::sa_status::req_invalid: return "ERR_REQ_INVALID";
    case wire::sa_status::no_records: return "ERR_NO_RECORDS";
    case wire::sa_status::too_many_records: return "ERR_TOO_MANY_RECORDS";
    case wire::sa_status::req_gid_invalid: return "ERR_REQ_INVALID_GID";
    case wire::sa_status::req_insufficient_components: return "ERR_REQ_INSUFFICIENT_COMPONENTS";
    case wire::sa_status::req_denied: return "ERR_REQ_DENIED";
    default: return fmt::format("0x{:04x}", status);
  }
}

}  // namespace ibsm::metrics
