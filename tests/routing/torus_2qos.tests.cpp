#include "routing/torus_2qos.h"

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "routing/cdg.h"
#include "routing/chain.h"
#include "routing/graph.h"
#include "routing/route_check.h"
#include "routing/torus_config.h"
#include "routing/torus_topology.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"
#include "torus_fixtures.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

// One routing of a fabric by torus-2QoS, judged: every pair delivered, the
// SL2VL channel dependency graph acyclic on each QoS level and on both at
// once, and the VLs each level uses.
struct Judged {
  CheckSummary pairs;
  std::set<uint8_t> vls_level0, vls_level1;
  bool acyclic0 = false, acyclic1 = false;
  std::vector<uint8_t> sls;  // by endpoint pair
};

Judged judge(const Fabric& f, const std::shared_ptr<const TorusConfig>& config = nullptr) {
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const RoutingInput input{graph};
  Torus2QosEngine engine(config);
  const UnicastTables t = must(engine.compute(input));
  must(validate_tables(graph, t));
  Judged j;
  j.pairs = check_all_pairs(f, t.lfts);
  const std::vector<Sl2VlTable> tables = engine.sl2vl(input).value();
  for (uint8_t qos : {uint8_t{0}, uint8_t{8}}) {
    const CdgReport r = must(check_channel_dependencies(f, t.lfts, testing::sl2vl_options(f, engine, input, tables, qos)));
    INFO(r.to_string());
    (qos == 0 ? j.acyclic0 : j.acyclic1) = r.acyclic();
    for (const CdgVlSummary& v : r.vls) (qos == 0 ? j.vls_level0 : j.vls_level1).insert(v.vl);
  }
  j.sls = testing::all_path_sls(f, engine, input);
  return j;
}

void check_deadlock_free(const Judged& j) {
  INFO(j.pairs.to_string());
  CHECK(j.pairs.all_delivered());
  CHECK(j.acyclic0);
  CHECK(j.acyclic1);
  // Two VLs per QoS level, four at most in all.
  CHECK(j.vls_level0.size() <= 2);
  CHECK(j.vls_level1.size() <= 2);
  for (uint8_t vl : j.vls_level0) CHECK(vl <= 1);
  for (uint8_t vl : j.vls_level1) CHECK((vl == 2 || vl == 3));
  for (uint8_t sl : j.sls) CHECK(sl < 8);
}

TEST_CASE("torus-2QoS on tori and meshes: every pair, acyclic per vl with its sl2vl tables, two vls per qos level",
          "[routing][torus]") {
  const std::vector<std::pair<std::string, std::function<Result<Fabric>()>>> fabrics = {
      {"ring of 6", [] { return topogen::mesh({.dims = {6}, .torus = true}); }},
      {"4x4 torus", [] { return topogen::mesh({.dims = {4, 4}, .torus = true}); }},
      {"5x3 torus", [] { return topogen::mesh({.dims = {5, 3}, .torus = true, .hosts_per_switch = 2}); }},
      {"4x4x4 torus", [] { return topogen::mesh({.dims = {4, 4, 4}, .torus = true}); }},
      {"3x4 mesh", [] { return topogen::mesh({.dims = {3, 4}}); }},
      {"3x3x3 mesh", [] { return topogen::mesh({.dims = {3, 3, 3}}); }},
  };
  for (const auto& [name, make] : fabrics) {
    DYNAMIC_SECTION(name) {
      Fabric f = must(make());
      assign_lids(f);
      const Judged j = judge(f);
      check_deadlock_free(j);
      CHECK(j.vls_level0.size() >= 1);
    }
  }
}

TEST_CASE("on one vl the same torus tables have a credit loop: the datelines are what breaks it", "[routing][torus]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  Torus2QosEngine engine;
  const UnicastTables t = must(engine.compute(RoutingInput{graph}));
  const CdgReport one = must(check_channel_dependencies(f, t.lfts));
  INFO(one.to_string());
  CHECK_FALSE(one.acyclic());
}

