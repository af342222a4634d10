#include "sm/config/sm_config.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "mad/base/text.h"

#include "routing/chain.h"
#include "routing/registry.h"
#include "sm/config/listen_address.h"

namespace ibsm {
namespace {

// Member setters and getters, one template per value kind; the table below
// instantiates them per key.
template <auto Member, uint64_t Min, uint64_t Max>
std::string set_number(SmConfig& c, std::string_view v) {
  const auto n = parse_unsigned(v, Notation::decimal_or_hex);
  if (!n) return fmt::format("{} is not a number", quoted(v));
  if (*n < Min || *n > Max) return fmt::format("{} is out of range {}..{}", *n, Min, Max);
  using T = std::remove_reference_t<decltype(c.*Member)>;
  c.*Member = static_cast<T>(*n);
  return {};
}
template <auto Member>
std::string get_number(const SmConfig& c) {
  return std::to_string(c.*Member);
}
template <auto Member>
std::string get_hex(const SmConfig& c) {
  return fmt::format("0x{:016x}", static_cast<uint64_t>(c.*Member));
}
template <auto Member>
std::string set_bool(SmConfig& c, std::string_view v) {
  std::string s(v);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (s == "true" || s == "1" || s == "yes" || s == "on") {
    c.*Member = true;
  } else if (s == "false" || s == "0" || s == "no" || s == "off") {
    c.*Member = false;
  } else {
    return fmt::format("{} is not TRUE or FALSE", quoted(v));
  }
  return {};
}
template <auto Member>
std::string get_bool(const SmConfig& c) {
  return c.*Member ? "TRUE" : "FALSE";
}
template <auto Member>
std::string set_string(SmConfig& c, std::string_view v) {
  c.*Member = std::string(v);
  return {};
}
template <auto Member>
std::string get_string(const SmConfig& c) {
  return c.*Member;
}
std::string set_guid(SmConfig& c, std::string_view v) {
  const auto g = parse_guid(v, Notation::decimal_or_hex);
  if (!g) return fmt::format("{} is not a GUID", quoted(v));
  c.port_guid = *g;
  return {};
}
std::string get_guid(const SmConfig& c) { return fmt::format("{}", c.port_guid); }
// The chain is parsed against the built-in engines here, when the config is
// read, so a misspelt name stops `ibsm run` (and -c) before any sweep
// rather than at the first routing.
std::string set_routing(SmConfig& c, std::string_view v) {
  if (v.empty()) return "needs at least one engine name";
  routing::EngineRegistry engines;
  if (Status s = routing::register_builtin_engines(engines); !s.ok()) return s.message();
  auto chain = routing::parse_engine_chain(v, engines);
  if (!chain.ok()) return chain.status().message();
  c.routing_engine = std::string(v);
  return {};
}

std::string set_part_enforce(SmConfig& c, std::string_view v) {
  auto e = parse_part_enforce(v);
  if (!e) return fmt::format("{} is not both, in, out or off", quoted(v));
  c.part_enforce = *e;
  return {};
}
std::string get_part_enforce(const SmConfig& c) { return std::string(part_enforce_name(c.part_enforce)); }

std::string set_metrics_listen(SmConfig& c, std::string_view v) {
  auto a = parse_listen_address(v);
  if (!a.ok()) return a.status().message();
  c.metrics_listen = std::string(v);
  return {};
}

// The QoS keys of one port class (QosClassKeys): the general qos_* keys
// need a value (an empty string: OpenSM's default); a class's may be unset
// (0, -1, empty), falling back to the general key.
template <QosClassKeys SmConfig::*Cls, bool General>
std::string set_qos_max_vls(SmConfig& c, std::string_view v) {
  const auto n = parse_unsigned(v, Notation::decimal_or_hex, 15);
  if (!n || (General && *n == 0))
    return fmt::format("{} is not {}1-15", quoted(v), General ? "" : "0 (unset) or ");
  (c.*Cls).max_vls = static_cast<uint8_t>(*n);
  return {};
}
template <QosClassKeys SmConfig::*Cls>
std::string get_qos_max_vls(const SmConfig& c) {
  return std::to_string((c.*Cls).max_vls);
}
template <QosClassKeys SmConfig::*Cls, bool General>
std::string set_qos_high_limit(SmConfig& c, std::string_view v) {
  if (!General && v == "-1") {
    (c.*Cls).high_limit = -1;
    return {};
  }
  const auto n = parse_unsigned(v, Notation::decimal_or_hex, 255);
  if (!n) return fmt::format("{} is not {}0-255", quoted(v), General ? "" : "-1 (unset) or ");
  (c.*Cls).high_limit = static_cast<int16_t>(*n);
  return {};
}
template <QosClassKeys SmConfig::*Cls>
std::string get_qos_high_limit(const SmConfig& c) {
  return std::to_string((c.*Cls).high_limit);
}
template <QosClassKeys SmConfig::*Cls, std::string QosClassKeys::*Field, bool Sl2Vl>
std::string set_qos_table(SmConfig& c, std::string_view v) {
  if (!v.empty()) {
    Status s = Sl2Vl ? parse_sl2vl_template(v).status() : parse_vlarb_template(v).status();
    if (!s.ok()) return fmt::format("{} {}", quoted(v), s.message());
  }
  (c.*Cls).*Field = std::string(v);
  return {};
}
template <QosClassKeys SmConfig::*Cls, std::string QosClassKeys::*Field>
std::string get_qos_table(const SmConfig& c) {
  return (c.*Cls).*Field;
}

// The five keys of one class: PREFIX_max_vls, _high_limit, _vlarb_high,
// _vlarb_low, _sl2vl.
#define IBSM_QOS_CLASS_KEYS(PREFIX, MEMBER, GENERAL, PORTS, UNSET)                                               \
  {PREFIX "_max_vls", "most VLs the QoS setup plans for " PORTS " (1-15" UNSET "); OpenSM reads it, and both "   \
   "program each port by its own OperationalVLs", true, set_qos_max_vls<&SmConfig::MEMBER, GENERAL>,              \
   get_qos_max_vls<&SmConfig::MEMBER>},                                                                           \
  {PREFIX "_high_limit", "PortInfo:VLHighLimit " PORTS ": how much high-priority arbitration weight may pass "    \
   "before a waiting low-priority packet is sent (IBA 7.6.9; 0-255" UNSET ")", true,                             \
   set_qos_high_limit<&SmConfig::MEMBER, GENERAL>, get_qos_high_limit<&SmConfig::MEMBER>},                        \
  {PREFIX "_vlarb_high", "high-priority VL arbitration table " PORTS ", VL:weight,... (up to 64 entries; each "    \
   "port gets as many as its VLArbitrationHighCap" UNSET ")", true,                                               \
   set_qos_table<&SmConfig::MEMBER, &QosClassKeys::vlarb_high, false>,                                           \
   get_qos_table<&SmConfig::MEMBER, &QosClassKeys::vlarb_high>},                                                  \
  {PREFIX "_vlarb_low", "low-priority VL arbitration table " PORTS ", VL:weight,... (up to 64 entries; each "      \
   "port gets as many as its VLArbitrationLowCap" UNSET ")", true,                                                \
   set_qos_table<&SmConfig::MEMBER, &QosClassKeys::vlarb_low, false>,                                            \
   get_qos_table<&SmConfig::MEMBER, &QosClassKeys::vlarb_low>},                                                   \
  {PREFIX "_sl2vl", "SL to VL table " PORTS ": 16 VLs for SL0-15, VL15 drops; a VL beyond a port's "             \
   "OperationalVLs is masked down to them as OpenSM does" UNSET, true,                                            \
   set_qos_table<&SmConfig::MEMBER, &QosClassKeys::sl2vl, true>, get_qos_table<&SmConfig::MEMBER, &QosClassKeys::sl2vl>}

// The table. `help` says what a key means; write_config() adds its default
// and whether SIGHUP applies it. hot_reload is true only where a SIGHUP
// really takes effect: SubnetManager::reconfigure() copies exactly these keys
// (apply_reloadable), and the daemon applies the edge's own (log_level,
// dump_files_dir, partition_config_file). The rest are read once at start:
// the port, the LID plan, the SM_Key, the engines' files, the log and cache
// paths.
constexpr ConfigKey kKeys[] = {
    {"guid", "port GUID of the local port the SM binds to; 0: the first port whose link is up", false, set_guid,
     get_guid},
    {"lmc", "LID mask control: every CA port gets 2^lmc consecutive LIDs, for multipathing (0-7)", false,
     set_number<&SmConfig::lmc, 0, 7>, get_number<&SmConfig::lmc>},
    {"lmc_esp0", "switches with an enhanced port 0 get 2^lmc LIDs too (TRUE) or one (FALSE)", false,
     set_bool<&SmConfig::lmc_esp0>, get_bool<&SmConfig::lmc_esp0>},
    {"reassign_lids", "assign every LID afresh at start, ignoring the LIDs ports hold and the guid2lid cache (-r)",
     false, set_bool<&SmConfig::reassign_lids>, get_bool<&SmConfig::reassign_lids>},
    {"sweep_interval", "seconds between light sweeps, which look for changes a trap did not report; 0: none", true,
     set_number<&SmConfig::sweep_interval, 0, 86400>, get_number<&SmConfig::sweep_interval>},
    {"sm_priority", "SM priority for the master election, 0 (lowest) to 15; the highest wins, then the lowest port "
     "GUID (IBA 14.4.1)", true, set_number<&SmConfig::sm_priority, 0, 15>, get_number<&SmConfig::sm_priority>},
    {"elevated_priority", "priority a master advertises once it is master, so a higher SM that joins later does "
     "not take the mastership (sticky mastership); 0: off", true, set_number<&SmConfig::elevated_priority, 0, 15>,
     get_number<&SmConfig::elevated_priority>},
    {"sminfo_polling_timeout", "milliseconds between a standby's SMInfo polls of the master (50-3600000)", true,
     set_number<&SmConfig::sminfo_polling_timeout, 50, 3600000>, get_number<&SmConfig::sminfo_polling_timeout>},
    {"polling_retry_number", "unanswered polls of the master in a row after which a standby takes over (1-100)",
     true, set_number<&SmConfig::polling_retry_number, 1, 100>, get_number<&SmConfig::polling_retry_number>},
    {"incremental_sweeps", "after a trap 128 or a port state change the light sweep finds, read again only the "
     "switches that changed and what hangs off their changed ports, and program only what differs; a heavy sweep "
     "when in doubt (FALSE: every change is a heavy sweep)",
     true, set_bool<&SmConfig::incremental_sweeps>, get_bool<&SmConfig::incremental_sweeps>},
    {"use_ucast_cache", "after a switch cable came or went, an incremental sweep mends the last unicast tables "
     "where the engine can (minhop: only the entries no longer on a shortest path, checked on the LIDs they "
     "change) instead of routing afresh (FALSE: route afresh; a heavy sweep always does)",
     true, set_bool<&SmConfig::use_ucast_cache>, get_bool<&SmConfig::use_ucast_cache>},
    {"missing_node_sweeps", "heavy sweeps in a row a node that answered before may stay silent while its "
     "neighbour's port is up, before it is taken as gone; until then the subnet is reported partial (not up) and "
     "swept again with backoff; 0: at once, as OpenSM (0-100)",
     true, set_number<&SmConfig::missing_node_sweeps, 0, 100>, get_number<&SmConfig::missing_node_sweeps>},
    {"flap_quarantine_threshold", "times a link may go down within flap_quarantine_window_s before the SM "
     "quarantines it: one of its switch ports is disabled (PortPhysicalState Disabled) and reported until "
     "`ibsm ctl release` or the hold ends; 0: never (0-1000)",
     true, set_number<&SmConfig::flap_quarantine_threshold, 0, 1000>, get_number<&SmConfig::flap_quarantine_threshold>},
    {"flap_quarantine_window_s", "seconds within which flap_quarantine_threshold link losses quarantine a link "
     "(1-86400)",
     true, set_number<&SmConfig::flap_quarantine_window_s, 1, 86400>, get_number<&SmConfig::flap_quarantine_window_s>},
    {"flap_quarantine_hold_s", "seconds a quarantined port is held down before the SM lets it train again "
     "(PortPhysicalState Polling); 0: until `ibsm ctl release` (0-2592000)",
     true, set_number<&SmConfig::flap_quarantine_hold_s, 0, 2592000>, get_number<&SmConfig::flap_quarantine_hold_s>},
    {"sm_key", "SM_Key of this SM: SMInfo Sets and trusted SA requests (P_Key records) must carry it", false,
     set_number<&SmConfig::sm_key, 0, UINT64_MAX>, get_hex<&SmConfig::sm_key>},
    {"m_key", "M_Key written to every end port and switch port 0 (IBA 14.2.4); SMPs to a port carry the key it "
     "holds (0: no M_Key); from the next heavy sweep", true, set_number<&SmConfig::m_key, 0, UINT64_MAX>,
     get_hex<&SmConfig::m_key>},
    {"m_key_protection_level", "M_KeyProtectBits written with the M_Key: 0 SMPs without the key may read, not set; "
     "1 they read the M_Key as 0; 2 and 3 they may neither read nor set (IBA 14.2.4.1)", true,
     set_number<&SmConfig::m_key_protection_level, 0, 3>, get_number<&SmConfig::m_key_protection_level>},
    {"m_key_lease_period", "seconds a port waits, after an SMP with a wrong M_Key, for one with the right key "
     "before it drops its protection to level 0 (IBA 14.2.4.2); 0: never", true,
     set_number<&SmConfig::m_key_lease_period, 0, 65535>, get_number<&SmConfig::m_key_lease_period>},
    {"m_key_lookup", "talk to each port with the M_Key it is known to hold (guid2mkey in the cache dir), else "
     "only with m_key", true, set_bool<&SmConfig::m_key_lookup>, get_bool<&SmConfig::m_key_lookup>},
    {"subnet_prefix", "subnet prefix (upper 64 bits of every port GID) written to every port", false,
     set_number<&SmConfig::subnet_prefix, 0, UINT64_MAX>, get_hex<&SmConfig::subnet_prefix>},
    {"subnet_timeout", "PortInfo:SubnetTimeout of every port, 4.096 us * 2^value (0-31); from the next heavy sweep",
     true, set_number<&SmConfig::subnet_timeout, 0, 31>, get_number<&SmConfig::subnet_timeout>},
    {"packet_life_time", "SwitchInfo:LifeTimeValue of every switch (0-19); from the next heavy sweep", true,
     set_number<&SmConfig::packet_life_time, 0, 0x13>, get_number<&SmConfig::packet_life_time>},
    {"max_op_vls", "most data VLs to enable: 1 VL0, 2 VL0-1, 3 VL0-3, 4 VL0-7, 5 VL0-14; from the next heavy sweep",
     true, set_number<&SmConfig::max_op_vls, 1, 5>, get_number<&SmConfig::max_op_vls>},
    {"head_of_queue_lifetime", "PortInfo:HOQLife of switch ports (0-20); from the next heavy sweep", true,
     set_number<&SmConfig::head_of_queue_lifetime, 0, 0x14>, get_number<&SmConfig::head_of_queue_lifetime>},
    {"transaction_timeout", "milliseconds to wait for each SMP answer before a retry (-t)", true,
     set_number<&SmConfig::transaction_timeout, 1, 60000>, get_number<&SmConfig::transaction_timeout>},
    {"transaction_retries", "further attempts of an SMP after a timeout (--retries)", true,
     set_number<&SmConfig::transaction_retries, 0, 100>, get_number<&SmConfig::transaction_retries>},
    {"max_wire_smps", "SMPs in flight at once (--maxsmps)", true, set_number<&SmConfig::max_wire_smps, 1, 1024>,
     get_number<&SmConfig::max_wire_smps>},
    {"routing_engine", "routing engines to try in order, comma separated (minhop, updn, dnup, ftree, sssp, dfsssp, "
     "lash, dor, torus-2QoS, file), then minhop unless no_fallback is listed (-R); a chain that does not build is logged and "
     "the old one kept",
     true, set_routing, get_string<&SmConfig::routing_engine>},
    {"root_guid_file", "file of updn's root switches, one node GUID per line (-a); empty: chosen automatically",
     false, set_string<&SmConfig::root_guid_file>, get_string<&SmConfig::root_guid_file>},
    {"lfts_file", "forwarding tables for the file engine: dump_lfts output or opensm-lfts.dump (-U)", false,
     set_string<&SmConfig::lfts_file>, get_string<&SmConfig::lfts_file>},
    {"torus_config", "OpenSM's torus-2QoS.conf for the torus-2QoS engine (--torus_config): the radices, seeds "
     "and datelines; read when routing_engine names torus-2QoS; absent: the torus is found from the cables",
     false, set_string<&SmConfig::torus_config>, get_string<&SmConfig::torus_config>},
    {"log_file", "log file, appended to (-f); empty: standard error. SIGUSR1 reopens it (logrotate)", false,
     set_string<&SmConfig::log_file>, get_string<&SmConfig::log_file>},
    {"log_level", "log verbosity: 0 error, 1 warn, 2 info, 3 debug, 4 trace", true,
     set_number<&SmConfig::log_level, 0, 4>, get_number<&SmConfig::log_level>},
    {"cache_dir", "folder for the guid2lid, guid2mkey and switch-table caches, read at start and written after each "
     "sweep, and the SA's registrations (services, subscriptions, multicast groups), restored at start and saved as "
     "they change",
     false, set_string<&SmConfig::cache_dir>, get_string<&SmConfig::cache_dir>},
    {"dump_files_dir", "write OpenSM-format dump files (subnet.lst, fdbs, mcfdbs) here after each sweep; empty: "
     "none", true, set_string<&SmConfig::dump_files_dir>, get_string<&SmConfig::dump_files_dir>},
    {"control_socket", "the Unix socket ibsm ctl talks to (status, resweep, reroute, loglevel, dump, sminfo, "
     "handover, disable); empty: none. Mode 0600, or 0660 with control_group", false,
     set_string<&SmConfig::control_socket>, get_string<&SmConfig::control_socket>},
    {"control_group", "the group whose members may use the control socket besides root and the daemon's user; "
     "empty: root only", false, set_string<&SmConfig::control_group>, get_string<&SmConfig::control_group>},
    {"honor_guid2lid_file", "give ports the LIDs the guid2lid cache records", false,
     set_bool<&SmConfig::honor_guid2lid_file>, get_bool<&SmConfig::honor_guid2lid_file>},
    {"partition_config_file", "partitions, OpenSM's partitions.conf (-P); absent at the default path: every port a "
     "full member of the Default partition 0x7fff", true, set_string<&SmConfig::partition_config_file>,
     get_string<&SmConfig::partition_config_file>},
    {"part_enforce", "partition enforcement on switch ports facing CAs and routers: both, in, out or off", true,
     set_part_enforce, get_part_enforce},
    {"allow_both_pkeys", "a port may be a full and a limited member of one partition (member flag 'both')", true,
     set_bool<&SmConfig::allow_both_pkeys>, get_bool<&SmConfig::allow_both_pkeys>},
    {"pkey_trust_reset_tables", "take a port no SM has configured since its reset (LID 0, INIT) to hold the reset "
     "P_Key table, 0xFFFF at index 0 (IBA C10-123), and do not read it; FALSE: read every table, for ports that "
     "keep P_Keys in non-volatile storage", true, set_bool<&SmConfig::pkey_trust_reset_tables>,
     get_bool<&SmConfig::pkey_trust_reset_tables>},
    {"perfmgr", "run the performance manager: a periodic PMA PortCounters sweep of every port while master", true,
     set_bool<&SmConfig::perfmgr>, get_bool<&SmConfig::perfmgr>},
    {"perfmgr_sweep_time_s", "seconds from the start of one PMA sweep to the next", true,
     set_number<&SmConfig::perfmgr_sweep_time_s, 1, 86400>, get_number<&SmConfig::perfmgr_sweep_time_s>},
    {"perfmgr_max_outstanding_queries", "PMA queries in flight at once", true,
     set_number<&SmConfig::perfmgr_max_outstanding_queries, 1, 65535>,
     get_number<&SmConfig::perfmgr_max_outstanding_queries>},
    {"perfmgr_ignore_cas", "read switch ports only, not CA ports", true, set_bool<&SmConfig::perfmgr_ignore_cas>,
     get_bool<&SmConfig::perfmgr_ignore_cas>},
    {"perfmgr_rm_nodes", "forget the counters of ports that left the subnet", true,
     set_bool<&SmConfig::perfmgr_rm_nodes>, get_bool<&SmConfig::perfmgr_rm_nodes>},
    {"perfmgr_log_errors", "log each port whose error counters climbed between two PMA sweeps", true,
     set_bool<&SmConfig::perfmgr_log_errors>, get_bool<&SmConfig::perfmgr_log_errors>},
    {"perfmgr_query_cpi", "ask each node's PMA ClassPortInfo first (PortCountersExtended supported?)", true,
     set_bool<&SmConfig::perfmgr_query_cpi>, get_bool<&SmConfig::perfmgr_query_cpi>},
    {"metrics_listen", "ADDRESS:PORT serving Prometheus metrics on GET /metrics; empty or off: none. 9464 is in "
     "Prometheus's exporter port range; the loopback default shows them to this host only (another address is "
     "logged as a warning)", false, set_metrics_listen, get_string<&SmConfig::metrics_listen>},
    {"qos", "program SL2VL and VL arbitration tables from the qos_* keys and apply the QoS policy file to "
     "PathRecords; FALSE: neither, as OpenSM (the ports keep their own tables)", true, set_bool<&SmConfig::qos>,
     get_bool<&SmConfig::qos>},
    {"qos_policy_file", "OpenSM's qos-policy.conf (port groups, QoS levels, match rules, ULPs), read with qos "
     "TRUE; absent at the default path: no policy. SIGHUP re-reads it; a bad file is reported and the policy in "
     "effect stays", true, set_string<&SmConfig::qos_policy_file>, get_string<&SmConfig::qos_policy_file>},
    IBSM_QOS_CLASS_KEYS("qos", qos_options, true, "of every port class whose own key is unset", "; empty: OpenSM's default"),
    IBSM_QOS_CLASS_KEYS("qos_ca", qos_ca, false, "of CA ports", "; unset: the qos_ key's"),
    IBSM_QOS_CLASS_KEYS("qos_sw0", qos_sw0, false, "of switch port 0 (enhanced)", "; unset: the qos_ key's"),
    IBSM_QOS_CLASS_KEYS("qos_swe", qos_swe, false, "of switch external ports", "; unset: the qos_ key's"),
    IBSM_QOS_CLASS_KEYS("qos_rtr", qos_rtr, false, "of router ports", "; unset: the qos_ key's"),
};
#undef IBSM_QOS_CLASS_KEYS

}  // namespace

std::span<const ConfigKey> config_keys() { return kKeys; }

QosTables qos_tables(const SmConfig& c) {
  QosTables t;
  t.by_class[static_cast<size_t>(QosPortClass::ca)] = resolve_qos_class(c.qos_ca, c.qos_options);
  t.by_class[static_cast<size_t>(QosPortClass::sw0)] = resolve_qos_class(c.qos_sw0, c.qos_options);
  t.by_class[static_cast<size_t>(QosPortClass::swe)] = resolve_qos_class(c.qos_swe, c.qos_options);
  t.by_class[static_cast<size_t>(QosPortClass::rtr)] = resolve_qos_class(c.qos_rtr, c.qos_options);
  return t;
}

const ConfigKey* find_config_key(std::string_view key) {
  for (const auto& k : kKeys)
    if (k.key == key) return &k;
  return nullptr;
}

Status set_config_value(SmConfig& config, std::string_view key, std::string_view value) {
  const ConfigKey* k = find_config_key(key);
  if (!k) return invalid_argument_error(fmt::format("unknown key {}", quoted(key)));
  std::string err = k->set(config, trim(value));
  if (!err.empty()) return invalid_argument_error(fmt::format("{}: {}", key, err));
  return {};
}

Status read_config(std::istream& in, std::string_view source_name, SmConfig& config) {
  SmConfig next = config;
  std::vector<std::string> errors;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    std::string_view s = trim(line);
    if (s.empty() || s.front() == '#') continue;
    size_t space = s.find_first_of(" \t");
    std::string_view key = s.substr(0, space);
    std::string_view value = space == std::string_view::npos ? std::string_view{} : trim(s.substr(space));
    // OpenSM writes "(null)" for unset strings.
    if (value == "(null)") value = {};
    const ConfigKey* k = find_config_key(key);
    if (!k) {
      errors.push_back(fmt::format("{}:{}: unknown key {}", source_name, number, quoted(key)));
      continue;
    }
    std::string err = k->set(next, value);
    if (!err.empty()) errors.push_back(fmt::format("{}:{}: {}: {}", source_name, number, key, err));
  }
  if (in.bad()) errors.push_back(fmt::format("{}: read error", source_name));
  if (!errors.empty()) {
    std::string all;
    for (const auto& e : errors) all += (all.empty() ? "" : "\n") + e;
    return invalid_argument_error(all);
  }
  config = std::move(next);
  return {};
}

std::string config_key_doc(const ConfigKey& key) {
  const std::string fallback = key.get(SmConfig{});
  return fmt::format("# {}: {}\n# default: {}; {}\n", key.key, key.help, fallback.empty() ? "(null)" : fallback,
                     key.hot_reload ? "SIGHUP applies it" : "needs a restart");
}

void write_config(const SmConfig& config, std::ostream& out) {
  out << "# ibsm configuration: \"key value\" lines, OpenSM's key names where the meaning\n"
         "# is the same. Written by `ibsm run -c FILE`; read with `ibsm run -F FILE`.\n"
         "# SIGHUP re-reads it: keys marked \"SIGHUP applies it\" take effect, a changed\n"
         "# key that needs a restart is logged and kept, a bad file changes nothing.\n";
  for (const auto& k : kKeys) {
    out << '\n' << config_key_doc(k);
    std::string v = k.get(config);
    out << k.key << ' ' << (v.empty() ? "(null)" : v) << '\n';
  }
}

}  // namespace ibsm
