#include "routing/file_engine.h"

#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include <catch2/catch.hpp>

#include "routing/chain.h"
#include "routing/registry.h"
#include "routing/updn.h"
#include "routing_fixtures.h"
#include "sm/dump/lft_dump.h"
#include "sm/dump/opensm_dump.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::assign_lids;
using testing::must;

// Writes `tables` for `fabric` in `format` and parses the text back.
std::shared_ptr<const LftDump> dumped(const Fabric& fabric, const UnicastTables& tables, LftDumpFormat format) {
  std::ostringstream out;
  if (format == LftDumpFormat::opensm) {
    write_opensm_lfts_dump(fabric, tables.lfts, out);
  } else {
    write_lft_dump(fabric, tables.lfts, out);
  }
  std::istringstream in(out.str());
  LftDump dump = must(parse_lft_dump(in, "test.lfts"));
  REQUIRE(dump.format == format);
  return std::make_shared<const LftDump>(std::move(dump));
}

UnicastTables route_updn(const Fabric& fabric) {
  const RoutingGraph graph = must(RoutingGraph::build(fabric));
  UpDnEngine engine;
  return must(engine.compute(RoutingInput{graph}));
}

UnicastTables load(const Fabric& fabric, std::shared_ptr<const LftDump> dump, size_t* minhop_lids = nullptr) {
  const RoutingGraph graph = must(RoutingGraph::build(fabric));
  FileEngine engine(std::move(dump), "test.lfts");
  UnicastTables tables = must(engine.compute(RoutingInput{graph}));
  must(validate_tables(graph, tables));
  if (minhop_lids) *minhop_lids = engine.minhop_lids();
  return tables;
}

// Moves every CA port's LID block up by `shift` blocks (switch LIDs stay).
void shift_ca_lids(Fabric& f, uint16_t shift) {
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    Node& node = f.node(NodeIndex{n});
    if (node.is_switch()) continue;
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      Port& port = node.port(static_cast<uint8_t>(p));
      if (port.base_lid.value != 0) port.base_lid = Lid{static_cast<uint16_t>(port.base_lid.value + (shift << port.lmc))};
    }
  }
}

TEST_CASE("file engine loads back the tables it was given, in both dump formats", "[routing][file]") {
  const auto format = GENERATE(LftDumpFormat::diag_tools, LftDumpFormat::opensm);
  const uint8_t lmc = GENERATE(uint8_t{0}, uint8_t{2});
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 3}));
  assign_lids(f, lmc);
  const UnicastTables original = route_updn(f);
  size_t filled = 99;
  const UnicastTables loaded = load(f, dumped(f, original, format), &filled);
  CHECK(loaded.lfts == original.lfts);
  CHECK(filled == 0);
}

TEST_CASE("file engine moves each route with its port when LIDs changed", "[routing][file]") {
  const uint8_t lmc = GENERATE(uint8_t{0}, uint8_t{1});
  Fabric before = must(topogen::kary_ntree({.k = 2, .n = 3}));
  assign_lids(before, lmc);
  const UnicastTables original = route_updn(before);
  auto dump = dumped(before, original, LftDumpFormat::diag_tools);

  Fabric after = before;
  shift_ca_lids(after, 40);
  const UnicastTables loaded = load(after, dump);
  const auto report = testing::trace_all_pairs(after, loaded);
  INFO(report.first_wrong);
  CHECK(report.wrong == 0);
  CHECK(report.delivered == report.pairs);
  // Every switch sends each port's k-th LID where it sent it before.
  for (uint32_t n = 0; n < after.node_count(); ++n) {
    if (!after.node(NodeIndex{n}).is_switch()) continue;
    for (const PortRef& end : testing::endpoint_ports(after)) {
      const Port& old_port = before.node(end.node).port(end.port);
      const Port& new_port = after.node(end.node).port(end.port);
      for (uint16_t k = 0; k < (1u << lmc); ++k) {
        CHECK(loaded.port(NodeIndex{n}, Lid{static_cast<uint16_t>(new_port.base_lid.value + k)}) ==
              original.port(NodeIndex{n}, Lid{static_cast<uint16_t>(old_port.base_lid.value + k)}));
      }
    }
  }
}

