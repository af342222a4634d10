#include "sm/config/sm_config.h"

#include <algorithm>
#include <charconv>
#include <string>

#include <fmt/format.h>

namespace ibsm {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// Decimal, or hex with 0x (OpenSM writes both).
bool parse_u64(std::string_view v, uint64_t& out) {
  int base = 10;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    base = 16;
    v.remove_prefix(2);
  }
  if (v.empty()) return false;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out, base);
  return ec == std::errc() && end == v.data() + v.size();
}

// Member setters and getters, one template per value kind; the table below
// instantiates them per key.
template <auto Member, uint64_t Min, uint64_t Max>
std::string set_number(SmConfig& c, std::string_view v) {
  uint64_t n = 0;
  if (!parse_u64(v, n)) return fmt::format("'{}' is not a number", v);
  if (n < Min || n > Max) return fmt::format("{} is out of range {}..{}", n, Min, Max);
  using T = std::remove_reference_t<decltype(c.*Member)>;
  c.*Member = static_cast<T>(n);
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
    return fmt::format("'{}' is not TRUE or FALSE", v);
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
  uint64_t g = 0;
  if (!parse_u64(v, g)) return fmt::format("'{}' is not a GUID", v);
  c.port_guid = Guid{g};
  return {};
}
std::string get_guid(const SmConfig& c) { return fmt::format("{}", c.port_guid); }
std::string set_routing(SmConfig& c, std::string_view v) {
  if (v.empty()) return "needs at least one engine name";
  c.routing_engine = std::string(v);
  return {};
}

std::string set_part_enforce(SmConfig& c, std::string_view v) {
  auto e = parse_part_enforce(v);
  if (!e) return fmt::format("'{}' is not both, in, out or off", v);
  c.part_enforce = *e;
  return {};
}
std::string get_part_enforce(const SmConfig& c) { return std::string(part_enforce_name(c.part_enforce)); }

