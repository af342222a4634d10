#include "mad/wire/smp.h"

#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "mad/wire/node_info.h"
#include "mad/wire/port_info.h"
#include "wire_random.h"

using namespace ibsm;
using namespace ibsm::wire;
using namespace ibsm::wire::testing;

namespace {

DrPath path_of(std::initializer_list<uint8_t> ports) {
  DrPath p;
  for (uint8_t port : ports) p = p.extended(port);
  return p;
}

Smp random_smp(std::mt19937_64& rng, bool directed) {
  Smp s;
  s.mgmt_class = directed ? mgmt_class::subn_directed_route : mgmt_class::subn_lid_routed;
  s.base_version = static_cast<uint8_t>(rng());
  s.class_version = static_cast<uint8_t>(rng());
  s.method = static_cast<uint8_t>(rng());
  s.tid = rng();
  s.attr_id = static_cast<uint16_t>(rng());
  s.attr_mod = static_cast<uint32_t>(rng());
  s.m_key = rng();
  for (auto& b : s.data) b = static_cast<uint8_t>(rng());
  if (directed) {
    s.status = static_cast<uint16_t>(random_bits(rng, 15));
    s.direction = (rng() & 1) != 0;
    s.hop_pointer = static_cast<uint8_t>(rng());
    s.hop_count = static_cast<uint8_t>(rng());
    s.dr_slid = static_cast<uint16_t>(rng());
    s.dr_dlid = static_cast<uint16_t>(rng());
    for (auto& b : s.initial_path) b = static_cast<uint8_t>(rng());
    for (auto& b : s.return_path) b = static_cast<uint8_t>(rng());
  } else {
    s.status = static_cast<uint16_t>(rng());
  }
  return s;
}

}  // namespace

TEST_CASE("a directed-route smp leaves the sm the way IBA 14.2.2 says", "[wire][smp][dr]") {
  NodeInfo ni;
  ni.node_guid = Guid{0xABCD};
  std::array<uint8_t, node_info_size> payload{};
  encode(ni, payload);
  const DrPath path = path_of({1, 4, 17});
  const MadBuffer mad = build_dr_smp(method::get, smp_attr::node_info, 0, 0x1122334455667788ULL, path, payload);

  CHECK(mad[0] == 1);
  CHECK(mad[1] == 0x81);
  CHECK(mad[2] == 1);
  CHECK(mad[3] == 0x01);
  CHECK(mad[4] == 0);  // D = 0, status 0
  CHECK(mad[6] == 0);  // hop pointer
  CHECK(mad[7] == 3);  // hop count
  CHECK(mad[32] == 0xFF);
  CHECK(mad[35] == 0xFF);
  CHECK(mad[129] == 1);
  CHECK(mad[131] == 17);

  auto view = parse_smp(mad);
  REQUIRE(view.ok());
  CHECK(view->directed());
  CHECK(view->method() == method::get);
  CHECK(view->attr_id() == smp_attr::node_info);
  CHECK(view->tid() == 0x1122334455667788ULL);
  CHECK(view->hop_count() == 3);
  CHECK(view->hop_pointer() == 0);
  CHECK_FALSE(view->direction());
  CHECK(view->dr_slid() == permissive_lid);
  CHECK(view->dr_dlid() == permissive_lid);
  CHECK(view->initial_path() == path);
  CHECK(decode_node_info(view->data())->node_guid == Guid{0xABCD});
}

TEST_CASE("the local port is a directed route of zero hops", "[wire][smp][dr]") {
  const MadBuffer mad = build_dr_smp(method::get, smp_attr::port_info, 1, 9, DrPath{});
  auto view = parse_smp(mad);
  REQUIRE(view.ok());
  CHECK(view->hop_count() == 0);
  CHECK(view->initial_path().hops() == 0);
}

TEST_CASE("a lid-routed smp carries m_key and payload", "[wire][smp][lid]") {
  std::array<uint8_t, 64> payload{};
  payload[63] = 0x5A;
  const MadBuffer mad = build_lid_smp(method::set, smp_attr::port_info, 7, 99, payload, 0xDEADBEEFULL);
  CHECK(mad[1] == 0x01);
  CHECK(mad[3] == 0x02);
  CHECK(mad[31] == 0xEF);
  CHECK(mad[127] == 0x5A);
  auto view = parse_smp(mad);
  REQUIRE(view.ok());
  CHECK_FALSE(view->directed());
  CHECK(view->attr_mod() == 7);
  CHECK(view->m_key() == 0xDEADBEEFULL);
  CHECK(view->hop_count() == 0);
  CHECK(smp_data(mad)[63] == 0x5A);
}

TEST_CASE("smps of both classes survive encode and decode", "[wire][smp][roundtrip]") {
  std::mt19937_64 rng(99);
  for (int round = 0; round < 2000; ++round) {
    const bool directed = round % 2 == 0;
    const Smp s = random_smp(rng, directed);
    MadBuffer mad;
    mad.fill(0xA5);
    encode(s, mad);
    auto back = decode_smp(mad);
    REQUIRE(back.ok());
    REQUIRE(*back == s);
    if (!directed) {
      // A LID-routed SMP has nothing after its data.
      for (size_t i = 128; i < 256; ++i) REQUIRE(mad[i] == 0);
    }
  }
}

