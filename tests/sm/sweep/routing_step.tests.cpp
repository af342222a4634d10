// The sweep's routing step: the engine chain's tables, checked and the
// verdict logged in one line, as `ibsm check` words it.
#include "sm/sweep/routing_step.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "routing/route_check.h"
#include "sm/topogen/generators.h"

namespace ibsm {
namespace {

// Records what the routing step logs on the routing subsystem.
class MemorySink final : public LogSink {
 public:
  bool enabled(LogLevel, Subsystem s) const override { return s == Subsystem::routing; }
  void write(LogLevel level, Subsystem, std::string_view message) override {
    lines.push_back(std::string(log_level_name(level)) + " " + std::string(message));
  }
  std::vector<std::string> with(std::string_view part) const {
    std::vector<std::string> found;
    for (const auto& l : lines) {
      if (l.find(part) != std::string::npos) found.push_back(l);
    }
    return found;
  }
  std::vector<std::string> lines;
};

// One LID per switch, one per cabled CA port, in node order.
Fabric with_lids(Result<Fabric> made) {
  REQUIRE(made.ok());
  Fabric f = std::move(*made);
  uint16_t next = 1;
  for (uint32_t n = 0; n < f.node_count(); ++n) {
    Node& node = f.node(NodeIndex{n});
    if (node.is_switch()) {
      for (Port& p : node.ports) p.base_lid = Lid{next};
      ++next;
      continue;
    }
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (node.port(static_cast<uint8_t>(p)).connected()) node.port(static_cast<uint8_t>(p)).base_lid = Lid{next++};
    }
  }
  return f;
}

SweepRoutes route(const std::string& chain, const Fabric& f, MemorySink& log) {
  auto function = make_route_function(chain, log);
  REQUIRE(function.ok());
  auto routes = (*function)(f);
  REQUIRE(routes.ok());
  return std::move(*routes);
}

TEST_CASE("the routing step logs the route check in one line", "[sweep][routing][check]") {
  MemorySink log;
  SECTION("min-hop on a leaf/spine: every pair, at info level") {
    const Fabric f = with_lids(topogen::leaf_spine({.leaves = 3, .spines = 2, .hosts_per_leaf = 2}));
    const SweepRoutes r = route("minhop", f, log);
    CHECK(r.check_ok);
    const auto lines = log.with("routing check");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == "info " + r.check);
    // The same words as the checker on the same tables.
    CHECK(r.check == routing::check_routes(f, r.lfts, {.engine = "minhop"}).to_string());
    CHECK_THAT(r.check, Catch::StartsWith("routing check (minhop): 30/30 pairs delivered, hops max 4"));
    // And structured, for the metrics.
    REQUIRE(r.route_check);
    CHECK(r.route_check->to_string() == r.check);
    CHECK(r.route_check->pairs.pairs == 30);
    CHECK(r.route_check->pairs.delivered == 30);
  }
  SECTION("updn on a torus: acyclic") {
    const Fabric f = with_lids(topogen::mesh({.dims = {4, 4}, .torus = true, .hosts_per_switch = 1}));
    const SweepRoutes r = route("updn", f, log);
    CHECK(r.check_ok);
    REQUIRE(log.with("routing check").size() == 1);
    CHECK_THAT(r.check, Catch::StartsWith("routing check (updn): 240/240 pairs delivered"));
    CHECK_THAT(r.check, Catch::EndsWith(", cdg acyclic"));
  }
  SECTION("a host whose cable is down: a warning with the failed pairs") {
    Fabric f = with_lids(topogen::leaf_spine({.leaves = 2, .spines = 2, .hosts_per_leaf = 2}));
    for (uint32_t n = 0; n < f.node_count(); ++n) {
      Node& node = f.node(NodeIndex{n});
      if (node.is_switch()) continue;
      node.port(1).state = PortState::down;  // it keeps its LID: the tables cannot reach it
      break;
    }
    const SweepRoutes r = route("minhop", f, log);
    CHECK_FALSE(r.check_ok);
    const auto lines = log.with("routing check");
    REQUIRE(lines.size() == 1 + 3);  // the verdict and the first three failed pairs
    CHECK(lines[0] == "warn " + r.check);
    CHECK_THAT(r.check, Catch::StartsWith("routing check (minhop): 6/12 pairs delivered (6 unreachable, 0 looping)"));
  }
}

