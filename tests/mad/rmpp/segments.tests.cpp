#include "mad/rmpp/segments.h"

#include <catch2/catch.hpp>

#include "tests/mad/rmpp/rmpp_test_util.h"

namespace ibsm::rmpp {
namespace {

using testing::rmpp_of;
using testing::sa_response_header;

uint32_t be32(const wire::MadBuffer& m, size_t at) {
  return (uint32_t{m[at]} << 24) | (uint32_t{m[at + 1]} << 16) | (uint32_t{m[at + 2]} << 8) | m[at + 3];
}

TEST_CASE("SA layout: 200 data bytes and 220 PayloadLength bytes per segment", "[rmpp][segments]") {
  const Layout sa;
  CHECK(sa.segment_data() == 200);
  CHECK(sa.segment_payload() == 220);  // Linux: seg_rmpp_size = 256 - IB_MGMT_RMPP_HDR (36)
  CHECK(sa.class_header() == 20);      // SM_Key, AttributeOffset, reserved, ComponentMask
}

TEST_CASE("segment counts and PayloadLength follow Linux's ib_mad", "[rmpp][segments]") {
  const Layout sa;
  struct Case {
    size_t bytes;
    uint32_t segments, total, last;
  };
  // total = segments * 220 - pad, last = 220 - pad, pad = unused bytes of the
  // last segment (a whole segment for no data): mad.c get_pad_size,
  // mad_rmpp.c send_next_seg.
  const Case cases[] = {
      {0, 1, 20, 20},           {1, 1, 21, 21},        {199, 1, 219, 219},      {200, 1, 220, 220},
      {201, 2, 241, 21},        {400, 2, 440, 220},    {10'000, 50, 11'000, 220}, {200'000, 1000, 220'000, 220},
      {10'001, 51, 11'021, 21},
  };
  for (const Case& c : cases) {
    CAPTURE(c.bytes);
    CHECK(segment_count(c.bytes, sa) == c.segments);
    CHECK(total_payload_length(c.bytes, sa) == c.total);
    CHECK(last_payload_length(c.bytes, sa) == c.last);
    // Linux's receiver sizes the reassembled MAD as hdr + segments * 200 -
    // (220 - last PayloadLength) (mad_rmpp.c get_mad_len): that must give
    // back exactly the SA header and our data.
    const int64_t kernel_len = 56 + int64_t{c.segments} * 200 - (220 - int64_t{last_payload_length(c.bytes, sa)});
    CHECK(kernel_len == static_cast<int64_t>(56 + c.bytes));
  }
}

TEST_CASE("DATA segments: flags, SegmentNumber, PayloadLength, RRespTime, headers, data", "[rmpp][segments]") {
  const Layout sa;
  const auto header = sa_response_header(0x1234'5678'9abc'def0);
  testing::Prng prng(7);
  const auto data = prng.bytes(450);  // 3 segments: 200, 200, 50
  REQUIRE(segment_count(data.size(), sa) == 3);

  for (uint32_t seg = 1; seg <= 3; ++seg) {
    CAPTURE(seg);
    const auto mad = make_data_segment(header, data, seg, sa);
    // Common and SA headers repeated in every segment (Linux sends the
    // header buffer with each segment).
    CHECK(std::equal(mad.begin(), mad.begin() + 24, header.begin()));
    CHECK(std::equal(mad.begin() + 36, mad.begin() + 56, header.begin() + 36));
    // The RMPP header byte by byte (IBA 13.6.2.1, figure 174).
    CHECK(mad[24] == 1);  // RMPPVersion
    CHECK(mad[25] == wire::rmpp_type::data);
    const uint8_t flags = static_cast<uint8_t>(wire::rmpp_flag::active | (seg == 1 ? wire::rmpp_flag::first : 0) |
                                               (seg == 3 ? wire::rmpp_flag::last : 0));
    CHECK(mad[26] == ((no_resp_time << 3) | flags));  // RRespTime in the top 5 bits, flags in the low 3
    CHECK(mad[27] == 0);                               // RMPPStatus
    CHECK(be32(mad, 28) == seg);
    const uint32_t expected_len = seg == 1 ? 3 * 220 - 150 : seg == 3 ? 220 - 150 : 0;
    CHECK(be32(mad, 32) == expected_len);
    const size_t begin = (seg - 1) * 200;
    const size_t n = std::min<size_t>(200, data.size() - begin);
    CHECK(std::equal(mad.begin() + 56, mad.begin() + 56 + static_cast<std::ptrdiff_t>(n), data.begin() + static_cast<std::ptrdiff_t>(begin)));
    CHECK(std::all_of(mad.begin() + 56 + static_cast<std::ptrdiff_t>(n), mad.end(), [](uint8_t b) { return b == 0; }));
    // And the wire codec reads the same.
    const auto r = rmpp_of(mad);
    CHECK(r.active());
    CHECK(r.first() == (seg == 1));
    CHECK(r.last() == (seg == 3));
    CHECK(r.resp_time == no_resp_time);
  }
}

TEST_CASE("an empty answer is one DATA segment, First and Last, PayloadLength 20", "[rmpp][segments]") {
  const auto mad = make_data_segment(sa_response_header(1), {}, 1, Layout{});
  const auto r = rmpp_of(mad);
  CHECK(r.type == wire::rmpp_type::data);
  CHECK(r.first());
  CHECK(r.last());
  CHECK(r.segment_number() == 1);
  CHECK(r.payload_length() == 20);
}

TEST_CASE("control MADs: ACK flips the method, carries segment and window", "[rmpp][segments]") {
  const Layout sa;
  const auto data_mad = make_data_segment(sa_response_header(99), std::vector<uint8_t>(10, 0xAB), 1, sa);
  const auto ack = make_control(data_mad, {.type = wire::rmpp_type::ack, .segment = 7, .new_window_last = 71}, true, sa);
  CHECK(ack[3] == wire::method::get_table);  // GetTableResp 0x92 -> 0x12, as Linux's format_ack
  CHECK(std::equal(ack.begin() + 8, ack.begin() + 16, data_mad.begin() + 8));  // TID
  CHECK(std::equal(ack.begin() + 36, ack.begin() + 56, data_mad.begin() + 36));  // SA header copied
  CHECK(std::all_of(ack.begin() + 56, ack.end(), [](uint8_t b) { return b == 0; }));
  const auto r = rmpp_of(ack);
  CHECK(r.type == wire::rmpp_type::ack);
  CHECK(r.flags == wire::rmpp_flag::active);
  CHECK(r.segment_number() == 7);
  CHECK(r.new_window_last() == 71);
  CHECK(r.status == 0);

  const auto abort = make_control(data_mad, {.type = wire::rmpp_type::abort, .status = wire::rmpp_status::too_many_retries},
                                  false, sa);
  CHECK(abort[3] == wire::method::get_table_resp);
  CHECK(rmpp_of(abort).status == 126);
  CHECK(rmpp_of(abort).segment_number() == 0);
}

TEST_CASE("header_problem names unsupported versions and bad types", "[rmpp][segments]") {
  wire::RmppHeader h{.version = 1, .type = wire::rmpp_type::ack, .flags = wire::rmpp_flag::active};
  CHECK_FALSE(header_problem(h));
  h.version = 2;
  CHECK(header_problem(h) == wire::rmpp_status::unsupported_version);
  h.version = 1;
  h.type = 0;
  CHECK(header_problem(h) == wire::rmpp_status::bad_rmpp_type);
  h.type = 5;
  CHECK(header_problem(h) == wire::rmpp_status::bad_rmpp_type);
  CHECK(is_abort_status(118));
  CHECK(is_abort_status(127));
  CHECK_FALSE(is_abort_status(1));
  CHECK(std::string(rmpp_status_name(122)) == "new_window_last_too_small");
}

}  // namespace
}  // namespace ibsm::rmpp
