#include "sm/status_page/status_page.h"

#include <chrono>

#include <catch2/catch.hpp>

#include "sm/status_page/load_colour.h"
#include "sm/topogen/generators.h"
#include "status_fixtures.h"

namespace ibsm::status {
namespace {

using testing::count;
using testing::must;

StatusPageInput master_input(const testing::Routed& r) {
  StatusPageInput in;
  in.now = 100'000'000;
  in.sm = {.state = "MASTER", .priority = 5, .port_guid = Guid{0x0002c90300001234}, .lid = Lid{1}, .master = ""};
  in.subnet = r.subnet;
  in.port_routes = r.check.pairs.port_routes;
  in.routing_engine = r.check.engine;
  in.routing_check = r.check.to_string();
  in.routing_check_ok = r.check.ok();
  in.sweeps = {{.kind = "heavy", .started = 87'750'000, .duration = 250'000, .mads = 420, .subnet_up = true},
               {.kind = "light", .started = 97'998'500, .duration = 1'500, .mads = 12, .subnet_up = true}};
  return in;
}

TEST_CASE("status page: the SM, routing, sweeps, problems and the picture", "[status][page]") {
  const testing::Routed r = testing::route(must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2})));
  StatusPageInput in = master_input(r);
  in.problems = {{SweepProblemKind::partition_cap, Guid{0x0002c90300000011}, PortNum{3},
                  "0x0002c90300000011 port 3: partition table too small"}};
  const std::string page = render_status_page(in);
  CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>\n<html lang=\"en\">"));
  CHECK_THAT(page, Catch::EndsWith("</body></html>\n"));
  CHECK_THAT(page, Catch::Contains("<h1>ibsm status \u2014 MASTER</h1>"));
  CHECK_THAT(page, Catch::Contains("<tr><th>priority</th><td>5</td></tr>"));
  CHECK_THAT(page, Catch::Contains("<tr><th>port GUID</th><td>0x0002c90300001234</td></tr>"));
  CHECK_THAT(page, Catch::Contains("<tr><th>master</th><td>this SM</td></tr>"));
  CHECK_THAT(page, Catch::Contains("<p>engine: minhop</p>"));
  CHECK_THAT(page, Catch::Contains("<p class=\"check ok\">routing check (minhop): 56/56 pairs delivered"));
  // The latest sweep first, its age from `now`.
  const size_t light = page.find("<tr><td>light</td><td>2.0 s ago</td><td>1.5 ms</td><td>12</td><td>up</td></tr>");
  const size_t heavy = page.find("<tr><td>heavy</td><td>12.0 s ago</td><td>250.0 ms</td><td>420</td><td>up</td></tr>");
  REQUIRE(light != std::string::npos);
  REQUIRE(heavy != std::string::npos);
  CHECK(light < heavy);
  CHECK_THAT(page, Catch::Contains("<li><span class=\"kind\">partition_cap</span> 0x0002c90300000011 port 3: partition table too small</li>"));
  CHECK_THAT(page, Catch::Contains("<p>6 switches, 8 CAs, 16 cables</p>"));
  CHECK_THAT(page, Catch::Contains("<svg xmlns="));
  CHECK_THAT(page, Catch::Contains("<h3>Most loaded links between switches</h3>"));
  CHECK(count(page, "<script") == 0);
}

TEST_CASE("status page: the legend spans the counts of each colour", "[status][page]") {
  const testing::Routed r = testing::route(must(topogen::leaf_spine({.leaves = 4, .spines = 2, .hosts_per_leaf = 2})));
  const std::string page = render_status_page(master_input(r));
  const uint64_t max = std::max<uint64_t>(7, r.check.pairs.max_link_routes);
  REQUIRE(max == 7);  // every host receives 7 routes, no cable between switches carries more
  // Fifths of 7: 1, 2, 3-4, 5, 6-7.
  CHECK_THAT(page, Catch::Contains(std::string("<i style=\"background:") + kLoadColours[1] + "\"></i>1</span>"));
  CHECK_THAT(page, Catch::Contains(std::string("<i style=\"background:") + kLoadColours[3] + "\"></i>3\u20134</span>"));
  CHECK_THAT(page, Catch::Contains(std::string("<i style=\"background:") + kLoadColours[5] + "\"></i>6\u20137</span>"));
  CHECK_THAT(page, Catch::Contains(std::string("<i style=\"background:") + kErrorColour + "\"></i>errors</span>"));
}

