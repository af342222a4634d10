#include "sm/config/sm_config.h"

#include <catch2/catch.hpp>

#include <sstream>

using namespace ibsm;

TEST_CASE("an opensm.conf-style file sets the keys it names", "[config]") {
  std::istringstream in(
      "# comment\n"
      "\n"
      "lmc 2\n"
      "sm_priority 14\n"
      "sweep_interval 0x1e\n"
      "reassign_lids TRUE\n"
      "guid 0x0002c90300001234\n"
      "routing_engine updn,minhop\n"
      "log_file (null)\n"
      "  max_wire_smps   32  \n");
  SmConfig c;
  REQUIRE(read_config(in, "opensm.conf", c).ok());
  CHECK(c.lmc == 2);
  CHECK(c.sm_priority == 14);
  CHECK(c.sweep_interval == 30);
  CHECK(c.reassign_lids);
  CHECK(c.port_guid == Guid{0x0002c90300001234ULL});
  CHECK(c.routing_engine == "updn,minhop");
  CHECK(c.log_file.empty());
  CHECK(c.max_wire_smps == 32);
}

TEST_CASE("bad lines name the file, the line and the key, and change nothing", "[config]") {
  std::istringstream in(
      "lmc 3\n"
      "lmc 9\n"
      "no_such_key 1\n"
      "reassign_lids maybe\n");
  SmConfig c;
  Status s = read_config(in, "site.conf", c);
  REQUIRE_FALSE(s.ok());
  CHECK(s.message().find("site.conf:2: lmc: 9 is out of range 0..7") != std::string::npos);
  CHECK(s.message().find("site.conf:3: unknown key 'no_such_key'") != std::string::npos);
  CHECK(s.message().find("site.conf:4: reassign_lids: 'maybe' is not TRUE or FALSE") != std::string::npos);
  CHECK(c.lmc == 0);  // untouched: the file had errors
}

TEST_CASE("the written configuration reads back the same", "[config]") {
  SmConfig a;
  a.lmc = 1;
  a.sm_key = 0x1234;
  a.routing_engine = "ftree,no_fallback";
  a.dump_files_dir = "/tmp/x";
  a.control_socket = "/tmp/ibsm.sock";
  a.control_group = "rdma";
  std::ostringstream out;
  write_config(a, out);
  std::istringstream in(out.str());
  SmConfig b;
  REQUIRE(read_config(in, "written", b).ok());
  std::ostringstream again;
  write_config(b, again);
  CHECK(again.str() == out.str());
  CHECK(b.sm_key == 0x1234);
  CHECK(b.routing_engine == "ftree,no_fallback");
  CHECK(b.control_socket == "/tmp/ibsm.sock");
  CHECK(b.control_group == "rdma");
  CHECK(SmConfig{}.control_socket == "/run/ibsm/ibsm.sock");
  CHECK(SmConfig{}.control_group.empty());
}

TEST_CASE("command-line values go through the same checks", "[config]") {
  SmConfig c;
  CHECK(set_config_value(c, "sm_priority", "15").ok());
  CHECK(c.sm_priority == 15);
  CHECK_FALSE(set_config_value(c, "sm_priority", "16").ok());
  CHECK_FALSE(set_config_value(c, "sm_priority", "x").ok());
  CHECK_FALSE(set_config_value(c, "nonsense", "1").ok());
  CHECK(find_config_key("transaction_timeout")->hot_reload);
  CHECK_FALSE(find_config_key("lmc")->hot_reload);
}

TEST_CASE("partition keys: OpenSM's names and defaults, part_enforce's four words", "[config][partitions]") {
  SmConfig c;
  CHECK(c.partition_config_file == "/etc/opensm/partitions.conf");
  CHECK(c.part_enforce == PartEnforce::both);
  CHECK_FALSE(c.allow_both_pkeys);
  std::istringstream in(
      "partition_config_file /site/partitions.conf\n"
      "part_enforce in\n"
      "allow_both_pkeys TRUE\n");
  REQUIRE(read_config(in, "opensm.conf", c).ok());
  CHECK(c.partition_config_file == "/site/partitions.conf");
  CHECK(c.part_enforce == PartEnforce::in);
  CHECK(c.allow_both_pkeys);
  for (const char* word : {"both", "in", "out", "off"}) CHECK(set_config_value(c, "part_enforce", word).ok());
  CHECK(c.part_enforce == PartEnforce::off);
  Status bad = set_config_value(c, "part_enforce", "inbound");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.message().find("part_enforce") != std::string::npos);
  std::ostringstream out;
  write_config(c, out);
  CHECK(out.str().find("\npart_enforce off\n") != std::string::npos);
  CHECK(out.str().find("\nallow_both_pkeys TRUE\n") != std::string::npos);
}

TEST_CASE("perfmgr keys: OpenSM's names and defaults, reloadable", "[config][perfmgr]") {
  SmConfig c;
  CHECK_FALSE(c.perfmgr);
  CHECK(c.perfmgr_sweep_time_s == 180);
  CHECK(c.perfmgr_max_outstanding_queries == 500);
  CHECK_FALSE(c.perfmgr_ignore_cas);
  CHECK(c.perfmgr_rm_nodes);
  CHECK(c.perfmgr_log_errors);
  CHECK(c.perfmgr_query_cpi);
  std::istringstream in(
      "perfmgr TRUE\n"
      "perfmgr_sweep_time_s 5\n"
      "perfmgr_max_outstanding_queries 8\n"
      "perfmgr_ignore_cas TRUE\n"
      "perfmgr_rm_nodes FALSE\n"
      "perfmgr_log_errors FALSE\n"
      "perfmgr_query_cpi FALSE\n");
  REQUIRE(read_config(in, "opensm.conf", c).ok());
  CHECK(c.perfmgr);
  CHECK(c.perfmgr_sweep_time_s == 5);
  CHECK(c.perfmgr_max_outstanding_queries == 8);
  CHECK(c.perfmgr_ignore_cas);
  CHECK_FALSE(c.perfmgr_rm_nodes);
  CHECK_FALSE(c.perfmgr_log_errors);
  CHECK_FALSE(c.perfmgr_query_cpi);
  CHECK_FALSE(set_config_value(c, "perfmgr_sweep_time_s", "0").ok());
  CHECK_FALSE(set_config_value(c, "perfmgr_max_outstanding_queries", "0").ok());
  for (const char* key : {"perfmgr", "perfmgr_sweep_time_s", "perfmgr_max_outstanding_queries", "perfmgr_ignore_cas",
                          "perfmgr_rm_nodes", "perfmgr_log_errors", "perfmgr_query_cpi"}) {
    INFO(key);
    const ConfigKey* k = find_config_key(key);
    REQUIRE(k != nullptr);
    CHECK(k->hot_reload);
  }
}
