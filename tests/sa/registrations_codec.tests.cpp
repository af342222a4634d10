// The SA registrations file: round trip, and every way a file can be bad
// (a damaged line named by its number, a file cut short, another version,
// a checksum that does not match), and what a restore drops.
#include <catch2/catch.hpp>

#include <string>

#include "mad/wire/constants.h"
#include "mad/wire/notice.h"
#include "sa/registrations_codec.h"

namespace ibsm::test {
namespace {

constexpr Micros kSecond = 1'000'000;

sa::SaRegistrations sample() {
  sa::SaRegistrations r;
  wire::ServiceRecord finite;
  finite.service_id = 0x5a00;
  finite.service_gid = wire::Gid::from_parts(0xfe80000000000000ULL, 0x0002c90300000011ULL);
  finite.service_p_key = 0xFFFF;
  finite.service_lease = 60;
  finite.service_key[3] = 0x42;
  finite.set_name("persisted");
  wire::ServiceRecord forever = finite;
  forever.service_id = 0x5a01;
  forever.service_lease = wire::service_lease_infinite;
  r.services = {finite, forever};
  r.service_lease_left = {20 * kSecond, std::nullopt};

  wire::InformInfoRecord sub;
  sub.subscriber_gid = wire::Gid::from_parts(0xfe80000000000000ULL, 0x0002c90300000022ULL);
  sub.enum_ = 1;
  sub.inform_info.gid = {};
  sub.inform_info.lid_range_begin = Lid{wire::inform_all_lids};
  sub.inform_info.is_generic = 1;
  sub.inform_info.subscribe = 1;
  sub.inform_info.type = wire::inform_all_types;
  sub.inform_info.trap_number = wire::trap_number::gid_out_of_service;
  sub.inform_info.qpn = 0x1234;
  sub.inform_info.resp_time_value = 17;
  sub.inform_info.producer_type = wire::inform_all_producer_types;
  r.subscriptions = {sub};

  wire::McMemberRecord m;
  m.mgid = wire::Gid::from_parts(0xff12601bffff0000ULL, 0x00000000ffffffffULL);
  m.port_gid = sub.subscriber_gid;
  m.q_key = 0x0B1B;
  m.mlid = Lid{0xC001};
  m.mtu_selector = 2;
  m.mtu = 4;
  m.p_key = 0xFFFF;
  m.rate_selector = 2;
  m.rate = 3;
  m.packet_life_time_selector = 2;
  m.packet_life_time = 18;
  m.scope = 2;
  m.join_state = wire::mc_join_state::full_member;
  r.multicast = {m};
  return r;
}

// `text` with its line `n` (from 1) replaced by `with`.
std::string replace_line(const std::string& text, int n, const std::string& with) {
  size_t start = 0;
  for (int i = 1; i < n; ++i) start = text.find('\n', start) + 1;
  const size_t end = text.find('\n', start);
  return text.substr(0, start) + with + text.substr(end);
}

TEST_CASE("sa registrations survive an encode and decode unchanged", "[sa][persist]") {
  const sa::SaRegistrations regs = sample();
  const std::string text = sa::encode_registrations(regs, 1'764'634'474'123);
  CHECK(text.rfind("ibsm-sa-registrations 1\nsaved-at 1764634474123\n", 0) == 0);
  auto back = sa::decode_registrations(text, "cache/ibsm-sa-registrations");
  REQUIRE(back.ok());
  CHECK(back->saved_at_ms == 1'764'634'474'123);
  CHECK(back->registrations == regs);

  const std::string empty = sa::encode_registrations({}, 5);
  auto none = sa::decode_registrations(empty, "f");
  REQUIRE(none.ok());
  CHECK(none->registrations == sa::SaRegistrations{});
}

TEST_CASE("a damaged sa registrations file is refused with its file and line", "[sa][persist]") {
  const std::string text = sa::encode_registrations(sample(), 1000);
  auto error_of = [](const std::string& t) {
    auto r = sa::decode_registrations(t, "cache/ibsm-sa-registrations");
    REQUIRE_FALSE(r.ok());
    return r.status().message();
  };
  SECTION("a record that is not hex") {
    std::string bad = text;
    bad[text.find("subscription ") + 13] = 'x';
    CHECK(error_of(bad).rfind("cache/ibsm-sa-registrations:5: subscription record: ", 0) == 0);
  }
  SECTION("a line nobody knows") {
    CHECK(error_of(replace_line(text, 4, "services 12")) ==
          "cache/ibsm-sa-registrations:4: unknown line 'services 12'");
  }
  SECTION("a record of the wrong length") {
    CHECK(error_of(replace_line(text, 6, "mcmember 00")).find(
              "cache/ibsm-sa-registrations:6: mcmember record of 2 hex digits, 104 expected") == 0);
  }
  SECTION("a lease left that is no number") {
    const size_t at = text.find(" 20000\n");
    REQUIRE(at != std::string::npos);
    std::string bad = text.substr(0, at) + " soon" + text.substr(at + 6);
    CHECK(error_of(bad) == "cache/ibsm-sa-registrations:3: service lease left 'soon' is not a count of ms");
  }
  SECTION("the checksum of other contents: one byte changed") {
    std::string bad = text;
    bad[text.find("service ") + 8 + 14] = bad[text.find("service ") + 8 + 14] == '5' ? '6' : '5';
    CHECK(error_of(bad).rfind("cache/ibsm-sa-registrations:7: checksum ", 0) == 0);
  }
  SECTION("cut short: at a line's end, in a line, or empty") {
    const size_t last = text.rfind("checksum");
    CHECK(error_of(text.substr(0, last)) == "cache/ibsm-sa-registrations:6: no checksum line: the file was cut short");
    CHECK(error_of(text.substr(0, last - 10)) ==
          "cache/ibsm-sa-registrations:6: line not ended: the file was cut short");
    CHECK(error_of("") == "cache/ibsm-sa-registrations:1: empty file");
  }
  SECTION("another version, or not this kind of file") {
    CHECK(error_of(replace_line(text, 1, "ibsm-sa-registrations 2")) ==
          "cache/ibsm-sa-registrations:1: format version 2; this ibsm reads version 1");
    CHECK(error_of("0x0002c90300000011 1\n").rfind("cache/ibsm-sa-registrations:1: not an ibsm SA registrations file",
                                                   0) == 0);
  }
  SECTION("text after the checksum") {
    CHECK(error_of(text + "service 00\n") == "cache/ibsm-sa-registrations:8: text after the checksum line");
  }
}

TEST_CASE("a restore drops the services whose lease ran out while the sm was down", "[sa][persist]") {
  const sa::SaRegistrations regs = sample();  // 20 s left of a 60 s lease, and an infinite one
  auto saved = sa::decode_registrations(sa::encode_registrations(regs, 100'000), "f");
  REQUIRE(saved.ok());

  const sa::RestoredRegistrations soon = sa::restore_registrations(*saved, 100'000 + 5'000);
  REQUIRE(soon.registrations.services.size() == 2);
  CHECK(soon.expired_services == 0);
  CHECK(soon.registrations.service_lease_left[0] == 15 * kSecond);
  CHECK(soon.registrations.service_lease_left[1] == std::nullopt);
  CHECK(soon.registrations.subscriptions == regs.subscriptions);
  CHECK(soon.registrations.multicast == regs.multicast);

  const sa::RestoredRegistrations late = sa::restore_registrations(*saved, 100'000 + 20'000);
  REQUIRE(late.registrations.services.size() == 1);
  CHECK(late.registrations.services[0].service_id == 0x5a01);
  CHECK(late.expired_services == 1);

  // A wall clock set back counts as no time passed.
  const sa::RestoredRegistrations back = sa::restore_registrations(*saved, 50'000);
  CHECK(back.registrations.service_lease_left[0] == 20 * kSecond);
}

}  // namespace
}  // namespace ibsm::test
