// Encoding and decoding plain structs through their field tables.
//
// Every wire struct X comes with one list of its fields, written once:
//   template <typename Self, typename Fn> requires same_struct<Self, X>
//   constexpr void visit_fields(Self& x, Fn&& fn);   // fn(Field, member) per field
// From that list this header derives the encoder, the decoder and the constexpr
// field table, so the three can never disagree. Members may be integers,
// bools, enums, the strong types of mad/base/types.h (Lid, Guid, PortNum), Gid,
// or byte arrays whose size equals the field's width.
#pragma once

#include <algorithm>
#include <cassert>
#include <array>
#include <concepts>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "mad/base/status.h"
#include "mad/wire/field.h"

namespace ibsm::wire {

template <typename Self, typename X>
concept same_struct = std::same_as<std::remove_const_t<Self>, X>;

namespace detail {

template <typename M>
concept strong_value = requires(M m) {
  { m.value } -> std::convertible_to<uint64_t>;
} && std::is_class_v<M>;

template <typename M>
struct is_byte_array : std::false_type {};
template <size_t N>
struct is_byte_array<std::array<uint8_t, N>> : std::true_type {};

template <typename M>
void put_member(std::span<uint8_t> buf, const Field& f, const M& m) {
  if constexpr (std::is_same_v<M, Gid>) {
    set_gid(buf, f, m);
  } else if constexpr (is_byte_array<M>::value) {
    set_bytes(buf, f, m);
  } else if constexpr (std::is_enum_v<M>) {
    set_field(buf, f, static_cast<uint64_t>(static_cast<std::underlying_type_t<M>>(m)));
  } else if constexpr (strong_value<M>) {
    set_field(buf, f, static_cast<uint64_t>(m.value));
  } else {
    static_assert(std::is_integral_v<M>, "unsupported wire member type");
    set_field(buf, f, static_cast<uint64_t>(m));
  }
}

template <typename M>
void take_member(std::span<const uint8_t> buf, const Field& f, M& m) {
  if constexpr (std::is_same_v<M, Gid>) {
    m = get_gid(buf, f);
  } else if constexpr (is_byte_array<M>::value) {
    get_bytes(buf, f, m);
  } else if constexpr (std::is_same_v<M, bool>) {
    m = get_field(buf, f) != 0;
  } else if constexpr (std::is_enum_v<M>) {
    m = static_cast<M>(static_cast<std::underlying_type_t<M>>(get_field(buf, f)));
  } else if constexpr (strong_value<M>) {
    m.value = static_cast<decltype(m.value)>(get_field(buf, f));
  } else {
    static_assert(std::is_integral_v<M>, "unsupported wire member type");
    m = static_cast<M>(get_field(buf, f));
  }
}

}  // namespace detail

// Visits the fields of an attribute embedded `byte_offset` bytes into an outer
// struct (an SMP attribute inside an SA record, IBA 15.2.5): the attribute's
// own field list, each field shifted, so the outer table reuses it instead of
// restating its offsets. Call it from the outer struct's visit_fields.
template <typename Inner, typename Fn>
constexpr void visit_embedded(Inner& inner, size_t byte_offset, Fn&& fn) {
  visit_fields(inner, [&](const Field& f, auto& m) { fn(f.shifted(byte_offset), m); });
}

// Writes every field of `x` into `buf` (offsets relative to buf[0]); bits that
// belong to no field are left as they were.
// Flattened, as decode_fields: every access inlined, so each field's
// constant offset and width fold into its loads and shifts. Left to the
// inliner, a struct as large as PortInfo (some 60 fields) kept its field
// accesses out of line, at about 1,000 instructions an encode, and the
// bring-up's millions of PortInfo answers and Sets paid for it.
template <typename X>
[[gnu::flatten]] void encode_fields(const X& x, std::span<uint8_t> buf) {
  visit_fields(x, [&](const Field& f, const auto& m) { detail::put_member(buf, f, m); });
}

// Reads every field of `x` from `buf`; the caller has checked the size.
template <typename X>
[[gnu::flatten]] void decode_fields(std::span<const uint8_t> buf, X& x) {
  visit_fields(x, [&](const Field& f, auto& m) { detail::take_member(buf, f, m); });
}

template <typename X>
constexpr size_t field_count() {
  X x{};
  size_t n = 0;
  visit_fields(x, [&](const Field&, const auto&) { ++n; });
  return n;
}

// The constexpr field table of X, in wire order.
template <typename X>
constexpr std::array<Field, field_count<X>()> field_table() {
  std::array<Field, field_count<X>()> table{};
  X x{};
  size_t i = 0;
  visit_fields(x, [&](const Field& f, const auto&) { table[i++] = f; });
  return table;
}

// The common shape of an attribute decoder: reject a short buffer with a
// reason, then read the fields.
template <typename X>
Result<X> decode_struct(std::span<const uint8_t> buf, size_t wire_size, std::string_view what) {
  if (buf.size() < wire_size)
    return invalid_argument_error(fmt::format("short {}: {} bytes, need {}", what, buf.size(), wire_size));
  X x{};
  decode_fields(buf, x);
  return x;
}

// The common shape of an attribute encoder: clear the attribute's bytes (so
// reserved bits go out as zero, IBA 13.4.3) and write the fields.
template <typename X>
void encode_struct(const X& x, std::span<uint8_t> buf, size_t wire_size) {
  assert(buf.size() >= wire_size);
  std::fill_n(buf.begin(), wire_size, uint8_t{0});
  encode_fields(x, buf);
}

}  // namespace ibsm::wire
