// The SA client's reading of answers that do not come by RMPP.
#include "sa/client.h"

#include <catch2/catch.hpp>

#include "mad/wire/constants.h"
#include "mad/wire/rmpp.h"
#include "mad/wire/sa_header.h"

namespace ibsm {
namespace {

// A GetTableResp in one MAD, as OpenSM's SA sends it through umad2sim (it
// leaves RMPP to the kernel: Active set, no RMPP type) with `records`
// records of 8 bytes each, every byte k+1 of record k.
MadPacket one_mad_table(uint64_t tid, int records, uint8_t rmpp_flags) {
  wire::SaMad m;
  m.header.method = wire::method::get_table_resp;
  m.header.attr_id = wire::sa_attr::inform_info_record;
  m.header.tid = tid;
  m.rmpp.flags = rmpp_flags;
  m.sa.attr_offset = records == 0 ? 0 : 1;  // 8-byte records; OpenSM says 0 for an empty table
  for (int k = 0; k < records; ++k)
    for (int b = 0; b < 8; ++b) m.data[static_cast<size_t>(k * 8 + b)] = static_cast<uint8_t>(k + 1);
  MadPacket p;
  wire::encode(m, p.data);
  return p;
}

TEST_CASE("a table answered in one MAD without RMPP holds its records, not its padding", "[sa][client]") {
  const uint8_t flags = GENERATE(uint8_t{0}, wire::rmpp_flag::active);
  sa::SaRequest r;
  r.method = wire::method::get_table;
  r.attribute = wire::sa_attr::inform_info_record;
  r.tid = 0x55;
  std::vector<MadPacket> sent;
  sa::SaClientCall call([&sent](const MadPacket& p) { sent.push_back(p); }, sa::sa_address(Lid{1}), r);
  call.start(0);
  REQUIRE(sent.size() == 1);
  CHECK(call.handle(one_mad_table(0x55, 3, flags), 10));
  REQUIRE(call.done());
  REQUIRE(call.result().ok());
  const sa::SaAnswer& a = *call.result();
  CHECK_FALSE(a.by_rmpp);
  REQUIRE(a.record_count() == 3);
  CHECK(a.record(2)[0] == 3);
}

TEST_CASE("an empty table in one MAD has no records", "[sa][client]") {
  sa::SaRequest r;
  r.method = wire::method::get_table;
  r.attribute = wire::sa_attr::inform_info_record;
  r.tid = 0x56;
  sa::SaClientCall call([](const MadPacket&) {}, sa::sa_address(Lid{1}), r);
  call.start(0);
  CHECK(call.handle(one_mad_table(0x56, 0, wire::rmpp_flag::active), 10));
  REQUIRE(call.done());
  REQUIRE(call.result().ok());
  CHECK(call.result()->record_count() == 0);
}

TEST_CASE("a request the layer below hands back timed out is no answer: retried, then a timeout", "[sa][client]") {
  // ibsim returns a send to an SM LID nobody answers at at once, marked
  // timed out: `ibsm query` printed that copy of its own request as a
  // zeroed PathRecord and exited 0.
  sa::SaRequest r;
  r.method = wire::method::get;
  r.attribute = wire::sa_attr::path_record;
  r.tid = 0x57;
  std::vector<MadPacket> sent;
  sa::SaClientOptions options;
  options.retries = 2;
  sa::SaClientCall call([&sent](const MadPacket& p) { sent.push_back(p); }, sa::sa_address(Lid{7}), r, options);
  call.start(0);
  for (Micros now = 1; !call.done() && now < 100; ++now) {
    REQUIRE(!sent.empty());
    MadPacket back = sent.back();
    back.send_timed_out = true;
    CHECK(call.handle(back, now));
    CHECK_FALSE(call.done());
    call.poll(now);
  }
  REQUIRE(call.done());
  CHECK(sent.size() == 3);  // the first attempt and two retries
  REQUIRE_FALSE(call.result().ok());
  CHECK(call.result().status().message().find("no answer from the SA at lid 7") != std::string::npos);
}

TEST_CASE("a request with the call's TID is not taken for its answer", "[sa][client]") {
  sa::SaRequest r;
  r.method = wire::method::get;
  r.attribute = wire::sa_attr::path_record;
  r.tid = 0x58;
  std::vector<MadPacket> sent;
  sa::SaClientCall call([&sent](const MadPacket& p) { sent.push_back(p); }, sa::sa_address(Lid{7}), r);
  call.start(0);
  REQUIRE(sent.size() == 1);
  CHECK_FALSE(call.handle(sent.front(), 1));
  CHECK_FALSE(call.done());
}

}  // namespace
}  // namespace ibsm