TEST_CASE("status page: every string from the fabric is escaped", "[status][page][escape]") {
  Fabric f = must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 1}));
  f.node(*f.find_by_name("leaf-0")).description = "<img src=x onerror=alert(1)>";
  f.node(*f.find_by_name("host-0")).description = "\"><script>alert('ca')</script>";
  const testing::Routed r = testing::route(std::move(f));
  StatusPageInput in = master_input(r);
  in.problems = {{SweepProblemKind::port_state, Guid{}, std::nullopt, "<b>bold</b> problem"}};
  in.check_problems = {"<i>pair</i> unreachable"};
  in.last_error = "a & b";
  in.sm.master = "<master>";
  const std::string page = render_status_page(in);
  CHECK(count(page, "<img") == 0);
  CHECK(count(page, "<script") == 0);
  CHECK(count(page, "<b>") == 0);
  CHECK(count(page, "<i>") == 0);
  CHECK_THAT(page, Catch::Contains("<li><span class=\"kind\">check</span> &lt;i&gt;pair&lt;/i&gt; unreachable</li>"));
  CHECK(count(page, "<master>") == 0);
  CHECK_THAT(page, Catch::Contains("&lt;img src=x onerror=alert(1)&gt;"));
  CHECK_THAT(page, Catch::Contains("&quot;&gt;&lt;script&gt;alert(&#39;ca&#39;)&lt;/script&gt;"));
  CHECK_THAT(page, Catch::Contains("<p class=\"bad\">a &amp; b</p>"));
}

TEST_CASE("status page: offline, and before any subnet", "[status][page]") {
  StatusPageInput in;
  std::string page = render_status_page(in);
  CHECK_THAT(page, Catch::Contains("<h1>ibsm status</h1>"));
  CHECK_THAT(page, Catch::Contains("no SM: rendered offline"));
  CHECK_THAT(page, Catch::Contains("<tr><th>subnet</th><td>not configured yet</td></tr>"));
  CHECK_THAT(page, Catch::Contains("<section id=\"sweeps\"><h2>Last sweeps</h2>\n<p>none yet</p>"));
  CHECK_THAT(page, Catch::Contains("<p>no subnet yet</p>"));
  CHECK_THAT(page, Catch::Contains("<p>engine: none yet</p>"));

  const testing::Routed r = testing::route(must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 1})));
  in.subnet = r.subnet;
  page = render_status_page(in);
  CHECK_THAT(page, Catch::Contains("no routed load known: every link is drawn grey"));
  CHECK_THAT(page, Catch::Contains("<tr><th>subnet</th><td>heavy sweep 1, SM LID 0</td></tr>"));
  CHECK_THAT(page, !Catch::Contains("Most loaded links"));
  r.subnet->sweep = 0;  // a topology file's
  page = render_status_page(in);
  CHECK_THAT(page, Catch::Contains("<tr><th>subnet</th><td>from files, not swept</td></tr>"));
}

TEST_CASE("status page: a failed routing check is shown as bad", "[status][page]") {
  const testing::Routed r = testing::route(must(topogen::leaf_spine({.leaves = 2, .spines = 1, .hosts_per_leaf = 1})));
  StatusPageInput in = master_input(r);
  in.routing_check = "routing check (updn): 1/2 pairs delivered (1 unreachable, 0 looping)";
  in.routing_check_ok = false;
  const std::string page = render_status_page(in);
  CHECK_THAT(page, Catch::Contains("<p class=\"check bad\">routing check (updn): 1/2 pairs delivered"));
}

TEST_CASE("status page: a 45k-endpoint fat tree stays a small page", "[status][page][scale]") {
  // The checker's scale fabric (routing/route_check.tests.cpp): 3840
  // switches, 90112 cables between them. Unrouted (every link grey): the
  // size depends on what is drawn, not on the loads.
  auto subnet = std::make_shared<SubnetSnapshot>();
  subnet->fabric = must(topogen::xgft({.down = {32, 32, 44}, .up = {1, 32, 32}}));
  REQUIRE(subnet->fabric.ca_count() == 45056);
  StatusPageInput in;
  in.subnet = subnet;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string page = render_status_page(in);
  const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - t0;
  WARN("status page of 45056 endpoints / 3840 switches: " << page.size() << " bytes in " << took.count() << " ms");
  CHECK(page.size() < 2'000'000);
  CHECK(count(page, "<g class=\"switch\">") == 3840);
  CHECK(count(page, "<g class=\"cas\">") == 1408);
  CHECK(count(page, "class=\"link\"") == 2000);
  CHECK_THAT(page, Catch::Contains("45056 CA ports (more than 256) are drawn as one mark per switch"));
  CHECK_THAT(page, Catch::Contains("only the 2000 most loaded of "));
}

}  // namespace
}  // namespace ibsm::status
