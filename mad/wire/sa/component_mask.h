// SA ComponentMask (IBA 15.2.1.1, 15.4): bit i of a query's ComponentMask
// selects the i-th component of the record, in the order the record's IBA
// table lists them, reserved rows included. A component is a bit range of the
// encoded record; an embedded attribute (NodeInfo in a NodeRecord, ...)
// contributes one component per field.
//
// Each record header derives its component table from its field table:
// every field is a component, every gap between fields is one reserved
// component, and `rows` lists the rows where the spec draws the record
// differently from our fields (a table kept as one component, a field the
// spec splits in two, adjacent reserved rows, bits IBA 1.3 still reserves).
// Matching then compares encoded bytes, component by component.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "mad/wire/field_codec.h"

namespace ibsm::wire {

struct Component {
  uint8_t bit = 0;  // the ComponentMask bit
  Field field;      // its bits in the encoded record
  constexpr bool operator==(const Component&) const = default;
};

inline constexpr size_t max_components = 64;  // a ComponentMask has 64 bits

namespace detail {

struct ComponentList {
  std::array<Component, 2 * max_components> items{};
  size_t size = 0;
  bool ok = true;  // false when the rows or fields do not make a valid table
};

constexpr bool overlaps(const Field& a, const Field& b) {
  return a.bit_offset < b.end_bit() && b.bit_offset < a.end_bit();
}

constexpr ComponentList build_components(std::span<const Field> fields, size_t record_bits,
                                         std::span<const Field> rows) {
  // The spec's rows first, then every field that no row covers.
  std::array<Field, 2 * max_components + 256> parts{};
  size_t n = 0;
  ComponentList out;
  for (const Field& r : rows) parts[n++] = r;
  for (const Field& f : fields) {
    if (std::none_of(rows.begin(), rows.end(), [&](const Field& r) { return overlaps(r, f); })) {
      if (n == parts.size()) return ComponentList{.ok = false};
      parts[n++] = f;
    } else if (std::none_of(rows.begin(), rows.end(), [&](const Field& r) {
                 return f.bit_offset >= r.bit_offset && f.end_bit() <= r.end_bit();
               }) &&
               std::none_of(rows.begin(), rows.end(), [&](const Field& r) {
                 return r.bit_offset >= f.bit_offset && r.end_bit() <= f.end_bit();
               })) {
      return ComponentList{.ok = false};  // a row cutting a field in an odd place
    }
  }
  std::sort(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(n),
            [](const Field& a, const Field& b) { return a.bit_offset < b.bit_offset; });
  size_t next = 0;
  auto push = [&](const Field& f) {
    if (out.size == out.items.size()) {
      out.ok = false;
      return;
    }
    out.items[out.size] = Component{static_cast<uint8_t>(out.size), f};
    ++out.size;
  };
  for (size_t i = 0; i < n; ++i) {
    const Field& f = parts[i];
    if (f.bit_offset < next) out.ok = false;  // overlapping rows
    if (f.bit_offset > next) push(Field{static_cast<uint16_t>(next), static_cast<uint16_t>(f.bit_offset - next), "Reserved"});
    push(f);
    next = f.end_bit();
  }
  if (next < record_bits) push(Field{static_cast<uint16_t>(next), static_cast<uint16_t>(record_bits - next), "Reserved"});
  if (next > record_bits || out.size > max_components) out.ok = false;
  return out;
}

}  // namespace detail

inline constexpr std::array<Field, 0> no_component_rows{};

// The component table of record X (RecordBytes long), in ComponentMask bit
// order; fails to compile when the rows do not fit the fields.
template <typename X, size_t RecordBytes, const auto& Rows = no_component_rows>
constexpr auto component_table() {
  constexpr auto fields = field_table<X>();
  constexpr detail::ComponentList list =
      detail::build_components(fields, RecordBytes * 8, std::span<const Field>(Rows.data(), Rows.size()));
  static_assert(list.ok, "component rows do not fit the record's fields");
  std::array<Component, list.size> out{};
  for (size_t i = 0; i < list.size; ++i) out[i] = list.items[i];
  return out;
}

// The ComponentMask bit of the component at exactly `f`'s bits, 0 when the
// table has no such component.
constexpr uint64_t component_bit(std::span<const Component> components, const Field& f) {
  for (const Component& c : components)
    if (c.field.bit_offset == f.bit_offset && c.field.bit_width == f.bit_width) return uint64_t{1} << c.bit;
  return 0;
}

// Every ComponentMask bit the record defines.
constexpr uint64_t component_mask_of(std::span<const Component> components) {
  uint64_t mask = 0;
  for (const Component& c : components) mask |= uint64_t{1} << c.bit;
  return mask;
}

// True when the encoded records `a` and `b` agree on every component whose
// bit is set in `mask` (IBA 15.4: a query matches the records that agree with
// it on the selected components). Bits of `mask` beyond the table are not
// components and are ignored here; the SA rejects them before matching.
// Both records must hold the bytes of every selected component.
bool masked_fields_equal(std::span<const uint8_t> a, std::span<const uint8_t> b, uint64_t mask,
                         std::span<const Component> components);

// The first component of `components` whose bit is set in `mask` and whose
// bits differ between `a` and `b`, or nullptr: for logs and tests.
const Component* first_masked_difference(std::span<const uint8_t> a, std::span<const uint8_t> b, uint64_t mask,
                                         std::span<const Component> components);

}  // namespace ibsm::wire
