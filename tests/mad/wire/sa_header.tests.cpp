#include "mad/wire/sa_header.h"

#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "wire_random.h"

using namespace ibsm;
using namespace ibsm::wire;
using namespace ibsm::wire::testing;

namespace {

SaMad random_sa_mad(std::mt19937_64& rng) {
  SaMad m;
  m.header = random_struct<MadHeader>(rng);
  m.rmpp = random_struct<RmppHeader>(rng);
  m.sa = random_struct<SaHeader>(rng);
  for (auto& b : m.data) b = static_cast<uint8_t>(rng());
  return m;
}

// A well-formed single-MAD SA GetResp.
SaMad good_sa_mad() {
  SaMad m;
  m.header.method = method::get_resp;
  m.header.tid = 77;
  m.header.attr_id = sa_attr::node_record;
  m.sa.component_mask = 0x1;
  return m;
}

MadBuffer encoded(const SaMad& m) {
  MadBuffer mad{};
  encode(m, mad);
  return mad;
}

}  // namespace

TEST_CASE("sa mads survive encode and decode", "[wire][sa][roundtrip]") {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 1000; ++round) {
    const SaMad m = random_sa_mad(rng);
    MadBuffer mad;
    mad.fill(0xC3);
    encode(m, mad);
    CHECK(mad[46] == 0);  // reserved
    CHECK(mad[47] == 0);
    auto back = decode_sa_mad(mad);
    REQUIRE(back.ok());
    REQUIRE(*back == m);
  }
}

TEST_CASE("a default sa mad is class 0x03 version 2", "[wire][sa]") {
  const MadBuffer mad = encoded(good_sa_mad());
  CHECK(mad[0] == 1);
  CHECK(mad[1] == 0x03);
  CHECK(mad[2] == 2);
  auto m = parse_sa_mad(mad);
  REQUIRE(m.ok());
  CHECK(m->header.attr_id == sa_attr::node_record);
  CHECK(sa_data(mad).size() == 200);
}

TEST_CASE("parse_sa_mad refuses malformed sa mads with a reason", "[wire][sa][parse]") {
  auto rejects = [](std::span<const uint8_t> mad, const std::string& reason) {
    auto r = parse_sa_mad(mad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::invalid_argument);
    CHECK_THAT(r.status().message(), Catch::Contains(reason));
  };
  const MadBuffer good = encoded(good_sa_mad());

  SECTION("length") {
    std::vector<uint8_t> shorter(good.begin(), good.begin() + 200);
    rejects(shorter, "200 bytes");
  }
  SECTION("base version") {
    MadBuffer m = good;
    m[0] = 0;
    rejects(m, "base version 0");
  }
  SECTION("class") {
    MadBuffer m = good;
    m[1] = mgmt_class::perf_mgt;
    rejects(m, "0x04 is not subnet administration");
    m[1] = mgmt_class::subn_directed_route;
    rejects(m, "smp");
  }
  SECTION("class version") {
    MadBuffer m = good;
    m[2] = 1;
    rejects(m, "sa class version 1");
  }
  SECTION("rmpp") {
    SaMad m = good_sa_mad();
    m.rmpp.version = 2;
    rejects(encoded(m), "rmpp version 2");
    m.rmpp = {.version = 0, .type = rmpp_type::data, .flags = rmpp_flag::active};
    rejects(encoded(m), "rmpp active with rmpp version 0");
    m.rmpp = {.version = 1, .type = rmpp_type::none, .flags = rmpp_flag::active};
    rejects(encoded(m), "rmpp type 0");
    m.rmpp = {.version = 1, .type = 5, .flags = rmpp_flag::active};
    rejects(encoded(m), "rmpp type 5");
    m.rmpp = {.version = 1, .type = rmpp_type::ack, .flags = 0};
    rejects(encoded(m), "without the active flag");
    m.rmpp = {.version = 1, .type = rmpp_type::data, .flags = rmpp_flag::active | rmpp_flag::first, .data1 = 1};
    CHECK(parse_sa_mad(encoded(m)).ok());
  }
}

TEST_CASE("parse_gmp takes any class but the smp ones", "[wire][gmp]") {
  MadBuffer m{};
  m[0] = 1;
  m[1] = mgmt_class::perf_mgt;
  m[2] = 1;
  auto h = parse_gmp(m);
  REQUIRE(h.ok());
  CHECK(h->mgmt_class == mgmt_class::perf_mgt);
  m[1] = mgmt_class::subn_lid_routed;
  CHECK_FALSE(parse_gmp(m).ok());
  m[1] = mgmt_class::perf_mgt;
  m[0] = 3;
  CHECK_THAT(parse_gmp(m).status().message(), Catch::Contains("base version 3"));
  std::vector<uint8_t> shorter(24);
  CHECK_THAT(parse_gmp(shorter).status().message(), Catch::Contains("24 bytes"));
}
