#include <string>

#include <catch2/catch.hpp>

#include "sm/topogen/catalog.h"
#include "tests/sm/topogen/fabric_checks.h"

using namespace ibsm;
using namespace ibsm::topogen;
using namespace ibsm::topogen::testing;

TEST_CASE("every kind builds with its defaults and matches its estimate", "[topogen][catalog]") {
  REQUIRE(kinds().size() >= 9);
  for (const KindSpec& kind : kinds()) {
    INFO(kind.name);
    const Fabric f = value_of(generate(kind.name, {}));
    check_counts(f, value_of(estimate(kind.name, {})));
    check_wiring_and_identities(f);
    CHECK(connected(f));
    CHECK_FALSE(kind.examples.empty());
  }
}

TEST_CASE("every documented example is valid", "[topogen][catalog]") {
  for (const KindSpec& kind : kinds()) {
    for (const Example& ex : kind.examples) {
      INFO(ex.args);
      // "<kind> --name value ..." into pairs
      std::vector<std::string> words;
      std::string text = ex.args;
      for (size_t at = 0; at < text.size();) {
        const size_t end = std::min(text.find(' ', at), text.size());
        words.push_back(text.substr(at, end - at));
        at = end + 1;
      }
      REQUIRE(words.front() == kind.name);
      ParamArgs args;
      for (size_t i = 1; i + 1 < words.size(); i += 2) {
        REQUIRE(words[i].starts_with("--"));
        args.emplace_back(words[i].substr(2), words[i + 1]);
      }
      CHECK(value_of(estimate(kind.name, args)).nodes() > 0);
    }
  }
}

TEST_CASE("catalog parameters reach the generator", "[topogen][catalog]") {
  const Fabric f = value_of(generate("torus", {{"dims", "3,4"}, {"hosts", "2"}, {"width", "12x"}, {"speed", "edr"}}));
  CHECK(f.switch_count() == 12);
  CHECK(f.ca_count() == 24);
  check_wiring_and_identities(f, {link_width::x12, link_speed::qdr, link_speed_ext::edr});
  CHECK(f.find_by_name("sw-2-3").has_value());

  const SizeEstimate e = value_of(estimate("xgft", {{"down", "32,32,48"}, {"up", "1,32,32"}}));
  CHECK(e.cas == 49152);
  CHECK(e.lids_needed() == 49152 + 4096);

  // The random kind's seed changes the wiring.
  const Fabric r1 = value_of(generate("random", {{"seed", "1"}}));
  const Fabric r2 = value_of(generate("random", {{"seed", "2"}}));
  CHECK(fingerprint(r1) != fingerprint(r2));
}

TEST_CASE("catalog rejects unknown names and malformed values", "[topogen][catalog][errors]") {
  CHECK_THAT(error_of(generate("moebius", {})), Catch::Contains("unknown topology kind 'moebius'"));
  CHECK_THAT(error_of(generate("torus", {{"depth", "3"}})), Catch::Contains("torus has no parameter 'depth'"));
  CHECK_THAT(error_of(generate("torus", {{"hosts", "two"}})), Catch::Contains("hosts: 'two' is not"));
  CHECK_THAT(error_of(generate("torus", {{"hosts", "-1"}})), Catch::Contains("hosts"));
  CHECK_THAT(error_of(generate("torus", {{"hosts", "4294967296"}})), Catch::Contains("more than 4294967295"));
  CHECK_THAT(error_of(generate("torus", {{"dims", "4,,4"}})), Catch::Contains("dims"));
  CHECK_THAT(error_of(generate("torus", {{"dims", "4,4,"}})), Catch::Contains("dims"));
  CHECK_THAT(error_of(generate("torus", {{"hosts", "1"}, {"hosts", "2"}})), Catch::Contains("given twice"));
  CHECK_THAT(error_of(generate("torus", {{"width", "3x"}})), Catch::Contains("width"));
  CHECK_THAT(error_of(generate("torus", {{"speed", "fast"}})), Catch::Contains("speed"));
  CHECK_THAT(error_of(generate("back-to-back", {{"hosts", "1"}})), Catch::Contains("no parameter"));
  // Generator errors come through unchanged.
  CHECK_THAT(error_of(generate("fat-tree", {{"k", "1"}})), Catch::Contains("k must be at least 2"));
}
