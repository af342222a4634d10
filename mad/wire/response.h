// Responses built from their requests, the way a responder answers (IBA
// 13.4.6.3): the whole request is echoed (TID, class, attribute, modifier and,
// for an SMP, M_Key and the DR fields) with the response method and a status.
// The caller then encodes the answer's attribute into the data.
#pragma once

#include <cstdint>
#include <span>

#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"

namespace ibsm::wire {

// The answer to `request` (256 bytes, a method that has an answer, see
// response_method). A directed-route SMP also gets the D bit (IBA 14.2.2: the
// responder turns it around); its 15-bit status takes `status`, whose top bit
// must be clear. The hop pointer stays: the SMI walks it back.
MadBuffer make_response(std::span<const uint8_t> request, uint16_t status = mad_status::ok);

// The same, turning `request` itself (256 bytes) into its answer: a
// responder that owns the request's buffer saves a copy of the MAD.
void make_response_in_place(std::span<uint8_t> request, uint16_t status = mad_status::ok);

// The GetResp to a Get or Set.
MadBuffer make_get_response(std::span<const uint8_t> request, uint16_t status = mad_status::ok);

}  // namespace ibsm::wire