TEST_CASE("default smps of both classes round trip", "[wire][smp][roundtrip]") {
  for (uint8_t cls : {mgmt_class::subn_lid_routed, mgmt_class::subn_directed_route}) {
    Smp s;
    s.mgmt_class = cls;
    MadBuffer mad{};
    encode(s, mad);
    CHECK(decode_smp(mad).value() == s);
  }
}

TEST_CASE("the view reads what to_smp decodes", "[wire][smp]") {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 200; ++round) {
    Smp s = random_smp(rng, round % 2 == 0);
    s.base_version = 1;
    s.class_version = 1;
    s.hop_count = static_cast<uint8_t>(rng() % 64);
    s.hop_pointer = static_cast<uint8_t>(rng() % (s.hop_count + 2u));
    if (!s.directed()) s.hop_count = s.hop_pointer = 0;
    MadBuffer mad{};
    encode(s, mad);
    auto v = parse_smp(mad);
    REQUIRE(v.ok());
    CHECK(v->to_smp() == s);
    CHECK(v->status() == s.status);
    CHECK(v->direction() == s.direction);
    CHECK(v->hop_pointer() == s.hop_pointer);
    CHECK(v->m_key() == s.m_key);
    CHECK(v->is_response() == ((s.method & 0x80) != 0));
    if (s.directed()) {
      CHECK(v->initial_path() == DrPath::from_raw(s.initial_path, s.hop_count));
      CHECK(v->return_path() == DrPath::from_raw(s.return_path, s.hop_count));
    }
  }
}

TEST_CASE("parse_smp refuses malformed smps with a reason", "[wire][smp][parse]") {
  const MadBuffer good = build_dr_smp(method::get, smp_attr::node_info, 0, 1, path_of({1, 2}));
  REQUIRE(parse_smp(good).ok());

  auto rejects = [](std::span<const uint8_t> mad, const std::string& reason) {
    auto r = parse_smp(mad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::invalid_argument);
    CHECK_THAT(r.status().message(), Catch::Contains(reason));
  };

  SECTION("wrong length") {
    std::vector<uint8_t> shorter(good.begin(), good.end() - 1);
    rejects(shorter, "255 bytes");
    std::vector<uint8_t> longer(good.begin(), good.end());
    longer.push_back(0);
    rejects(longer, "257 bytes");
    rejects({}, "0 bytes");
  }
  SECTION("base version") {
    MadBuffer m = good;
    m[0] = 2;
    rejects(m, "base version 2");
  }
  SECTION("not an smp class") {
    MadBuffer m = good;
    m[1] = mgmt_class::subn_adm;
    rejects(m, "class 0x03");
  }
  SECTION("class version") {
    MadBuffer m = good;
    m[2] = 2;
    rejects(m, "class version 2");
  }
  SECTION("hop count beyond 63") {
    MadBuffer m = good;
    m[7] = 64;
    rejects(m, "hop count 64");
  }
  SECTION("hop pointer beyond hop count + 1") {
    MadBuffer m = good;
    m[6] = 4;  // hop count is 2
    rejects(m, "hop pointer 4");
    m[6] = 3;
    CHECK(parse_smp(m).ok());
  }
  SECTION("a lid-routed smp has no hop fields to check") {
    MadBuffer m = build_lid_smp(method::get, smp_attr::node_info, 0, 1);
    m[6] = 0xFF;
    m[7] = 0xFF;
    CHECK(parse_smp(m).ok());
  }
}

TEST_CASE("decode_smp refuses what is not an smp", "[wire][smp]") {
  MadBuffer m{};
  m[1] = mgmt_class::perf_mgt;
  auto r = decode_smp(m);
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("0x04"));
  std::vector<uint8_t> shorter(100);
  CHECK_FALSE(decode_smp(shorter).ok());
}

TEST_CASE("write_dr_smp writes the bytes the general encoder writes", "[wire][smp][dr]") {
  // The fast builder the sweep uses must agree with encode(Smp) byte for
  // byte, whatever was in the buffer before.
  std::mt19937_64 rng(1313);
  for (int i = 0; i < 2000; ++i) {
    Smp s;
    s.mgmt_class = mgmt_class::subn_directed_route;
    s.method = static_cast<uint8_t>(rng());
    s.tid = rng();
    s.attr_id = static_cast<uint16_t>(rng());
    s.attr_mod = static_cast<uint32_t>(rng());
    s.m_key = rng();
    const size_t payload_size = rng() % (smp_data_size + 1);
    const std::vector<uint8_t> payload = random_bytes(rng, payload_size);
    std::copy(payload.begin(), payload.end(), s.data.begin());
    DrPath path;
    const int hops = static_cast<int>(rng() % (max_dr_hops + 1));
    for (int h = 0; h < hops; ++h) path = path.extended(static_cast<uint8_t>(1 + rng() % 254));
    s.hop_count = static_cast<uint8_t>(hops);
    s.initial_path = path.raw();
    MadBuffer general{};
    encode(s, general);

    MadBuffer fast;
    for (auto& b : fast) b = static_cast<uint8_t>(rng());  // stale bytes must not survive
    write_dr_smp(fast, s.method, s.attr_id, s.attr_mod, s.tid, path, payload, s.m_key);
    REQUIRE(fast == general);
    REQUIRE(build_dr_smp(s.method, s.attr_id, s.attr_mod, s.tid, path, payload, s.m_key) == general);
  }
}
