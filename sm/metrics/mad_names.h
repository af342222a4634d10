// Label values for MAD kinds in the metrics: the names IBA gives management
// classes, methods, attributes and statuses, or hex for the ones without.
#pragma once

#include <cstdint>
#include <string>

namespace ibsm::metrics {

// "smp_lid_routed", "smp_directed_route", "sa", "perf", else "0x21".
std::string mgmt_class_label(uint8_t mgmt_class);
// "Get", "Set", "GetTable", "GetResp", ... (IBA 13.4.5), else "0x14".
std::string method_label(uint8_t method);
// The attribute's name in its class: SMPs "NodeInfo", "PortInfo", ... (IBA
// 14.2.5), SA "PathRecord", "NodeRecord", ... (IBA 15.2.5), PerfMgt
// "PortCounters"; else "0x0019".
std::string attribute_label(uint8_t mgmt_class, uint16_t attribute);
// An SA answer's status: "ok", or the spec's name ("ERR_NO_RECORDS",
// "busy", "method_attr_unsupported", ...), else "0x0400".
std::string sa_status_label(uint16_t status);

}  // namespace ibsm::metrics
