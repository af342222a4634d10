#include "mad/wire/field.h"

#include <array>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "wire_random.h"

using namespace ibsm;
using namespace ibsm::wire;
using namespace ibsm::wire::testing;

namespace {

// The spec's bit numbering spelled out one bit at a time, as an independent
// reference: bit i is bit 7 - i%8 of byte i/8.
bool ref_bit(std::span<const uint8_t> buf, size_t i) { return (buf[i / 8] >> (7 - i % 8)) & 1; }

uint64_t ref_get(std::span<const uint8_t> buf, const Field& f) {
  uint64_t v = 0;
  for (size_t i = 0; i < f.bit_width; ++i) v = (v << 1) | (ref_bit(buf, f.bit_offset + i) ? 1 : 0);
  return v;
}

}  // namespace

TEST_CASE("fields read the spec's msb-first bit numbering", "[wire][field]") {
  const std::array<uint8_t, 4> buf{0x5A, 0xC3, 0x0F, 0x81};
  CHECK(get_field(buf, Field{0, 4, "hi"}) == 0x5);
  CHECK(get_field(buf, Field{4, 4, "lo"}) == 0xA);
  CHECK(get_field(buf, Field{0, 1, "msb"}) == 0);
  CHECK(get_field(buf, Field{1, 1, "bit1"}) == 1);
  CHECK(get_field(buf, Field{7, 1, "lsb"}) == 0);
  CHECK(get_field(buf, Field{4, 8, "straddle"}) == 0xAC);
  CHECK(get_field(buf, Field{12, 12, "three bytes"}) == 0x30F);
  CHECK(get_field(buf, Field{0, 32, "word"}) == 0x5AC30F81);
  CHECK(get_field(buf, Field{31, 1, "last"}) == 1);
}

TEST_CASE("set_field writes only its own bits", "[wire][field]") {
  std::array<uint8_t, 4> buf{0xFF, 0xFF, 0xFF, 0xFF};
  set_field(buf, Field{5, 7, "odd"}, 0);
  CHECK(buf == std::array<uint8_t, 4>{0xF8, 0x0F, 0xFF, 0xFF});
  set_field(buf, Field{5, 7, "odd"}, 0x55);
  CHECK(get_field(buf, Field{5, 7, "odd"}) == 0x55);
  CHECK(buf == std::array<uint8_t, 4>{0xFD, 0x5F, 0xFF, 0xFF});
  // Value bits above the width are dropped instead of spilling into neighbours.
  set_field(buf, Field{8, 4, "nibble"}, 0x1F0);
  CHECK(buf == std::array<uint8_t, 4>{0xFD, 0x0F, 0xFF, 0xFF});
}

TEST_CASE("fields of any width at any offset round trip and agree with the reference",
          "[wire][field]") {
  std::mt19937_64 rng(1234);
  for (int round = 0; round < 5000; ++round) {
    const unsigned width = 1 + static_cast<unsigned>(rng() % 64);
    const unsigned offset = static_cast<unsigned>(rng() % (256 * 8 - width + 1));
    const Field f{static_cast<uint16_t>(offset), static_cast<uint16_t>(width), "random"};
    auto buf = random_bytes(rng, 256);
    const auto before = buf;
    INFO("offset " << offset << " width " << width);
    REQUIRE(get_field(buf, f) == ref_get(buf, f));
    const uint64_t v = random_bits(rng, width);
    set_field(buf, f, v);
    REQUIRE(get_field(buf, f) == v);
    REQUIRE(ref_get(buf, f) == v);
    for (size_t i = 0; i < 256 * 8; ++i) {
      if (i >= offset && i < offset + width) continue;
      REQUIRE(ref_bit(buf, i) == ref_bit(before, i));
    }
  }
}

TEST_CASE("a field may end exactly at the end of the buffer", "[wire][field]") {
  std::array<uint8_t, 9> buf{};
  const Field f{8, 64, "tail"};
  set_field(buf, f, 0x0123456789ABCDEFULL);
  CHECK(buf[0] == 0);
  CHECK(buf[1] == 0x01);
  CHECK(buf[8] == 0xEF);
  CHECK(get_field(buf, f) == 0x0123456789ABCDEFULL);
  CHECK(field_fits(9, f));
  CHECK_FALSE(field_fits(8, f));
}

TEST_CASE("gids split into prefix and interface id", "[wire][field][gid]") {
  const Gid g = Gid::from_parts(0xFE80000000000000ULL, 0x0002C9030000ABCDULL);
  CHECK(g.raw[0] == 0xFE);
  CHECK(g.raw[1] == 0x80);
  CHECK(g.raw[15] == 0xCD);
  CHECK(g.prefix() == 0xFE80000000000000ULL);
  CHECK(g.interface_id() == 0x0002C9030000ABCDULL);
  std::array<uint8_t, 40> buf{};
  set_gid(buf, Field{64, 128, "gid"}, g);
  CHECK(buf[8] == 0xFE);
  CHECK(get_gid(buf, Field{64, 128, "gid"}) == g);
}

TEST_CASE("text fields stop at the first nul and are nul padded", "[wire][field][text]") {
  const Field f{0, 512, "NodeString"};
  std::array<uint8_t, 64> buf;
  buf.fill(0xEE);
  set_text(buf, f, "switch-1 lane 3");
  CHECK(get_text(buf, f) == "switch-1 lane 3");
  CHECK(buf[15] == 0);
  CHECK(buf[63] == 0);
  const std::string long_text(80, 'x');
  set_text(buf, f, long_text);
  CHECK(get_text(buf, f) == std::string(64, 'x'));  // no nul at all: the whole field
}

TEST_CASE("dr path arrays carry entries 1..hops", "[wire][field][drpath]") {
  DrPath p;
  for (uint8_t port : {1, 7, 36, 2}) p = p.extended(port);
  std::array<uint8_t, 256> mad{};
  const Field f{1024, 512, "InitialPath"};
  set_dr_path(mad, f, p);
  CHECK(mad[128] == 0);
  CHECK(mad[129] == 1);
  CHECK(mad[132] == 2);
  CHECK(get_dr_path(mad, f, 4) == p);
  CHECK(get_dr_path(mad, f, 2) == DrPath().extended(1).extended(7));
}

TEST_CASE("byte fields copy exactly their bytes", "[wire][field]") {
  std::array<uint8_t, 8> buf{};
  const std::array<uint8_t, 3> in{1, 2, 3};
  set_bytes(buf, Field{16, 24, "three"}, in);
  CHECK(buf == std::array<uint8_t, 8>{0, 0, 1, 2, 3, 0, 0, 0});
  std::array<uint8_t, 3> out{};
  get_bytes(buf, Field{16, 24, "three"}, out);
  CHECK(out == in);
}
