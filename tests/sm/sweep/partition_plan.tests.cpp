// The partition plan per port class (CA, router, switch port 0, switch port
// facing an end port), membership (defmember, full/limited/both,
// allow_both_pkeys), ALL*/SELF/GUID members, indx0, held keys keeping their
// index, PartitionCap overflow, part_enforce; and the heavy sweep applying
// it over SimFabric: only blocks that differ are set, a second sweep sends
// no P_Key MAD, the snapshot holds the tables the ports hold and the same
// tables configured_subnet() plans.
#include "sm/sweep/partition_plan.h"

#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "mad/wire/p_key_table.h"
#include "sm/fabric/netfile_reader.h"
#include "sm/sweep/configured_subnet.h"
#include "sm/sweep/lid_assignment.h"
#include "tests/sm/sweep/sweep_harness.h"

using namespace ibsm;
using test::must;
using test::SweepHarness;

namespace {

// One switch, three hosts and a router; the SM on H1.
Fabric small_fabric() { return test::one_switch_fabric({"H1", "H2", "H3"}, {"R1"}); }

NodeIndex node_named(const Fabric& f, const std::string& name) {
  for (uint32_t i = 0; i < f.node_count(); ++i)
    if (f.node(NodeIndex{i}).name == name) return NodeIndex{i};
  FAIL("no node " << name);
  return {};
}

Guid port_guid(const Fabric& f, const std::string& name) { return f.node(node_named(f, name)).port(1).guid; }

PartitionConfig parse(const std::string& text) {
  std::istringstream in(text);
  auto c = read_partitions_conf(in, "partitions.conf");
  INFO((c.ok() ? std::string() : c.status().message()));
  REQUIRE(c.ok());
  return std::move(*c);
}

// The snapshot configured_subnet() gives the fabric: the plan from tables in
// their reset state.
SubnetSnapshot planned(Fabric f, const PartitionConfig* file, PartitionOptions options = {}) {
  for (uint32_t i = 0; i < f.node_count(); ++i)
    for (Port& p : f.node(NodeIndex{i}).ports)
      if (p.connected()) p.state = PortState::active;
  auto a = assign_lids(f, LidOptions{}, nullptr);
  REQUIRE(a.ok());
  REQUIRE(apply_lids(*a, f).ok());
  SubnetParts parts;
  parts.sm_port = PortRef{node_named(f, "H1"), 1};
  parts.fabric = std::move(f);
  SubnetDefaults d;
  if (file) d.partitions = std::make_shared<const PartitionConfig>(*file);
  d.partition_options = options;
  auto s = configured_subnet(std::move(parts), d);
  REQUIRE(s.ok());
  return std::move(*s);
}

// The first entries of a table, the rest must be empty.
void require_table(const std::vector<uint16_t>& table, std::vector<uint16_t> head) {
  INFO(fmt::format("table {:#06x}", fmt::join(table, " ")));
  REQUIRE(table.size() >= head.size());
  for (size_t i = 0; i < head.size(); ++i) CHECK(table[i] == head[i]);
  for (size_t i = head.size(); i < table.size(); ++i) CHECK(table[i] == 0);
}

const std::vector<uint16_t>& table_of(const SubnetSnapshot& s, const std::string& node, uint8_t port) {
  return s.p_keys[node_named(s.fabric, node).value][port];
}
const wire::PortInfo& info_of(const SubnetSnapshot& s, const std::string& node, uint8_t port) {
  return s.port_info[node_named(s.fabric, node).value][port];
}

std::string example_file(const Fabric& f) {
  return fmt::format(R"(
A=0x0001 : {h1}=full, {h2} ;
B=0x0002, indx0 : {h3}=full, SELF ;
C=0x0003, defmember=full : ALL_CAS ;
D=0x0004 : ALL_SWITCHES=full, ALL_ROUTERS ;
)",
                     fmt::arg("h1", port_guid(f, "H1")), fmt::arg("h2", port_guid(f, "H2")),
                     fmt::arg("h3", port_guid(f, "H3")));
}

}  // namespace

