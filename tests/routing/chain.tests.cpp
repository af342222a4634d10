#include "routing/chain.h"

#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/minhop.h"
#include "routing/registry.h"
#include "routing_fixtures.h"
#include "sm/topogen/generators.h"

namespace ibsm::routing {
namespace {

using testing::must;

// An engine that cannot handle any topology, and says why.
class RefusingEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "refuser"; }
  Result<UnicastTables> compute(const RoutingInput&) override {
    ++calls;
    return failed_precondition_error("refuser handles no topology: the fabric is not a fat tree");
  }
  static inline int calls = 0;
};

// An engine whose tables are recognisable: only the unrouted tables.
class SelfOnlyEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "self-only"; }
  Result<UnicastTables> compute(const RoutingInput& input) override { return UnicastTables::unrouted(input.graph); }
};

// An engine with a bug: tables of the wrong shape.
class BrokenEngine final : public RoutingEngine {
 public:
  std::string_view name() const override { return "broken"; }
  Result<UnicastTables> compute(const RoutingInput&) override { return UnicastTables{}; }
};

EngineRegistry test_registry() {
  EngineRegistry r;
  must(register_builtin_engines(r));
  must(r.add("refuser", [] { return std::make_unique<RefusingEngine>(); }));
  must(r.add("self-only", [] { return std::make_unique<SelfOnlyEngine>(); }));
  must(r.add("broken", [] { return std::make_unique<BrokenEngine>(); }));
  return r;
}

TEST_CASE("the registry holds the built-in engines and rejects duplicates", "[routing][registry]") {
  EngineRegistry r;
  must(register_builtin_engines(r));
  CHECK(r.contains("minhop"));
  CHECK(r.contains("updn"));
  CHECK(r.contains("dnup"));
  CHECK(r.contains("ftree"));
  const std::vector<std::string> builtin = r.names();
  CHECK(builtin.front() == "minhop");
  const auto engine = r.create("minhop");
  REQUIRE(engine != nullptr);
  CHECK(engine->name() == "minhop");
  CHECK(r.create("nosuch") == nullptr);

  const Status again = register_builtin_engines(r);
  CHECK(again.code() == StatusCode::invalid_argument);
  CHECK_THAT(again.message(), Catch::Contains("'minhop' is registered twice"));
  CHECK_FALSE(r.add("minhop", [] { return std::make_unique<MinHopEngine>(); }).ok());
  CHECK_FALSE(r.add("", [] { return std::make_unique<MinHopEngine>(); }).ok());
  CHECK_FALSE(r.add("no_fallback", [] { return std::make_unique<MinHopEngine>(); }).ok());
  CHECK_FALSE(r.add("empty", nullptr).ok());
  CHECK(r.names() == builtin);
}

TEST_CASE("routing_engine values parse into chains", "[routing][chain]") {
  const EngineRegistry r = test_registry();
  SECTION("a list, blanks ignored") {
    const EngineChain c = must(parse_engine_chain(" refuser , self-only", r));
    CHECK(c.engines == std::vector<std::string>{"refuser", "self-only"});
    CHECK(c.fallback);
    CHECK(c.to_string() == "refuser,self-only");
  }
  SECTION("no_fallback anywhere in the list") {
    const EngineChain c = must(parse_engine_chain("no_fallback,refuser", r));
    CHECK(c.engines == std::vector<std::string>{"refuser"});
    CHECK_FALSE(c.fallback);
    CHECK(c.to_string() == "refuser,no_fallback");
  }
  SECTION("empty is minhop alone") {
    const EngineChain c = must(parse_engine_chain("", r));
    CHECK(c.engines.empty());
    CHECK(c.fallback);
  }
  SECTION("errors") {
    const auto unknown = parse_engine_chain("nosuch,minhop", r);
    REQUIRE_FALSE(unknown.ok());
    CHECK_THAT(unknown.status().message(), Catch::Contains("unknown routing engine 'nosuch'"));
    CHECK_THAT(unknown.status().message(), Catch::Contains("minhop"));
    CHECK_FALSE(parse_engine_chain("minhop,,refuser", r).ok());
    CHECK_FALSE(parse_engine_chain("minhop,", r).ok());
    CHECK_FALSE(parse_engine_chain("no_fallback", r).ok());
    CHECK_FALSE(parse_engine_chain("minhop,minhop", r).ok());
  }
}

