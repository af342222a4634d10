// The SM's configuration: one declarative table of settings (key, member,
// parser and validator, default, help, hot-reloadable), read from an
// OpenSM-style config file ("key value" lines, '#' comments) so operators can
// bring their opensm.conf keys over. Parse, verify, apply, dump.
#pragma once

#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "sm/fabric/partitions_conf.h"
#include "sm/fabric/qos_tables.h"

namespace ibsm {

// OpenSM's OSM_DEFAULT_PARTITION_CONFIG_FILE.
inline constexpr std::string_view default_partition_config_file = "/etc/opensm/partitions.conf";
// OpenSM's OSM_DEFAULT_QOS_POLICY_FILE.
inline constexpr std::string_view default_qos_policy_file = "/etc/opensm/qos-policy.conf";

struct SmConfig {
  Guid port_guid;                  // guid: the local port to bind (0: first active)
  uint8_t lmc = 0;                 // lmc
  bool lmc_esp0 = false;           // lmc_esp0
  bool reassign_lids = false;      // reassign_lids (-r)
  uint32_t sweep_interval = 10;    // sweep_interval, seconds; 0 disables light sweeps
  uint8_t sm_priority = 0;         // sm_priority (-p), 0-15
  // elevated_priority (Omni-Path FM's ElevatedPriority): the priority a
  // master advertises once it is master, so a higher SM that comes back does
  // not take the mastership away (sticky mastership); 0: off.
  uint8_t elevated_priority = 0;
  // The standby polls the master's SMInfo every sminfo_polling_timeout ms
  // and takes over after polling_retry_number polls in a row go unanswered.
  // OpenSM's keys; its defaults (10000 ms x 4) notice a dead master after
  // 40-50 s. ibsm's notice it within about 1.2 s for 2 SMPs a second.
  uint32_t sminfo_polling_timeout = 500;
  uint32_t polling_retry_number = 2;
  // Heavy sweeps a node that answered before may stay silent, with its
  // neighbour's port still up, before it is taken as gone (until then the
  // subnet is partial: not up, retried); 0: at once, as OpenSM. ibsm.
  // incremental_sweeps: a trap 128 or a light sweep's PortStateChange reads
  // only the region that changed (sm/sweep/incremental_sweep.h)
  bool incremental_sweeps = true;
  // use_ucast_cache (OpenSM's key, -A): after a cable change an incremental
  // sweep mends the last tables where the engine can (min-hop:
  // routing/route_repair.h) instead of routing afresh. OpenSM's default is
  // FALSE; ibsm's mended tables are shortest paths checked like any others,
  // so it is on.
  bool use_ucast_cache = true;
  uint32_t missing_node_sweeps = 5;  // with the retries' backoff (0, 1, 2, 4 s...): about 15 s
  // Flap quarantine (sm/manager/flap_quarantine.h): a link lost this many
  // times within the window has a switch port disabled for the hold
  // (0: until released). Threshold 0: off. ibsm; UFM and Omni-Path FM have
  // the same idea under other names.
  uint32_t flap_quarantine_threshold = 10;
  uint32_t flap_quarantine_window_s = 60;
  uint32_t flap_quarantine_hold_s = 600;
  uint64_t sm_key = 1;             // sm_key (OpenSM's default: `saquery --smkey 1` is trusted)
  // M_Key (IBA 14.2.4), OpenSM's keys and defaults: the key every end port
  // and switch port 0 gets (0: none), its protection level (0-3), its lease
  // in seconds (0: never runs out), and whether ports are talked to with the
  // key they are known to hold (guid2mkey in the cache dir).
  uint64_t m_key = 0;
  uint8_t m_key_protection_level = 0;
  uint16_t m_key_lease_period = 0;
  bool m_key_lookup = true;
  uint64_t subnet_prefix = 0xfe80000000000000ULL;  // subnet_prefix
  uint8_t subnet_timeout = 18;     // subnet_timeout
  uint8_t packet_life_time = 0x12; // packet_life_time (SwitchInfo LifeTimeValue)
  uint8_t max_op_vls = 5;          // max_op_vls
  uint8_t head_of_queue_lifetime = 0x12;  // head_of_queue_lifetime
  uint32_t transaction_timeout = 200;     // transaction_timeout, ms (-t)
  uint32_t transaction_retries = 3;       // transaction_retries (--retries)
  uint32_t max_wire_smps = 16;            // max_wire_smps (--maxsmps): SMPs in flight
  std::string routing_engine = "minhop";  // routing_engine (-R)
  std::string root_guid_file;             // root_guid_file (-a): updn's root switches
  std::string lfts_file;                  // lfts_file (-U): the file engine's tables
  std::string torus_config = "/etc/ibsm/torus-2QoS.conf";  // torus_config: torus-2QoS's torus-2QoS.conf
  std::string log_file;                   // log_file (-f); empty: stderr
  uint32_t log_level = 2;                 // ibsm: 0 error .. 4 trace
  std::string cache_dir = "/var/cache/ibsm";  // guid2lid and switch-table caches
  std::string dump_files_dir;             // dump_files_dir: write OpenSM-format dumps there
  // The daemon's control socket (ibsm ctl; the only control path, no
  // network port) and the group besides root allowed on it.
  std::string control_socket = "/run/ibsm/ibsm.sock";
  std::string control_group;
  bool honor_guid2lid_file = true;        // honor_guid2lid_file
  // partition_config_file (-P): OpenSM's partitions.conf. Absent at the
  // default path: OpenSM's Default partition (every port a full member).
  std::string partition_config_file = std::string(default_partition_config_file);
  PartEnforce part_enforce = PartEnforce::both;  // part_enforce
  bool allow_both_pkeys = false;                 // allow_both_pkeys
  bool pkey_trust_reset_tables = true;           // pkey_trust_reset_tables (IBA C10-123)
  // The performance manager (sm/perfmgr): OpenSM's perfmgr keys and defaults.
  bool perfmgr = false;                           // perfmgr: the periodic PMA sweep
  uint32_t perfmgr_sweep_time_s = 180;            // perfmgr_sweep_time_s
  uint32_t perfmgr_max_outstanding_queries = 500; // perfmgr_max_outstanding_queries
  bool perfmgr_ignore_cas = false;                // perfmgr_ignore_cas
  bool perfmgr_rm_nodes = true;                   // perfmgr_rm_nodes
  bool perfmgr_log_errors = true;                 // perfmgr_log_errors
  bool perfmgr_query_cpi = true;                  // perfmgr_query_cpi
  // metrics_listen: ADDRESS:PORT of the Prometheus /metrics listener; empty
  // or "off": none (sm/config/listen_address.h).
  std::string metrics_listen = "127.0.0.1:9464";
  // QoS (OpenSM's keys, meanings and defaults; sm/fabric/qos_tables.h):
  // with qos FALSE no SL2VL or VL arbitration table is programmed from
  // them and no policy file is read, as in OpenSM.
  bool qos = false;  // qos
  QosClassKeys qos_options{default_qos_max_vls, default_qos_high_limit, std::string(default_qos_vlarb_high),
                           std::string(default_qos_vlarb_low), std::string(default_qos_sl2vl)};  // qos_*
  QosClassKeys qos_ca, qos_sw0, qos_swe, qos_rtr;  // qos_ca_*, qos_sw0_*, qos_swe_*, qos_rtr_*: unset
  std::string qos_policy_file = std::string(default_qos_policy_file);  // qos_policy_file
};

// The tables each port class gets from the qos_* keys.
QosTables qos_tables(const SmConfig& config);

// One row of the table.
struct ConfigKey {
  std::string_view key;
  std::string_view help;
  // Takes effect at SIGHUP without a restart. Otherwise a changed value is
  // reported at SIGHUP and kept until the next start (config_reload.h).
  bool hot_reload;
  // Parses `value` into `config`; returns an error message or empty.
  std::string (*set)(SmConfig& config, std::string_view value);
  // The current value as the file would spell it.
  std::string (*get)(const SmConfig& config);
};

std::span<const ConfigKey> config_keys();
const ConfigKey* find_config_key(std::string_view key);

// Reads "key value" lines into `config` (unset keys keep their values). Every
// bad line is an error naming source:line and the key; all are reported, and
// `config` is changed only when there are none.
Status read_config(std::istream& in, std::string_view source_name, SmConfig& config);
// Sets one key from the command line (-l 2 is set_config_value("lmc", "2")).
Status set_config_value(SmConfig& config, std::string_view key, std::string_view value);
// The comment block that documents `key` in a written file: its meaning,
// its default (the value in a default SmConfig) and whether SIGHUP applies it.
std::string config_key_doc(const ConfigKey& key);
// Writes the effective configuration in the file format, every key with its
// documentation (the shipped conf/ibsm.conf is this of the defaults).
void write_config(const SmConfig& config, std::ostream& out);

}  // namespace ibsm