TEST_CASE("a routing with a credit loop is installed with an error, never in silence", "[sweep][routing][check]") {
  MemorySink log;
  // A ring of five: every shortest path is the only one, and those one way
  // round close a cycle whatever the engine.
  const Fabric f = with_lids(topogen::mesh({.dims = {5}, .torus = true, .hosts_per_switch = 1}));
  SECTION("min-hop on a ring: the tables stand, an error names the cycle, the count goes up") {
    auto function = make_route_function("minhop", log);
    REQUIRE(function.ok());
    const Result<SweepRoutes> first = (*function)(f);
    REQUIRE(first.ok());
    CHECK(first->check_ok);  // min-hop promises nothing
    REQUIRE(first->route_check);
    CHECK(first->route_check->has_cycle());
    const auto errors = log.with("credit loop");
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors[0], Catch::StartsWith("error routing engine minhop leaves a credit loop"));
    CHECK_THAT(errors[0], Catch::Contains("cycle on vl 0"));
    CHECK(first->credit_loops == 1);
    CHECK((*function)(f)->credit_loops == 2);
  }
  SECTION("dfsssp on the same ring: checked on the vls of its sls, acyclic, no error") {
    const SweepRoutes r = route("dfsssp", f, log);
    CHECK(r.engine == "dfsssp");
    CHECK(r.check_ok);
    CHECK_THAT(r.check, Catch::Contains("cdg acyclic on vls 0,1"));
    CHECK(log.with("credit loop").empty());
    CHECK(r.credit_loops == 0);
    REQUIRE(r.path_sl);
  }
}

// An AsideRunner that runs nothing until it is waited for: what a thread
// that had not started yet would look like.
struct HeldRunner {
  std::vector<std::function<void()>> jobs;  // in the order started
  int ran = 0;
  AsideRunner runner() {
    return [this](std::function<void()> job) -> std::function<void()> {
      jobs.push_back(std::move(job));
      const size_t mine = jobs.size() - 1;
      return [this, mine] {
        jobs[mine]();
        ++ran;
      };
    };
  }
};

TEST_CASE("with an aside runner the check is left pending, then recorded as in place", "[sweep][routing][check]") {
  // dfsssp on a ring: the check reads the engine's SLs, its graph and SL2VL
  // tables, which the pending job must own.
  const Fabric f = with_lids(topogen::mesh({.dims = {5}, .torus = true, .hosts_per_switch = 1}));
  for (const char* engine : {"minhop", "dfsssp"}) {
    INFO(engine);
    MemorySink in_place_log, aside_log;
    const SweepRoutes in_place = route(engine, f, in_place_log);
    HeldRunner held;
    auto function = make_route_function(engine, aside_log, {}, held.runner());
    REQUIRE(function.ok());
    Result<SweepRoutes> routes = (*function)(f);
    REQUIRE(routes.ok());
    REQUIRE(routes->pending_check);
    CHECK(held.jobs.size() == 1);
    CHECK(held.ran == 0);
    CHECK(routes->check.empty());
    CHECK_FALSE(routes->route_check);
    CHECK(aside_log.with("routing check").empty());

    settle_route_check(*routes);
    CHECK(held.ran == 1);
    CHECK_FALSE(routes->pending_check);
    CHECK(routes->check == in_place.check);
    CHECK(routes->check_ok == in_place.check_ok);
    CHECK(routes->credit_loops == in_place.credit_loops);
    REQUIRE(routes->route_check);
    CHECK(routes->route_check->pairs.delivered == in_place.route_check->pairs.delivered);
    REQUIRE(routes->port_routes.size() == in_place.port_routes.size());
    for (size_t i = 0; i < routes->port_routes.size(); ++i) CHECK(routes->port_routes[i].routes == in_place.port_routes[i].routes);
    CHECK(aside_log.lines == in_place_log.lines);
    settle_route_check(*routes);  // settled: nothing more
    CHECK(held.ran == 1);
  }
}

TEST_CASE("the sa's path sl lookup owns what it reads", "[sweep][routing][sl]") {
  // A stand-in engine whose path_sl reads the fabric it routed (as an engine
  // deriving SLs from coordinates would): the number of nodes, as an SL.
  class CountingEngine final : public routing::RoutingEngine {
   public:
    std::string_view name() const override { return "counting"; }
    Result<routing::UnicastTables> compute(const routing::RoutingInput&) override { return routing::UnicastTables{}; }
    uint8_t path_sl(const routing::RoutingInput& input, Lid, Lid) const override {
      return static_cast<uint8_t>(input.fabric().node_count() % 16);
    }
    bool assigns_sls() const override { return true; }
  };
  auto engine = std::make_shared<const CountingEngine>();
  auto snapshot = std::make_unique<Fabric>(with_lids(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 2})));
  REQUIRE(snapshot->node_count() == 7);
  const auto path_sl = owned_path_sl(engine, *snapshot);
  REQUIRE(path_sl);
  // The heavy sweep moves its fabric into the SubnetSnapshot and drops the
  // rest; the SA asks afterwards. Emptied and gone, the answer stands.
  *snapshot = Fabric{};
  CHECK(path_sl(Lid{4}, Lid{5}) == 7);
  snapshot.reset();
  CHECK(path_sl(Lid{4}, Lid{5}) == 7);
  // An engine without SLs gives no lookup: SL 0 for every path.
  CHECK_FALSE(owned_path_sl(nullptr, Fabric{}));
}

}  // namespace
}  // namespace ibsm