// Records what the chain logs.
class MemorySink final : public LogSink {
 public:
  bool enabled(LogLevel, Subsystem) const override { return true; }
  void write(LogLevel level, Subsystem, std::string_view message) override {
    lines.push_back(std::string(log_level_name(level)) + " " + std::string(message));
  }
  bool has(std::string_view part) const {
    for (const auto& l : lines) {
      if (l.find(part) != std::string::npos) return true;
    }
    return false;
  }
  std::vector<std::string> lines;
};

TEST_CASE("the chain falls back to minhop when an engine refuses", "[routing][chain]") {
  const EngineRegistry r = test_registry();
  Fabric f = must(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2}));
  testing::assign_lids(f);
  const RoutingGraph graph = must(RoutingGraph::build(f));
  MemorySink sink;
  const RoutingInput input{graph, sink};

  SECTION("refused, then minhop") {
    RefusingEngine::calls = 0;
    const RoutingOutcome out = must(run_engine_chain(r, must(parse_engine_chain("refuser", r)), input));
    CHECK(RefusingEngine::calls == 1);
    CHECK(out.engine == "minhop");
    REQUIRE(out.used != nullptr);
    CHECK(out.used->name() == "minhop");
    REQUIRE(out.refusals.size() == 1);
    CHECK(out.refusals[0].engine == "refuser");
    CHECK(out.refusals[0].reason.code() == StatusCode::failed_precondition);
    CHECK_THAT(out.refusals[0].reason.message(), Catch::Contains("not a fat tree"));
    CHECK(sink.has("warn routing engine refuser refused: refuser handles no topology"));
    CHECK(sink.has("info routing engine minhop computed the tables"));
    const CheckSummary s = check_all_pairs(f, out.tables.lfts);
    CHECK(s.all_delivered());
  }
  SECTION("bad tables count as a refusal") {
    const RoutingOutcome out = must(run_engine_chain(r, must(parse_engine_chain("broken,refuser", r)), input));
    CHECK(out.engine == "minhop");
    REQUIRE(out.refusals.size() == 2);
    CHECK(out.refusals[0].engine == "broken");
    CHECK(out.refusals[0].reason.code() == StatusCode::internal);
  }
  SECTION("the first engine that computes wins") {
    const RoutingOutcome out = must(run_engine_chain(r, must(parse_engine_chain("refuser,self-only", r)), input));
    CHECK(out.engine == "self-only");
    CHECK(out.refusals.size() == 1);
    CHECK(out.tables.lfts == UnicastTables::unrouted(graph).lfts);
  }
  SECTION("no_fallback: the refusal is the answer") {
    RefusingEngine::calls = 0;
    const auto out = run_engine_chain(r, must(parse_engine_chain("refuser,no_fallback", r)), input);
    REQUIRE_FALSE(out.ok());
    CHECK(RefusingEngine::calls == 1);
    CHECK(out.status().code() == StatusCode::failed_precondition);
    CHECK_THAT(out.status().message(), Catch::Contains("refuser: refuser handles no topology"));
    CHECK_THAT(out.status().message(), !Catch::Contains("minhop"));
    CHECK(sink.has("error no routing engine computed tables"));
  }
  SECTION("minhop listed first is not run twice") {
    const RoutingOutcome out = must(run_engine_chain(r, must(parse_engine_chain("minhop,refuser", r)), input));
    CHECK(out.engine == "minhop");
    CHECK(out.refusals.empty());
  }
}

TEST_CASE("route_snapshot routes a fabric end to end", "[routing][chain]") {
  Fabric f = must(topogen::mesh({.dims = {3, 3}, .torus = true}));
  testing::assign_lids(f);
  MemorySink sink;
  const RoutingOutcome out = must(route_snapshot(f, "minhop", sink));
  CHECK(out.engine == "minhop");
  CHECK(check_all_pairs(f, out.tables.lfts).all_delivered());
  CHECK_FALSE(route_snapshot(f, "nosuch", sink).ok());
}

}  // namespace
}  // namespace ibsm::routing