TEST_CASE("partitions: without a file every port is a full member of the Default partition", "[sweep][partitions]") {
  const SubnetSnapshot s = planned(small_fabric(), nullptr);
  for (const char* n : {"H1", "H2", "H3", "R1"}) {
    INFO(n);
    require_table(table_of(s, n, 1), {0xFFFF});
    CHECK(table_of(s, n, 1).size() == 64);
  }
  require_table(table_of(s, "S1", 0), {0xFFFF});
  CHECK(table_of(s, "S1", 0).size() == 8);
  for (uint8_t p = 1; p <= 4; ++p) {
    require_table(table_of(s, "S1", p), {0xFFFF});
    CHECK(info_of(s, "S1", p).partition_enforcement_inbound);
    CHECK(info_of(s, "S1", p).partition_enforcement_outbound);
  }
  REQUIRE(s.partitions);
  REQUIRE(s.partitions->partitions.size() == 1);
  const Partition& d = s.partitions->partitions[0];
  CHECK(d.name == "Default");
  CHECK(d.pkey == 0x7FFF);
  CHECK(d.ipoib);
}

TEST_CASE("partitions: membership, ALL*/SELF/GUID members, indx0 and enforcement per port class",
          "[sweep][partitions]") {
  const Fabric f = small_fabric();
  const PartitionConfig file = parse(example_file(f));
  const SubnetSnapshot s = planned(f, &file);
  // The SM (H1): Default full (SELF), A full, B limited (SELF, defmember) at
  // index 0 (indx0), C full (defmember=full); the Default key moves aside.
  require_table(table_of(s, "H1", 1), {0x0002, 0xFFFF, 0x8001, 0x8003});
  // H2: Default limited where 0xFFFF was, A limited, C full.
  require_table(table_of(s, "H2", 1), {0x7FFF, 0x0001, 0x8003});
  require_table(table_of(s, "H3", 1), {0x8002, 0x7FFF, 0x8003});
  // A router is in ALL_ROUTERS only; a switch's port 0 in ALL_SWITCHES.
  require_table(table_of(s, "R1", 1), {0x7FFF, 0x0004});
  require_table(table_of(s, "S1", 0), {0x7FFF, 0x8004});
  // The switch ports facing them hold their keys, enforcing both ways.
  require_table(table_of(s, "S1", 1), {0x0002, 0xFFFF, 0x8001, 0x8003});
  require_table(table_of(s, "S1", 4), {0x7FFF, 0x0004});
  CHECK(info_of(s, "S1", 4).partition_enforcement_inbound);
  CHECK(info_of(s, "S1", 4).partition_enforcement_outbound);
  // The partitions in effect: the built-in Default first, then the file's.
  REQUIRE(s.partitions);
  REQUIRE(s.partitions->partitions.size() == 5);
  CHECK(s.partitions->partitions[0].pkey == 0x7FFF);
  CHECK_FALSE(s.partitions->partitions[0].ipoib);
  CHECK(s.partitions->partitions[1].name == "A");
}

TEST_CASE("partitions: 'both' is two entries with allow_both_pkeys, full without", "[sweep][partitions]") {
  const Fabric f = small_fabric();
  const PartitionConfig file = parse(fmt::format("E=0x0005 : {}=both ;", port_guid(f, "H2")));
  require_table(table_of(planned(f, &file), "H2", 1), {0x7FFF, 0x8005});
  const SubnetSnapshot both = planned(f, &file, PartitionOptions{PartEnforce::both, true});
  require_table(table_of(both, "H2", 1), {0x7FFF, 0x8005, 0x0005});
  // The switch port filters by the full key alone.
  require_table(table_of(both, "S1", 2), {0x7FFF, 0x8005});
}