constexpr ConfigKey kKeys[] = {
    {"guid", "port GUID to bind to (0: the first port whose link is up)", false, set_guid, get_guid},
    {"lmc", "LID mask control: each CA port gets 2^lmc LIDs (0-7)", false, set_number<&SmConfig::lmc, 0, 7>,
     get_number<&SmConfig::lmc>},
    {"lmc_esp0", "switches with an enhanced port 0 get 2^lmc LIDs too", false, set_bool<&SmConfig::lmc_esp0>,
     get_bool<&SmConfig::lmc_esp0>},
    {"reassign_lids", "assign every LID afresh at start (-r)", false, set_bool<&SmConfig::reassign_lids>,
     get_bool<&SmConfig::reassign_lids>},
    {"sweep_interval", "seconds between light sweeps; 0: none", true, set_number<&SmConfig::sweep_interval, 0, 86400>,
     get_number<&SmConfig::sweep_interval>},
    {"sm_priority", "SM priority for master election (0-15)", true, set_number<&SmConfig::sm_priority, 0, 15>,
     get_number<&SmConfig::sm_priority>},
    {"elevated_priority", "priority a master advertises once master (sticky mastership); 0: off", true,
     set_number<&SmConfig::elevated_priority, 0, 15>, get_number<&SmConfig::elevated_priority>},
    {"sminfo_polling_timeout", "milliseconds between a standby's SMInfo polls of the master", true,
     set_number<&SmConfig::sminfo_polling_timeout, 50, 3600000>, get_number<&SmConfig::sminfo_polling_timeout>},
    {"polling_retry_number", "unanswered polls in a row after which a standby takes over", true,
     set_number<&SmConfig::polling_retry_number, 1, 100>, get_number<&SmConfig::polling_retry_number>},
    {"sm_key", "SM_Key of this SM", false, set_number<&SmConfig::sm_key, 0, UINT64_MAX>, get_hex<&SmConfig::sm_key>},
    {"subnet_prefix", "subnet prefix written to every port", false,
     set_number<&SmConfig::subnet_prefix, 0, UINT64_MAX>, get_hex<&SmConfig::subnet_prefix>},
    {"subnet_timeout", "PortInfo:SubnetTimeout (4.096 us * 2^value)", true, set_number<&SmConfig::subnet_timeout, 0, 31>,
     get_number<&SmConfig::subnet_timeout>},
    {"packet_life_time", "SwitchInfo:LifeTimeValue of every switch", true,
     set_number<&SmConfig::packet_life_time, 0, 0x13>, get_number<&SmConfig::packet_life_time>},
    {"max_op_vls", "most data VLs to enable (1: VL0 .. 5: VL0-14)", true, set_number<&SmConfig::max_op_vls, 1, 5>,
     get_number<&SmConfig::max_op_vls>},
    {"head_of_queue_lifetime", "PortInfo:HOQLife of switch ports", true,
     set_number<&SmConfig::head_of_queue_lifetime, 0, 0x14>, get_number<&SmConfig::head_of_queue_lifetime>},
    {"transaction_timeout", "milliseconds to wait for each SMP answer", true,
     set_number<&SmConfig::transaction_timeout, 1, 60000>, get_number<&SmConfig::transaction_timeout>},
    {"transaction_retries", "further attempts after a timeout", true,
     set_number<&SmConfig::transaction_retries, 0, 100>, get_number<&SmConfig::transaction_retries>},
    {"max_wire_smps", "SMPs in flight at once", true, set_number<&SmConfig::max_wire_smps, 1, 1024>,
     get_number<&SmConfig::max_wire_smps>},
    {"routing_engine", "routing engines to try in order, comma separated", true, set_routing,
     get_string<&SmConfig::routing_engine>},
    {"root_guid_file", "node GUIDs of updn's root switches, one per line (empty: automatic)", false,
     set_string<&SmConfig::root_guid_file>, get_string<&SmConfig::root_guid_file>},
    {"lfts_file", "forwarding tables for the file engine (dump_lfts or opensm-lfts.dump)", false,
     set_string<&SmConfig::lfts_file>, get_string<&SmConfig::lfts_file>},
    {"log_file", "log file (empty: standard error)", false, set_string<&SmConfig::log_file>,
     get_string<&SmConfig::log_file>},
    {"log_level", "0 error, 1 warn, 2 info, 3 debug, 4 trace", true, set_number<&SmConfig::log_level, 0, 4>,
     get_number<&SmConfig::log_level>},
    {"cache_dir", "folder for the guid2lid and switch-table caches", false, set_string<&SmConfig::cache_dir>,
     get_string<&SmConfig::cache_dir>},
    {"dump_files_dir", "write OpenSM-format dump files (subnet.lst, fdbs) here after each sweep", true,
     set_string<&SmConfig::dump_files_dir>, get_string<&SmConfig::dump_files_dir>},
    {"control_socket", "the Unix socket ibsm ctl talks to (status, resweep, reroute, loglevel, dump, sminfo, "
     "handover, disable); empty: none. Mode 0600, or 0660 with control_group", false,
     set_string<&SmConfig::control_socket>, get_string<&SmConfig::control_socket>},
    {"control_group", "the group whose members may use the control socket besides root and the daemon's user; "
     "empty: root only", false, set_string<&SmConfig::control_group>, get_string<&SmConfig::control_group>},
    {"honor_guid2lid_file", "give ports the LIDs the guid2lid file records", false,
     set_bool<&SmConfig::honor_guid2lid_file>, get_bool<&SmConfig::honor_guid2lid_file>},
    {"partition_config_file", "partitions (OpenSM's partitions.conf); absent at the default path: every port a full "
     "member of the Default partition 0x7fff", true, set_string<&SmConfig::partition_config_file>,
     get_string<&SmConfig::partition_config_file>},
    {"part_enforce", "partition enforcement on switch ports facing CAs and routers: both, in, out or off", true,
     set_part_enforce, get_part_enforce},
    {"allow_both_pkeys", "a port may be a full and a limited member of one partition (member flag 'both')", true,
     set_bool<&SmConfig::allow_both_pkeys>, get_bool<&SmConfig::allow_both_pkeys>},
};

}  // namespace

std::span<const ConfigKey> config_keys() { return kKeys; }

const ConfigKey* find_config_key(std::string_view key) {
  for (const auto& k : kKeys)
    if (k.key == key) return &k;
  return nullptr;
}

Status set_config_value(SmConfig& config, std::string_view key, std::string_view value) {
  const ConfigKey* k = find_config_key(key);
  if (!k) return invalid_argument_error(fmt::format("unknown key '{}'", key));
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
      errors.push_back(fmt::format("{}:{}: unknown key '{}'", source_name, number, key));
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

void write_config(const SmConfig& config, std::ostream& out) {
  out << "# ibsm configuration (OpenSM key names where the meaning is the same)\n";
  for (const auto& k : kKeys) {
    out << "\n# " << k.help << (k.hot_reload ? " [reloads on SIGHUP]" : "") << "\n";
    std::string v = k.get(config);
    out << k.key << ' ' << (v.empty() ? "(null)" : v) << '\n';
  }
}

}  // namespace ibsm
