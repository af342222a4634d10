#include "mad/wire/response.h"

#include <catch2/catch.hpp>

#include "mad/wire/sa_header.h"
#include "mad/wire/smp.h"

using namespace ibsm;
using namespace ibsm::wire;

TEST_CASE("a dr smp is answered with getresp and the d bit", "[wire][response]") {
  const DrPath path = DrPath{}.extended(2).extended(5);
  MadBuffer req = build_dr_smp(method::get, smp_attr::switch_info, 0, 0xABCDEF, path);
  req[6] = 3;  // arrived: hop pointer = hop count + 1
  const MadBuffer resp = make_get_response(req, mad_status::invalid_field);
  auto v = parse_smp(resp);
  REQUIRE(v.ok());
  CHECK(v->method() == method::get_resp);
  CHECK(v->is_response());
  CHECK(v->direction());
  CHECK(v->status() == mad_status::invalid_field);
  CHECK(v->tid() == 0xABCDEF);
  CHECK(v->attr_id() == smp_attr::switch_info);
  CHECK(v->hop_pointer() == 3);
  CHECK(v->initial_path() == path);
  CHECK(resp[4] == 0x80);
  CHECK(resp[5] == 0x1C);
}

TEST_CASE("a set on a lid-routed smp is answered with the 16-bit status", "[wire][response]") {
  const MadBuffer req = build_lid_smp(method::set, smp_attr::port_info, 1, 42);
  const MadBuffer resp = make_response(req, mad_status::method_attr_unsupported | 0x0100);
  auto v = parse_smp(resp);
  REQUIRE(v.ok());
  CHECK(v->method() == method::get_resp);
  CHECK(v->status() == 0x010C);
  CHECK_FALSE(v->direction());
}

TEST_CASE("each request method gets its own answer", "[wire][response]") {
  CHECK(response_method(method::get) == method::get_resp);
  CHECK(response_method(method::set) == method::get_resp);
  CHECK(response_method(method::trap) == method::trap_repress);
  CHECK(response_method(method::report) == method::report_resp);
  CHECK(response_method(method::get_table) == method::get_table_resp);
  CHECK(response_method(method::get_trace_table) == method::get_trace_table_resp);
  CHECK(response_method(method::get_multi) == method::get_multi_resp);
  CHECK(response_method(method::delete_) == method::delete_resp);
  CHECK_FALSE(response_method(method::send).has_value());
  CHECK_FALSE(response_method(method::get_resp).has_value());
  CHECK_FALSE(response_method(method::trap_repress).has_value());

  SaMad q;
  q.header.method = method::get_table;
  q.header.tid = 5;
  MadBuffer req{};
  encode(q, req);
  auto resp = parse_sa_mad(make_response(req, sa_status::no_records));
  REQUIRE(resp.ok());
  CHECK(resp->header.method == method::get_table_resp);
  CHECK(resp->header.status == sa_status::no_records);
  CHECK(resp->header.tid == 5);
}

TEST_CASE("a request answered in place reads as make_response's copy", "[wire][response]") {
  const DrPath path = DrPath{}.extended(1).extended(7);
  for (uint8_t m : {method::get, method::set}) {
    for (uint16_t status : {mad_status::ok, mad_status::invalid_field}) {
      MadBuffer dr = build_dr_smp(m, smp_attr::linear_forwarding_table, 3, 0x55, path);
      dr[6] = 3;
      const MadBuffer dr_copy = make_response(dr, status);
      make_response_in_place(dr, status);
      CHECK(dr == dr_copy);

      MadBuffer lid = build_lid_smp(m, smp_attr::port_info, 1, 0x66);
      const MadBuffer lid_copy = make_response(lid, status);
      make_response_in_place(lid, status);
      CHECK(lid == lid_copy);
    }
  }
}
