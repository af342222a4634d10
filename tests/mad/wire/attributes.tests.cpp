// Checks every struct with a field table the same way: its table is sane, a
// random value survives encode and decode, reserved bits go out as zero, and
// a short buffer is refused with a reason.
#include <algorithm>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "wire_codecs.h"
#include "wire_random.h"

using namespace ibsm;
using namespace ibsm::wire;
using namespace ibsm::wire::testing;

#define WIRE_STRUCTS                                                                              \
  NodeInfo, PortInfo, SwitchInfo, SmInfo, GuidInfo, LinearForwardingTable, MulticastForwardingTable, \
      PKeyTable, SlToVlTable, VlArbitrationTable, Notice, MadHeader, RmppHeader, SaHeader, ClassPortInfo,         \
      InformInfo, NodeRecord, PortInfoRecord, SwitchInfoRecord, SmInfoRecord, LinkRecord,                         \
      LinearForwardingTableRecord, MulticastForwardingTableRecord, GuidInfoRecord, PKeyTableRecord,              \
      SlToVlTableRecord, VlArbitrationTableRecord, PathRecord, McMemberRecord, ServiceRecord, InformInfoRecord, \
      PortCounters, PortCountersExtended

TEMPLATE_TEST_CASE("field tables are ordered, disjoint and inside the struct", "[wire][table]", WIRE_STRUCTS) {
  constexpr auto table = field_table<TestType>();
  STATIC_REQUIRE(table.size() > 0);
  size_t next_free = Codec<TestType>::begin * 8;
  for (const Field& f : table) {
    INFO(f.name << " at bit " << f.bit_offset);
    CHECK(f.bit_width > 0);
    CHECK(f.bit_offset >= next_free);
    CHECK(f.end_bit() <= Codec<TestType>::size * 8);
    next_free = f.end_bit();
  }
}

TEMPLATE_TEST_CASE("every member is wide enough for its field", "[wire][table]", WIRE_STRUCTS) {
  TestType x{};
  visit_fields(x, [](const Field& f, const auto& m) {
    using M = std::remove_cvref_t<decltype(m)>;
    INFO(f.name);
    if constexpr (std::is_same_v<M, bool>) {
      CHECK(f.bit_width == 1);
    } else if constexpr (is_scalar_member<M>()) {
      CHECK(f.bit_width <= 8 * sizeof(M));
    } else {
      CHECK(f.bit_width == 8 * sizeof(M));
    }
  });
}

TEMPLATE_TEST_CASE("random values survive encode and decode", "[wire][roundtrip]", WIRE_STRUCTS) {
  std::mt19937_64 rng(42);
  for (int round = 0; round < 500; ++round) {
    const auto x = random_struct<TestType>(rng);
    // Garbage around the struct must not leak into it.
    auto buf = random_bytes(rng, Codec<TestType>::size);
    encode(x, buf);
    auto back = Codec<TestType>::decode(buf);
    REQUIRE(back.ok());
    REQUIRE(*back == x);
  }
}

TEMPLATE_TEST_CASE("bits outside every field go out as zero", "[wire][reserved]", WIRE_STRUCTS) {
  std::mt19937_64 rng(7);
  const auto x = random_struct<TestType>(rng);
  std::vector<uint8_t> buf(Codec<TestType>::size, 0xFF);
  encode(x, buf);
  std::vector<bool> owned(buf.size() * 8, false);
  for (const Field& f : field_table<TestType>())
    for (size_t i = f.bit_offset; i < f.end_bit(); ++i) owned[i] = true;
  for (size_t i = Codec<TestType>::begin * 8; i < buf.size() * 8; ++i) {
    if (owned[i]) continue;
    INFO("bit " << i);
    REQUIRE(((buf[i / 8] >> (7 - i % 8)) & 1) == 0);
  }
  // And the bytes before the struct (the rest of a MAD) are left alone.
  for (size_t i = 0; i < Codec<TestType>::begin; ++i) CHECK(buf[i] == 0xFF);
}

TEMPLATE_TEST_CASE("a short buffer is refused with a reason", "[wire][short]", WIRE_STRUCTS) {
  for (size_t n : {size_t{0}, size_t{1}, Codec<TestType>::size - 1}) {
    // An exact-size heap buffer, so a sanitizer build catches any read past it.
    std::vector<uint8_t> buf(n, 0xAB);
    auto r = Codec<TestType>::decode(buf);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == StatusCode::invalid_argument);
    CHECK_THAT(r.status().message(), Catch::Contains("short") && Catch::Contains(std::to_string(n) + " bytes"));
  }
  std::vector<uint8_t> exact(Codec<TestType>::size, 0);
  CHECK(Codec<TestType>::decode(exact).ok());
}