TEST_CASE("file engine routes LIDs the dump does not know by min-hop", "[routing][file]") {
  Fabric f = must(topogen::kary_ntree({.k = 4, .n = 2}));
  assign_lids(f, 0);
  auto dump = dumped(f, route_updn(f), LftDumpFormat::opensm);
  // Widen the LMC: the further LIDs of every CA port are new to the dump.
  assign_lids(f, 1);
  size_t filled = 0;
  const UnicastTables loaded = load(f, dump, &filled);
  CHECK(filled == testing::endpoint_ports(f).size());
  const auto report = testing::trace_all_pairs(f, loaded);
  INFO(report.first_wrong);
  CHECK(report.wrong == 0);
}

TEST_CASE("file engine refuses a dump that misses a switch or names a port it lacks", "[routing][file]") {
  Fabric f = must(topogen::kary_ntree({.k = 2, .n = 2}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  const UnicastTables tables = route_updn(f);

  SECTION("a switch without a table") {
    LftDump dump = *dumped(f, tables, LftDumpFormat::diag_tools);
    const Guid gone = dump.switches.back().node_guid;
    dump.switches.pop_back();
    FileEngine engine(std::make_shared<const LftDump>(std::move(dump)), "cut.lfts");
    const auto result = engine.compute(RoutingInput{graph});
    REQUIRE_FALSE(result.ok());
    CHECK_THAT(result.status().message(), Catch::Contains(fmt::format("{}", gone)) && Catch::Contains("cut.lfts"));
  }
  SECTION("a port beyond the switch's ports") {
    LftDump dump = *dumped(f, tables, LftDumpFormat::diag_tools);
    dump.switches.front().entries.front().port = 77;
    const size_t line = dump.switches.front().entries.front().line;
    FileEngine engine(std::make_shared<const LftDump>(std::move(dump)), "bad.lfts");
    const auto result = engine.compute(RoutingInput{graph});
    REQUIRE_FALSE(result.ok());
    CHECK_THAT(result.status().message(), Catch::Contains(fmt::format("bad.lfts:{}:", line)) &&
                                              Catch::Contains("port 77"));
  }
  SECTION("no file: the chain falls back to min-hop") {
    EngineRegistry registry;
    must(register_builtin_engines(registry));
    const EngineChain chain = must(parse_engine_chain("file", registry));
    const RoutingOutcome outcome = must(run_engine_chain(registry, chain, RoutingInput{graph}));
    CHECK(outcome.engine == "minhop");
    REQUIRE(outcome.refusals.size() == 1);
    CHECK_THAT(outcome.refusals[0].reason.message(), Catch::Contains("no lft file"));
  }
}

TEST_CASE("the registry hands updn the configured roots", "[routing][file][updn]") {
  Fabric f = must(topogen::kary_ntree({.k = 2, .n = 3}));
  assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  // A leaf (a switch with a host): automatic roots would never pick it.
  Guid leaf;
  for (const PortRef& host : testing::endpoint_ports(f)) {
    const Port& p = f.node(host.node).port(host.port);
    leaf = f.node(p.remote_node).node_guid;
  }
  REQUIRE(leaf.value != 0);
  EngineSettings settings;
  settings.updn_roots = {leaf};
  EngineRegistry registry;
  must(register_builtin_engines(registry, settings));
  auto engine = registry.create("updn");
  REQUIRE(engine);
  must(engine->compute(RoutingInput{graph}).status());
  const auto& roots = static_cast<UpDnEngine&>(*engine).orientation().roots;
  REQUIRE(roots.size() == 1);
  CHECK(f.node(graph.node_of(roots[0])).node_guid == leaf);
}

}  // namespace
}  // namespace ibsm::routing
