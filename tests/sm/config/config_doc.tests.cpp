// The config file documents itself: every key's meaning, default and reload
// behaviour, and the defaults survive a write and a read.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>

#include "sm/config/sm_config.h"

using namespace ibsm;

TEST_CASE("every key is documented with its meaning, its default and its reload behaviour", "[config][doc]") {
  const SmConfig defaults;
  for (const ConfigKey& k : config_keys()) {
    INFO(k.key);
    CHECK(k.help.size() >= 10);
    const std::string doc = config_key_doc(k);
    const std::string fallback = k.get(defaults);
    CHECK(doc.find("# " + std::string(k.key) + ": ") == 0);
    CHECK(doc.find("default: " + (fallback.empty() ? std::string("(null)") : fallback) + ";") != std::string::npos);
    CHECK(doc.find(k.hot_reload ? "SIGHUP applies it" : "needs a restart") != std::string::npos);
  }
}

TEST_CASE("the defaults written and read back give the same configuration, key by key", "[config][doc]") {
  const SmConfig defaults;
  std::ostringstream out;
  write_config(defaults, out);
  // Start from values that differ wherever a key can: reading must set each.
  SmConfig read;
  read.lmc = 3;
  read.sweep_interval = 99;
  read.cache_dir = "/elsewhere";
  read.partition_config_file.clear();
  read.sm_key = 7;
  std::istringstream in(out.str());
  REQUIRE(read_config(in, "written", read).ok());
  for (const ConfigKey& k : config_keys()) {
    INFO(k.key);
    CHECK(k.get(read) == k.get(defaults));
  }
}

// Which keys a SIGHUP applies: checked against what SubnetManager::reconfigure
// and the daemon's reload really do with each (a key flagged reloadable that
// nothing re-reads would silently keep its old value).
TEST_CASE("each key is reloadable or restart-only as the daemon applies it", "[config][doc]") {
  const std::map<std::string_view, bool> expected = {
      {"guid", false},                  // the port is opened once
      {"lmc", false},                   // the LID plan
      {"lmc_esp0", false},
      {"reassign_lids", false},         // at start only
      {"sweep_interval", true},         // the manager's timer
      {"sm_priority", true},            // the SM agent's SMInfo
      {"elevated_priority", true},
      {"sminfo_polling_timeout", true}, // the standby's polling
      {"polling_retry_number", true},
      {"incremental_sweeps", true},     // the manager reads it at each change
      {"use_ucast_cache", true},        // the same
      {"missing_node_sweeps", true},    // the manager reads it at each sweep
      {"flap_quarantine_threshold", true},  // the manager's quarantine options
      {"flap_quarantine_window_s", true},
      {"flap_quarantine_hold_s", true},
      {"sm_key", false},                // the SM and SA agents hold it from creation
      {"m_key", true},                  // the next heavy sweep's settings
      {"m_key_protection_level", true},
      {"m_key_lease_period", true},
      {"m_key_lookup", true},
      {"subnet_prefix", false},         // every GID would change
      {"subnet_timeout", true},         // the next heavy sweep's settings
      {"packet_life_time", true},
      {"max_op_vls", true},
      {"head_of_queue_lifetime", true},
      {"transaction_timeout", true},    // the dispatcher's options
      {"transaction_retries", true},
      {"max_wire_smps", true},
      {"routing_engine", true},         // the chain is rebuilt
      {"root_guid_file", false},        // the engines' files are read at start
      {"lfts_file", false},
      {"torus_config", false},
      {"log_file", false},              // SIGUSR1 reopens the same path
      {"log_level", true},              // the daemon's log sink
      {"cache_dir", false},
      {"dump_files_dir", true},         // the daemon's after-sweep dumps
      {"control_socket", false},        // bound once, at start
      {"control_group", false},
      {"honor_guid2lid_file", false},
      {"partition_config_file", true},  // the daemon re-reads it
      {"part_enforce", true},
      {"allow_both_pkeys", true},
      {"pkey_trust_reset_tables", true},
      {"perfmgr", true},                // the perf manager's settings (reconfigure)
      {"perfmgr_sweep_time_s", true},
      {"perfmgr_max_outstanding_queries", true},
      {"perfmgr_ignore_cas", true},
      {"perfmgr_rm_nodes", true},
      {"perfmgr_log_errors", true},
      {"perfmgr_query_cpi", true},
      {"metrics_listen", false},        // the listener is bound at start
      {"qos", true},                    // the next heavy sweep's programming, the SA's policy
      {"qos_policy_file", true},        // the daemon re-reads it
      {"qos_max_vls", true},
      {"qos_high_limit", true},
      {"qos_vlarb_high", true},
      {"qos_vlarb_low", true},
      {"qos_sl2vl", true},
      {"qos_ca_max_vls", true},
      {"qos_ca_high_limit", true},
      {"qos_ca_vlarb_high", true},
      {"qos_ca_vlarb_low", true},
      {"qos_ca_sl2vl", true},
      {"qos_sw0_max_vls", true},
      {"qos_sw0_high_limit", true},
      {"qos_sw0_vlarb_high", true},
      {"qos_sw0_vlarb_low", true},
      {"qos_sw0_sl2vl", true},
      {"qos_swe_max_vls", true},
      {"qos_swe_high_limit", true},
      {"qos_swe_vlarb_high", true},
      {"qos_swe_vlarb_low", true},
      {"qos_swe_sl2vl", true},
      {"qos_rtr_max_vls", true},
      {"qos_rtr_high_limit", true},
      {"qos_rtr_vlarb_high", true},
      {"qos_rtr_vlarb_low", true},
      {"qos_rtr_sl2vl", true},
  };
  for (const ConfigKey& k : config_keys()) {
    INFO(k.key);
    auto it = expected.find(k.key);
    REQUIRE(it != expected.end());  // a new key: say here whether SIGHUP applies it
    CHECK(k.hot_reload == it->second);
  }
}
