#include "mad/wire/response.h"

#include <algorithm>
#include <cassert>

#include "mad/wire/smp.h"

namespace ibsm::wire {

namespace {

void respond_in_place(std::span<uint8_t> mad, uint8_t answer_method, uint16_t status) {
  assert(mad.size() == mad_size);
  set_field(mad, mad_fields::method, answer_method);
  if (get_field(mad, mad_fields::mgmt_class) == mgmt_class::subn_directed_route) {
    assert((status & mad_status::dr_direction_bit) == 0);
    set_field(mad, smp_fields::direction, 1);
    set_field(mad, smp_fields::dr_status, status);
  } else {
    set_field(mad, mad_fields::status, status);
  }
}

MadBuffer respond(std::span<const uint8_t> request, uint8_t answer_method, uint16_t status) {
  assert(request.size() == mad_size);
  MadBuffer mad{};
  std::copy(request.begin(), request.end(), mad.begin());
  respond_in_place(mad, answer_method, status);
  return mad;
}

uint8_t answer_method_of(std::span<const uint8_t> request) {
  const auto answer = response_method(static_cast<uint8_t>(get_field(request, mad_fields::method)));
  assert(answer.has_value());
  return answer.value_or(method::get_resp);
}

}  // namespace

MadBuffer make_response(std::span<const uint8_t> request, uint16_t status) {
  assert(request.size() == mad_size);
  return respond(request, answer_method_of(request), status);
}

void make_response_in_place(std::span<uint8_t> request, uint16_t status) {
  assert(request.size() == mad_size);
  respond_in_place(request, answer_method_of(request), status);
}

MadBuffer make_get_response(std::span<const uint8_t> request, uint16_t status) {
  assert(request.size() == mad_size);
  [[maybe_unused]] const auto m = get_field(request, mad_fields::method);
  assert(m == method::get || m == method::set);
  return respond(request, method::get_resp, status);
}

}  // namespace ibsm::wire
