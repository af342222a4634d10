#include "mad/wire/notice.h"

#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "wire_random.h"

using namespace ibsm;
using namespace ibsm::wire;
using namespace ibsm::wire::testing;

TEST_CASE("a whole notice carries the issuer gid", "[wire][notice]") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    Notice n = random_struct<Notice>(rng);
    n.issuer_gid = Gid::from_parts(rng(), rng());
    std::vector<uint8_t> buf = random_bytes(rng, notice_size);
    encode(n, buf);
    auto back = decode_notice(buf);
    REQUIRE(back.ok());
    REQUIRE(*back == n);
  }
}

TEST_CASE("a notice in an smp ends before the issuer gid", "[wire][notice]") {
  Notice n;
  n.is_generic = true;
  n.type = notice_type::urgent;
  n.producer_type = producer_type::switch_;
  n.trap_number = trap_number::link_state_change;
  n.issuer_lid = Lid{12};
  n.notice_toggle = true;
  n.notice_count = 0x7FFF;
  n.issuer_gid = Gid::from_parts(1, 2);
  std::array<uint8_t, 64> smp_data{};
  encode(n, smp_data);
  CHECK(smp_data[0] == 0x81);  // IsGeneric + Type 1
  CHECK(smp_data[3] == 2);
  CHECK(smp_data[5] == 128);
  CHECK(smp_data[7] == 12);
  CHECK(smp_data[8] == 0xFF);
  CHECK(smp_data[9] == 0xFF);
  auto back = decode_notice(smp_data);
  REQUIRE(back.ok());
  CHECK(back->issuer_gid == Gid{});
  CHECK(back->trap_number == 128);
  CHECK(back->issuer_lid == Lid{12});
}

TEST_CASE("trap details name the reporting port", "[wire][notice][trap]") {
  std::array<uint8_t, 80> buf{};
  set_field(buf, notice_fields::trap128_lid, 0x0102);
  CHECK(buf[10] == 0x01);
  CHECK(buf[11] == 0x02);
  set_field(buf, notice_fields::trap144_capability_mask, 0xA0000002);
  CHECK(buf[16] == 0xA0);
  CHECK(buf[19] == 0x02);
  auto n = decode_notice(buf);
  REQUIRE(n.ok());
  CHECK(n->data_details[0] == 0x01);
  CHECK(n->data_details[6] == 0xA0);
}