TEST_CASE("partitions: the last member entry naming a port decides; a file's Default adds to the built-in one",
          "[sweep][partitions]") {
  const Fabric f = small_fabric();
  const PartitionConfig file = parse(fmt::format("Default=0x7fff : ALL=full, {}=limited ;", port_guid(f, "H3")));
  const SubnetSnapshot s = planned(f, &file);
  require_table(table_of(s, "H2", 1), {0xFFFF});
  require_table(table_of(s, "H3", 1), {0x7FFF});
  require_table(table_of(s, "H1", 1), {0xFFFF});
}

TEST_CASE("partitions: part_enforce in, out and off", "[sweep][partitions]") {
  const Fabric f = small_fabric();
  const SubnetSnapshot in = planned(f, nullptr, PartitionOptions{PartEnforce::in, false});
  CHECK(info_of(in, "S1", 2).partition_enforcement_inbound);
  CHECK_FALSE(info_of(in, "S1", 2).partition_enforcement_outbound);
  const SubnetSnapshot out = planned(f, nullptr, PartitionOptions{PartEnforce::out, false});
  CHECK_FALSE(info_of(out, "S1", 2).partition_enforcement_inbound);
  CHECK(info_of(out, "S1", 2).partition_enforcement_outbound);
  const SubnetSnapshot off = planned(f, nullptr, PartitionOptions{PartEnforce::off, false});
  CHECK_FALSE(info_of(off, "S1", 2).partition_enforcement_inbound);
  CHECK_FALSE(info_of(off, "S1", 2).partition_enforcement_outbound);
}

TEST_CASE("partitions: keys a port holds keep their index; keys no longer wanted go", "[sweep][partitions]") {
  const Fabric f = small_fabric();
  const PartitionConfig file = parse(example_file(f));
  const SubnetSnapshot base = planned(f, &file);
  const PartitionConfig in_effect = partitions_in_effect(&file);
  PKeyTables held = base.p_keys;
  std::vector<uint16_t>& h2 = held[node_named(f, "H2").value][1];
  std::fill(h2.begin(), h2.end(), 0);
  h2[0] = 0xFFFF;
  h2[2] = 0x8003;  // C, wanted, at index 2
  h2[3] = 0x8009;  // not wanted any more
  const PartitionPlan plan = plan_partitions(PartitionPlanInput{base.fabric, in_effect, base.sm_port, {},
                                                                base.port_info, base.switch_info, held, {}});
  require_table(plan.tables[node_named(f, "H2").value][1], {0x7FFF, 0x0001, 0x8003});
  CHECK(plan.problems.empty());
}

TEST_CASE("partitions: more keys than PartitionCap are a problem for that port; enforcement goes off where they "
          "do not fit",
          "[sweep][partitions]") {
  const Fabric f = small_fabric();
  std::string text;
  for (int k = 1; k <= 70; ++k) text += fmt::format("P{}={:#x} : ALL_CAS=full ;\n", k, k);
  const PartitionConfig file = parse(text);
  const SubnetSnapshot s = planned(f, &file);
  const std::vector<uint16_t>& h2 = table_of(s, "H2", 1);
  REQUIRE(h2.size() == 64);
  CHECK(h2[0] == 0x7FFF);
  CHECK(h2[1] == 0x8001);
  CHECK(h2[63] == 0x803F);  // the first 63 of the file's keys fit beside the Default one
  const PartitionConfig in_effect = partitions_in_effect(&file);
  const PartitionPlan plan = plan_partitions(PartitionPlanInput{s.fabric, in_effect, s.sm_port, {}, s.port_info,
                                                                s.switch_info, reset_p_keys(s.fabric, s.port_info,
                                                                                            s.switch_info, {}),
                                                                {}});
  // H2's own table, and the switch ports facing the three hosts (the
  // router's keys fit its switch port's enforcement table).
  const Guid h2_guid = f.node(node_named(f, "H2")).node_guid;
  const Guid s1 = f.node(node_named(f, "S1")).node_guid;
  size_t cap_problems = 0, enforcement_problems = 0;
  for (const SweepProblem& p : plan.problems) {
    CHECK(p.kind == SweepProblemKind::partition_cap);
    CHECK_FALSE(p.blocks_subnet_up());
    REQUIRE(p.port);
    if (p.node == h2_guid && *p.port == PortNum{1} && p.text.find("PartitionCap 64") != std::string::npos) ++cap_problems;
    if (p.node == s1 && p.text.find("enforcement off") != std::string::npos) ++enforcement_problems;
  }
  INFO(fmt::format("{}", fmt::join(plan.problems, "; ")));
  CHECK(plan.problems.size() == 6);  // every host holds too many keys, and so every switch port facing one
  CHECK(cap_problems == 1);
  CHECK(enforcement_problems == 3);
  CHECK_FALSE(info_of(s, "S1", 2).partition_enforcement_inbound);
  CHECK(info_of(s, "S1", 4).partition_enforcement_inbound);
}