TEST_CASE("torus-2QoS finds the torus from the cables: coordinates, radices and sls by the datelines",
          "[routing][torus]") {
  Fabric f = must(topogen::mesh({.dims = {4, 4, 4}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const TorusTopology t = must(discover_torus(graph, nullptr));
  CHECK(t.shape() == "4x4x4 torus");
  for (SwitchId v = 0; v < graph.switch_count(); ++v) {
    const std::string& name = f.node(graph.node_of(v)).name;
    INFO(name);
    CHECK(t.coord[v] == testing::coordinates_of_name(name));
  }
  Torus2QosEngine engine;
  const RoutingInput input{graph};
  must(engine.compute(input));
  const auto lid = [&](const char* name) { return f.node(testing::switch_named(f, name)).port(0).base_lid; };
  // x from 3 to 0 the short way crosses the x dateline; y from 1 to 2 crosses nothing; z from 0 to 3 goes "-" over it.
  CHECK(engine.path_sl(input, lid("sw-3-1-0"), lid("sw-0-2-3")) == (1 | 4));
  CHECK(engine.path_sl(input, lid("sw-0-0-0"), lid("sw-1-1-1")) == 0);
  // A tie (two each way on a ring of 4) goes "+": 2 -> 0 crosses, 0 -> 2 does not.
  CHECK(engine.path_sl(input, lid("sw-2-0-0"), lid("sw-0-0-0")) == 1);
  CHECK(engine.path_sl(input, lid("sw-0-0-0"), lid("sw-2-0-0")) == 0);
}

TEST_CASE("a failed cable changes no path's sl, and the routing stays deadlock-free", "[routing][torus]") {
  const std::vector<std::pair<std::string, topogen::MeshParams>> shapes = {
      {"4x4 torus", {.dims = {4, 4}, .torus = true}},
      {"5x5 torus", {.dims = {5, 5}, .torus = true}},
      {"4x4x4 torus", {.dims = {4, 4, 4}, .torus = true}},
  };
  for (const auto& [name, params] : shapes) {
    DYNAMIC_SECTION(name) {
      Fabric f = must(topogen::mesh(params));
      assign_lids(f);
      const Judged before = judge(f);
      check_deadlock_free(before);
      // Cables away from the origin (sw-0-..., whose cables orient the torus).
      const std::string a = params.dims.size() == 3 ? "sw-2-1-1" : "sw-2-1";
      const std::string b = params.dims.size() == 3 ? "sw-1-2-3" : "sw-1-3";
      testing::cut(f, testing::switch_named(f, a), 2);  // +x
      testing::cut(f, testing::switch_named(f, b), 5);  // -y
      const Judged after = judge(f);
      check_deadlock_free(after);
      CHECK(after.sls == before.sls);
      std::set<uint8_t> distinct(before.sls.begin(), before.sls.end());
      CHECK(distinct.size() > 2);  // the sls do say something
    }
  }
}

// One routing as the daemon does it, sweep after sweep: route_snapshot with
// the SM's engine settings (the same object every time), judged like judge().
struct Swept {
  Judged j;
  std::string shape;
  std::vector<std::vector<uint8_t>> lfts;
};

Swept sweep(const Fabric& f, const EngineSettings& settings) {
  const RoutingOutcome out = must(route_snapshot(f, "torus-2QoS,no_fallback", null_log_sink(), settings));
  REQUIRE(out.engine == kTorus2QosName);
  const RoutingInput input{*out.graph};
  const Torus2QosEngine& engine = static_cast<const Torus2QosEngine&>(*out.used);
  Swept s;
  REQUIRE(engine.topology().has_value());
  s.shape = engine.topology()->shape();
  s.j.pairs = check_all_pairs(f, out.tables.lfts);
  const std::vector<Sl2VlTable> tables = engine.sl2vl(input).value();
  for (uint8_t qos : {uint8_t{0}, uint8_t{8}}) {
    const CdgReport r =
        must(check_channel_dependencies(f, out.tables.lfts, testing::sl2vl_options(f, engine, input, tables, qos)));
    INFO(r.to_string());
    (qos == 0 ? s.j.acyclic0 : s.j.acyclic1) = r.acyclic();
    for (const CdgVlSummary& v : r.vls) (qos == 0 ? s.j.vls_level0 : s.j.vls_level1).insert(v.vl);
  }
  s.j.sls = testing::all_path_sls(f, engine, input);
  s.lfts = out.tables.lfts;
  return s;
}

TEST_CASE("the sweeps of one SM keep its torus: a cable lost anywhere, the dateline's or the origin's, changes no sl",
          "[routing][torus]") {
  struct Case {
    std::string name;
    std::vector<uint32_t> dims;  // of a torus, one host a switch
    std::string sw;              // the switch whose +x cable fails
    std::string shape;
  };
  // (Dimensions, not nested MeshParams: GCC 12 at -O3 takes those for a
  // maybe-uninitialized read.)
  const std::vector<Case> cases = {
      // A ring of five: found afresh without its dateline cable it is a line, every sl 0.
      {"ring of 5, the dateline cable", {5}, "sw-4", "5 torus"},
      {"ring of 5, another cable", {5}, "sw-1", "5 torus"},
      // The origin (sw-0-0, the lowest GUID of the most connected) loses a
      // cable: found afresh, the torus is oriented from sw-1-0 instead.
      {"4x4 torus, the origin's cable", {4, 4}, "sw-0-0", "4x4 torus"},
      {"3x3x3 torus, the origin's cable", {3, 3, 3}, "sw-0-0-0", "3x3x3 torus"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(c.name) {
      topogen::MeshParams params;
      params.dims = c.dims;
      params.torus = true;
      Fabric f = must(topogen::mesh(params));
      assign_lids(f);
      const EngineSettings settings;  // one SM's, as make_route_function keeps them
      const Swept before = sweep(f, settings);
      CHECK(before.shape == c.shape);
      check_deadlock_free(before.j);
      const std::set<uint8_t> distinct(before.j.sls.begin(), before.j.sls.end());
      REQUIRE(distinct.size() >= 2);  // some paths cross a dateline

      const NodeIndex sw = testing::switch_named(f, c.sw);
      const PortRef far{f.node(sw).port(2).remote_node, f.node(sw).port(2).remote_port};
      testing::cut(f, sw, 2);  // +x (one host a switch: port 1 is the host's)
      const Swept cut = sweep(f, settings);
      CHECK(cut.shape == c.shape);
      check_deadlock_free(cut.j);
      CHECK(cut.j.sls == before.j.sls);
      CHECK(cut.lfts != before.lfts);  // the paths over the cable go round

      must(f.connect(PortRef{sw, 2}, far));
      const Swept back = sweep(f, settings);
      CHECK(back.j.sls == before.j.sls);
      CHECK(back.lfts == before.lfts);
    }
  }
}

TEST_CASE("the kept torus gives way to a fabric that does not fit it, and to a config reloaded", "[routing][torus]") {
  const EngineSettings settings;
  Fabric ring5 = must(topogen::mesh({.dims = {5}, .torus = true}));
  assign_lids(ring5);
  CHECK(sweep(ring5, settings).shape == "5 torus");
  SECTION("a switch it never saw") {
    Fabric ring6 = must(topogen::mesh({.dims = {6}, .torus = true}));
    assign_lids(ring6);
    CHECK(sweep(ring6, settings).shape == "6 torus");
  }
  SECTION("a cable between switches that were no neighbours") {
    Fabric f = must(topogen::mesh({.dims = {5}, .torus = true}));
    assign_lids(f);
    // The cables sw-0 to sw-1 and sw-2 to sw-3 become sw-0 to sw-2 and sw-1
    // to sw-3: the ring 0, 2, 1, 3, 4, whose cable 0-2 the torus kept never had.
    const NodeIndex s0 = testing::switch_named(f, "sw-0"), s1 = testing::switch_named(f, "sw-1");
    const NodeIndex s2 = testing::switch_named(f, "sw-2"), s3 = testing::switch_named(f, "sw-3");
    testing::cut(f, s0, 2);
    testing::cut(f, s2, 2);
    must(f.connect(PortRef{s0, 2}, PortRef{s2, 2}));
    must(f.connect(PortRef{s1, 3}, PortRef{s3, 3}));
    const Swept s = sweep(f, settings);
    CHECK(s.shape == "5 torus");
    check_deadlock_free(s.j);
  }
  SECTION("a torus config reloaded: found afresh, from its seed") {
    EngineSettings reloaded = settings;  // the memory comes along, the config is new
    auto config = std::make_shared<TorusConfig>();
    config->radix = {5, 1, 1};
    config->wraps = {true, false, false};
    reloaded.torus_config = config;
    Fabric f = must(topogen::mesh({.dims = {5}, .torus = true}));
    assign_lids(f);
    testing::cut(f, testing::switch_named(f, "sw-4"), 2);
    // Without a seed the config's radices must be the ones found: a line of
    // five is no 5 torus, so the engine refuses rather than recall a torus
    // found without this config.
    CHECK_FALSE(route_snapshot(f, "torus-2QoS,no_fallback", null_log_sink(), reloaded).ok());
  }
}

TEST_CASE("failures torus-2QoS cannot route around make it refuse, and the chain moves on", "[routing][torus]") {
  SECTION("a ring broken twice into two segments") {
    Fabric f = must(topogen::mesh({.dims = {4, 4}, .torus = true}));
    assign_lids(f);
    testing::cut(f, testing::switch_named(f, "sw-0-1"), 2);  // (0,1) -> (1,1)
    testing::cut(f, testing::switch_named(f, "sw-2-1"), 2);  // (2,1) -> (3,1)
    const RoutingGraph graph = must(RoutingGraph::build(f));
    Torus2QosEngine engine;
    const Result<UnicastTables> r = engine.compute(RoutingInput{graph});
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(std::string(r.status().message()), Catch::Contains("ring (*,1)"));
  }
  SECTION("not a torus: a fat tree, a random graph, a dragonfly") {
    const std::vector<std::function<Result<Fabric>()>> fabrics = {
        [] { return topogen::kary_ntree({.k = 4, .n = 2}); },
        [] { return topogen::random_regular({.switches = 16, .degree = 4}); },
        [] { return topogen::dragonfly({.a = 4, .p = 1, .h = 1, .g = 5}); },
    };
    for (const auto& make : fabrics) {
      Fabric f = must(make());
      assign_lids(f);
      const RoutingGraph graph = must(RoutingGraph::build(f));
      Torus2QosEngine engine;
      const Result<UnicastTables> r = engine.compute(RoutingInput{graph});
      INFO((r.ok() ? std::string("routed") : std::string(r.status().message())));
      CHECK_FALSE(r.ok());
      LogSink& sink = null_log_sink();
      const RoutingOutcome out = must(route_snapshot(f, "torus-2QoS,updn", sink));
      CHECK(out.engine == "updn");
      REQUIRE(out.refusals.size() == 1);
      CHECK(out.refusals[0].engine == "torus-2QoS");
    }
  }
}

TEST_CASE("torus-2QoS.conf: radices, seeds and datelines place the torus as configured", "[routing][torus]") {
  Fabric f = must(topogen::mesh({.dims = {4, 5}, .torus = true}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const auto guid = [&](const char* name) { return fmt::format("{}", f.node(testing::switch_named(f, name)).node_guid); };
  const auto coord_of = [&](const TorusTopology& t, const char* name) {
    return t.coord[graph.switch_of(testing::switch_named(f, name))];
  };
  SECTION("a seed at sw-1-1, the x axis turned round, the y dateline moved") {
    // The config's x is the fabric's -x; its origin sw-1-1 with y moved by -1.
    const std::string text = fmt::format(
        "# 4x5\ntorus 4 5 1\nxp_link {} {}\nxm_link {} {}\nyp_link {} {}  # trailing words are ignored\ny_dateline -1\n",
        guid("sw-1-1"), guid("sw-0-1"), guid("sw-1-1"), guid("sw-2-1"), guid("sw-1-1"), guid("sw-1-2"));
    const TorusConfig config = must(parse_torus_config(text, "torus-2QoS.conf"));
    const TorusTopology t = must(discover_torus(graph, &config));
    CHECK(t.seed == 1);
    CHECK(coord_of(t, "sw-1-1") == std::array<uint32_t, 3>{0, 1, 0});
    CHECK(coord_of(t, "sw-0-1") == std::array<uint32_t, 3>{1, 1, 0});
    CHECK(coord_of(t, "sw-2-1") == std::array<uint32_t, 3>{3, 1, 0});
    CHECK(coord_of(t, "sw-1-0") == std::array<uint32_t, 3>{0, 0, 0});
    CHECK(coord_of(t, "sw-1-4") == std::array<uint32_t, 3>{0, 4, 0});
    Fabric routed = f;
    check_deadlock_free(judge(routed, std::make_shared<const TorusConfig>(config)));
  }
  SECTION("the first seed's switch is gone: next_seed") {
    const std::string text = fmt::format("torus 4 5 1\nxp_link 0x00000000deadbeef {}\nnext_seed\nxp_link {} {}\nyp_link {} {}\n",
                                         guid("sw-0-0"), guid("sw-0-0"), guid("sw-1-0"), guid("sw-0-0"), guid("sw-0-1"));
    const TorusConfig config = must(parse_torus_config(text, "t.conf"));
    REQUIRE(config.seeds.size() == 2);
    const TorusTopology t = must(discover_torus(graph, &config));
    CHECK(t.seed == 2);
    CHECK(coord_of(t, "sw-3-4") == std::array<uint32_t, 3>{3, 4, 0});
  }
  SECTION("a config for another torus is refused") {
    const std::string text = fmt::format("torus 5 5 1\nxp_link {} {}\n", guid("sw-0-0"), guid("sw-1-0"));
    const TorusConfig config = must(parse_torus_config(text, "t.conf"));
    CHECK_FALSE(discover_torus(graph, &config).ok());
  }
}

TEST_CASE("torus-2QoS.conf: a ring broken into a line keeps the seed's coordinates and every path's sl",
          "[routing][torus][config]") {
  // No memory here (a fresh engine each time, as after a restart): the
  // config's seed alone must place the line where the ring was. The origin
  // sw-2 sits in the middle of the line the cut leaves.
  Fabric f = must(topogen::mesh({.dims = {5}, .torus = true}));
  assign_lids(f);
  const auto guid = [&](const char* name) { return fmt::format("{}", f.node(testing::switch_named(f, name)).node_guid); };
  const std::string text = fmt::format("torus 5 1 1\nxp_link {} {}\n", guid("sw-2"), guid("sw-3"));
  const auto config = std::make_shared<const TorusConfig>(must(parse_torus_config(text, "torus-2QoS.conf")));
  const Judged before = judge(f, config);
  check_deadlock_free(before);
  // Not the seed's own link (sw-2 to sw-3): without it the seed does not fit.
  for (const char* sw : {"sw-4", "sw-0", "sw-1"}) {
    DYNAMIC_SECTION("the cable from " << sw << " to the next") {
      Fabric cut = f;
      testing::cut(cut, testing::switch_named(cut, sw), 2);
      const RoutingGraph graph = must(RoutingGraph::build(cut));
      const TorusTopology t = must(discover_torus(graph, config.get()));
      CHECK(t.shape() == "5 torus");
      for (SwitchId v = 0; v < graph.switch_count(); ++v) {
        const std::string& name = cut.node(graph.node_of(v)).name;
        INFO(name);
        // The seed's origin at 0: sw-2 at 0, sw-3 at 1, ..., sw-1 at 4.
        CHECK(t.coord[v][0] == (testing::coordinates_of_name(name)[0] + 3) % 5);
      }
      const Judged after = judge(cut, config);
      check_deadlock_free(after);
      CHECK(after.sls == before.sls);
    }
  }
}

TEST_CASE("torus-2QoS.conf parsing: keywords, suffixes, and file:line errors", "[routing][torus][config]") {
  SECTION("the man page's example") {
    const TorusConfig c = must(parse_torus_config(
        "# Look for a 2D (since x radix is one) 4x5 torus.\n"
        "torus 1 4 5\n\n"
        "yp_link 0x200000 0x200005  # sw @ y=0,z=0 -> sw @ y=1,z=0\n"
        "ym_link 0x200000 0x20000f\n"
        "zp_link 0x200000 0x200001\n"
        "next_seed\n"
        "yp_link 0x20000b 0x200010\n"
        "ym_link 0x20000b 0x200006\n"
        "zp_link 0x20000b 0x20000c\n"
        "y_dateline -2\n"
        "z_dateline -1\n"
        "portgroup_max_ports 8\n",
        "torus-2QoS.conf"));
    CHECK(c.radix == std::array<uint32_t, 3>{1, 4, 5});
    CHECK(c.wraps == std::array<bool, 3>{false, true, true});
    REQUIRE(c.seeds.size() == 2);
    CHECK(c.seeds[0].links.size() == 3);
    CHECK(c.seeds[0].origin() == Guid{0x200000});
    CHECK(c.seeds[0].links[1].dim == 1);
    CHECK_FALSE(c.seeds[0].links[1].positive);
    CHECK(c.seeds[1].dateline == std::array<int32_t, 3>{0, -2, -1});
    CHECK(c.portgroup_max_ports == 8);
  }
  SECTION("mesh and torus suffixes") {
    const TorusConfig a = must(parse_torus_config("mesh 3T 4 5\n", "a"));
    const TorusConfig b = must(parse_torus_config("torus 3 4M 5m\n", "b"));
    CHECK(a.wraps == b.wraps);
    CHECK(a.wraps == std::array<bool, 3>{true, false, false});
    CHECK(a.radix == b.radix);
  }
  SECTION("bad lines name the file and the line") {
    const std::vector<std::pair<std::string, std::string>> bad = {
        {"xp_link 0x1 0x2\n", "t.conf:1:"},
        {"# c\n\ntorus 4 4\n", "t.conf:3:"},
        {"torus 4 x4 1\n", "t.conf:1:"},
        {"torus 4 4 1\nxp_link 0x1 0x2\nyp_link 0x3 0x4\n", "t.conf:3:"},
        {"torus 4 4 1\nzp_link 0x1 0x2\n", "t.conf:2:"},
        {"torus 4 4 1\nxp_link 0x1\n", "t.conf:2:"},
        {"torus 4 4 1\nx_dateline two\n", "t.conf:2:"},
        {"torus 4 4 1\nportgroup_max_ports 0\n", "t.conf:2:"},
        {"torus 4 4 1\nwraparound 1\n", "t.conf:2:"},
        {"torus 4 4 1\nmesh 4 4 1\n", "t.conf:2:"},
        {"# nothing\n", "t.conf: no torus or mesh line"},
    };
    for (const auto& [text, where] : bad) {
      INFO(text);
      const Result<TorusConfig> r = parse_torus_config(text, "t.conf");
      REQUIRE_FALSE(r.ok());
      CHECK_THAT(std::string(r.status().message()), Catch::StartsWith(where));
    }
  }
}

// Not run by default (a few seconds): `routing_torus_tests "[bench]"`.
TEST_CASE("an 8x8x8 torus, pristine and with failed cables: deadlock-free within 4 vls, sls unchanged",
          "[.][routing][torus][bench]") {
  Fabric f = must(topogen::mesh({.dims = {8, 8, 8}, .torus = true}));
  assign_lids(f);
  const Judged before = judge(f);
  check_deadlock_free(before);
  testing::cut(f, testing::switch_named(f, "sw-3-5-2"), 2);
  testing::cut(f, testing::switch_named(f, "sw-6-1-7"), 4);
  testing::cut(f, testing::switch_named(f, "sw-1-1-1"), 7);
  const Judged after = judge(f);
  check_deadlock_free(after);
  CHECK(after.sls == before.sls);
}

}  // namespace
}  // namespace ibsm::routing
