// The tools' AsideRunner: the job runs on a thread of its own, and is over
// when the waiter returns, or when the last copy of the waiter goes; min-hop
// searching its next paths on such threads routes as it does in place.
#include "tools/os/aside_thread.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "routing/graph.h"
#include "routing/minhop.h"
#include "sm/topogen/generators.h"
#include "tests/routing/routing_fixtures.h"

namespace ibsm {
namespace {

TEST_CASE("the thread runner runs the job beside its caller and joins it", "[os][aside]") {
  const AsideRunner runner = thread_aside_runner();
  SECTION("waited for: the job has run, on another thread") {
    std::thread::id ran_on;
    std::atomic<bool> go{false};
    int result = 0;
    std::function<void()> wait = runner([&] {
      while (!go.load()) std::this_thread::yield();  // runs only once the caller has moved on
      ran_on = std::this_thread::get_id();
      result = 42;
    });
    go = true;  // were the job run in place, the runner would never have returned
    wait();
    CHECK(result == 42);
    CHECK(ran_on != std::this_thread::get_id());
    wait();  // a second wait returns at once
  }
  SECTION("never waited for: the waiter's last copy joins the thread") {
    std::atomic<bool> done{false};
    {
      std::function<void()> wait = runner([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        done = true;
      });
      std::function<void()> copy = wait;
    }
    CHECK(done);
  }
}

// The searches of min-hop's next 64 destinations run on the runner's
// threads while the current ones are routed (routing/balanced_routes.h):
// the tables are those routed in place. Under ThreadSanitizer this is
// where a search and the routing would race.
TEST_CASE("min-hop with its searches on the runner's threads routes as in place", "[os][aside][routing]") {
  using routing::testing::must;
  Fabric f = must(topogen::random_regular({.switches = 200, .degree = 4, .hosts_per_switch = 2, .seed = 5}));
  routing::testing::assign_lids(f);
  const routing::RoutingGraph graph = must(routing::RoutingGraph::build(f));
  routing::MinHopEngine engine;
  const routing::UnicastTables in_place = must(engine.compute(routing::RoutingInput{graph}));
  const routing::UnicastTables aside =
      must(engine.compute(routing::RoutingInput{.graph = graph, .aside = thread_aside_runner()}));
  CHECK(aside.lfts == in_place.lfts);
}

}  // namespace
}  // namespace ibsm