TEST_CASE("partitions: the heavy sweep sets only what differs and a second sweep sends no P_Key MAD",
          "[sweep][heavy][partitions]") {
  SweepHarness h(small_fabric());
  SECTION("without a file a fresh fabric already holds the Default partition") {
    // Its ports are fresh from reset (LID 0, INIT): their tables are the
    // reset table (IBA C10-123), taken so without a read, and already right.
    SweepReport r = h.heavy();
    REQUIRE(r.subnet_up);
    CHECK(r.pkey_blocks_read == 0);
    CHECK(r.pkey_tables_taken_reset == 9);  // 3 hosts, the router, switch port 0 and the 4 ports facing them
    CHECK(r.pkey_sets == 0);
    REQUIRE(r.subnet);
    const Fabric& f = h.sim().topology();
    const uint32_t h2 = node_named(f, "H2").value;
    const auto swept = r.subnet->fabric.find_by_port_guid(f.node(NodeIndex{h2}).port(1).guid);
    REQUIRE(swept);
    const std::vector<uint16_t>& t = r.subnet->p_keys[swept->node.value][1];
    auto sim = h.sim().state().p_key_table(h2, 1);
    REQUIRE(sim.size() == 2 * t.size());
    for (size_t k = 0; k < t.size(); ++k) CHECK(((sim[2 * k] << 8) | sim[2 * k + 1]) == t[k]);
    CHECK(t[0] == 0xFFFF);
  }
  SECTION("with pkey_trust_reset_tables off every table is read") {
    h.config().trust_reset_p_key_tables = false;
    SweepReport r = h.heavy();
    REQUIRE(r.subnet_up);
    CHECK(r.pkey_tables_taken_reset == 0);
    CHECK(r.pkey_blocks_read == 17);  // 2 blocks (64 keys) for each of 4 end ports and 4 switch ports, 1 for port 0
    CHECK(r.pkey_sets == 0);
  }
  SECTION("a port an SM configured before (its LID set) is read") {
    h.heavy();
    h.state() = SweepState{};  // an SM without memory: every port has its LID now
    SweepReport r = h.heavy();
    REQUIRE(r.subnet_up);
    CHECK(r.pkey_tables_taken_reset == 0);
    CHECK(r.pkey_blocks_read == 17);
  }
  SECTION("with a file") {
    const PartitionConfig file = parse(example_file(h.sim().topology()));
    h.config().partitions = std::make_shared<const PartitionConfig>(file);
    SweepReport r = h.heavy();
    INFO(fmt::format("problems: {}", fmt::join(r.problems, "; ")));
    REQUIRE(r.subnet_up);
    // Block 0 of the three hosts, the router, switch port 0 and the four
    // switch ports facing them.
    CHECK(r.pkey_sets == 9);
    CHECK(r.pkey_blocks_read == 0);  // a cold fabric: set from the reset tables, unread
    const Fabric& f = h.sim().topology();
    const uint32_t h2 = node_named(f, "H2").value;
    auto held = h.sim().state().p_key_table(h2, 1);
    REQUIRE(held.size() >= 6);
    CHECK(((held[0] << 8) | held[1]) == 0x7FFF);
    CHECK(((held[2] << 8) | held[3]) == 0x0001);
    CHECK(((held[4] << 8) | held[5]) == 0x8003);
    // The snapshot holds the tables as the ports hold them, and they are
    // the tables configured_subnet() plans for the fabric.
    REQUIRE(r.subnet);
    const SubnetSnapshot offline = planned(f, &file);
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& n = f.node(NodeIndex{i});
      const auto swept = r.subnet->fabric.find_by_port_guid(n.port(n.is_switch() ? 0 : 1).guid);
      REQUIRE(swept);
      const auto offline_at = offline.fabric.find_by_port_guid(n.port(n.is_switch() ? 0 : 1).guid);
      REQUIRE(offline_at);
      for (uint8_t p = n.is_switch() ? 0 : 1; p <= (n.is_switch() ? 4 : 1); ++p) {
        INFO(n.name << " port " << int(p));
        std::vector<uint16_t> t = r.subnet->p_keys[swept->node.value][p];
        std::vector<uint16_t> o = offline.p_keys[offline_at->node.value][p];
        REQUIRE(!t.empty());
        auto sim = h.sim().state().p_key_table(i, p);
        REQUIRE(sim.size() == 2 * t.size());
        for (size_t k = 0; k < t.size(); ++k) CHECK(((sim[2 * k] << 8) | sim[2 * k + 1]) == t[k]);
        // SimFabric's switch ports hold 64 keys, a made-up switch's 32.
        t.resize(std::min(t.size(), o.size()));
        o.resize(t.size());
        CHECK(t == o);
      }
    }
    // The switch ports facing end ports enforce both ways (SimFabric keeps the bits).
    const uint32_t s1_topo = node_named(f, "S1").value;
    for (uint8_t p = 1; p <= 4; ++p) {
      CHECK(h.sim().state().port(s1_topo, p).has(sim::port_flag::partition_enforcement_inbound));
      CHECK(h.sim().state().port(s1_topo, p).has(sim::port_flag::partition_enforcement_outbound));
    }
    const auto s1 = r.subnet->fabric.find_by_port_guid(f.node(node_named(f, "S1")).port(0).guid);
    CHECK(r.subnet->port_info[s1->node.value][2].partition_enforcement_inbound ==
          offline.port_info[node_named(offline.fabric, "S1").value][2].partition_enforcement_inbound);
    REQUIRE(r.subnet->partitions);
    CHECK(r.subnet->partitions->partitions.size() == 5);

    SweepReport again = h.heavy();
    REQUIRE(again.subnet_up);
    CHECK(again.pkey_sets == 0);
    CHECK(again.pkey_blocks_read == 0);
    CHECK(again.port_info_sets == 0);
    CHECK(again.subnet->p_keys == r.subnet->p_keys);

    // An SM without memory reads the tables and sets nothing.
    h.state() = SweepState{};
    SweepReport fresh = h.heavy();
    REQUIRE(fresh.subnet_up);
    CHECK(fresh.pkey_blocks_read > 0);
    CHECK(fresh.pkey_sets == 0);
  }
}

TEST_CASE("partitions: the documented example conf/partitions.conf reads and plans", "[sweep][partitions]") {
  std::ifstream in(std::string(IBSM_TEST_DATA) + "/../../conf/partitions.conf");
  REQUIRE(in.good());
  auto c = read_partitions_conf(in, "conf/partitions.conf");
  INFO((c.ok() ? std::string() : c.status().message()));
  REQUIRE(c.ok());
  REQUIRE(c->partitions.size() == 3);
  const SubnetSnapshot s = planned(small_fabric(), &*c);
  // Every CA: Default full, storage limited (no server in this fabric).
  require_table(table_of(s, "H2", 1), {0xFFFF, 0x0010});
}
