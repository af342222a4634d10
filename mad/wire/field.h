// Bit fields of MAD wire formats, described by a table entry (offset, width,
// name) instead of packed structs: the IBA spec draws every MAD as rows of
// 32 bits with big-endian, MSB-first bit numbering, and so does Field.
// bit_offset 0 is the most significant bit of byte 0; a field of width w at
// offset o covers bits o .. o+w-1 in that order, its first bit the value's MSB.
#pragma once

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "mad/base/types.h"

namespace ibsm::wire {

struct Field {
  uint16_t bit_offset = 0;
  uint16_t bit_width = 0;
  std::string_view name;

  constexpr size_t end_bit() const { return size_t{bit_offset} + bit_width; }
  constexpr bool byte_aligned() const { return bit_offset % 8 == 0 && bit_width % 8 == 0; }
  constexpr size_t byte_offset() const { return bit_offset / 8; }
  constexpr size_t byte_size() const { return bit_width / 8; }
  // The same field seen from `bytes` further out, e.g. an attribute field
  // placed at the SMP data offset.
  constexpr Field shifted(size_t bytes) const {
    return {static_cast<uint16_t>(bit_offset + bytes * 8), bit_width, name};
  }
  constexpr bool operator==(const Field& o) const {
    return bit_offset == o.bit_offset && bit_width == o.bit_width && name == o.name;
  }
};

constexpr bool field_fits(size_t buffer_bytes, const Field& f) {
  return f.bit_width > 0 && f.end_bit() <= buffer_bytes * 8;
}

// Scalar fields, 1..64 bits wide. Both assert that the field fits the span;
// set_field keeps the bits around the field and drops value bits above its width.
// Inline: the field tables' visitors pass constant fields, so each access
// folds to a few loads and shifts (out of line they led the bring-up's
// instruction profile with 27%).
uint64_t get_field(std::span<const uint8_t> buf, const Field& f);
void set_field(std::span<uint8_t> buf, const Field& f, uint64_t value);

// The general walk, a byte at a time MSB first, for fields that span more
// than 8 bytes off a byte boundary (field.cpp).
uint64_t get_field_bits(std::span<const uint8_t> buf, const Field& f);
void set_field_bits(std::span<uint8_t> buf, const Field& f, uint64_t value);

inline uint64_t get_field(std::span<const uint8_t> buf, const Field& f) {
  assert(f.bit_width >= 1 && f.bit_width <= 64);
  assert(field_fits(buf.size(), f));
  // The bytes the field touches, as one big-endian number, then the field's
  // bits shifted down and masked.
  const size_t first = f.bit_offset / 8;
  const size_t bytes = (f.bit_offset % 8 + f.bit_width + 7) / 8;
  if (bytes > 8) return get_field_bits(buf, f);
  const uint8_t* at = buf.data() + first;
  uint64_t window = 0;
  for (size_t i = 0; i < bytes; ++i) window = (window << 8) | at[i];
  const unsigned low = static_cast<unsigned>(bytes * 8 - f.bit_offset % 8 - f.bit_width);
  window >>= low;
  return f.bit_width == 64 ? window : window & ((uint64_t{1} << f.bit_width) - 1);
}

inline void set_field(std::span<uint8_t> buf, const Field& f, uint64_t value) {
  assert(f.bit_width >= 1 && f.bit_width <= 64);
  assert(field_fits(buf.size(), f));
  const size_t first = f.bit_offset / 8;
  const size_t bytes = (f.bit_offset % 8 + f.bit_width + 7) / 8;
  if (bytes > 8) return set_field_bits(buf, f, value);
  uint8_t* at = buf.data() + first;
  if (f.byte_aligned()) {
    // Whole bytes: no neighbours to keep; the bytes drop the bits above the width.
    for (size_t i = bytes; i-- > 0; value >>= 8) at[i] = static_cast<uint8_t>(value);
    return;
  }
  const unsigned low = static_cast<unsigned>(bytes * 8 - f.bit_offset % 8 - f.bit_width);
  const uint64_t mask = (f.bit_width == 64 ? ~uint64_t{0} : (uint64_t{1} << f.bit_width) - 1) << low;
  uint64_t window = 0;
  for (size_t i = 0; i < bytes; ++i) window = (window << 8) | at[i];
  window = (window & ~mask) | ((value << low) & mask);
  for (size_t i = bytes; i-- > 0; window >>= 8) at[i] = static_cast<uint8_t>(window);
}

// Byte-array fields (byte aligned, any width): GIDs, NodeDescription, DR paths.
void get_bytes(std::span<const uint8_t> buf, const Field& f, std::span<uint8_t> out);
void set_bytes(std::span<uint8_t> buf, const Field& f, std::span<const uint8_t> in);

// A 128-bit GID (IBA 4.1.1): subnet prefix then interface id, big-endian.
struct Gid {
  std::array<uint8_t, 16> raw{};

  static Gid from_parts(uint64_t prefix, uint64_t interface_id);
  uint64_t prefix() const;
  uint64_t interface_id() const;
  bool operator==(const Gid&) const = default;
};
Gid get_gid(std::span<const uint8_t> buf, const Field& f);
void set_gid(std::span<uint8_t> buf, const Field& f, const Gid& gid);

// NodeDescription text (IBA 14.2.5.2): UTF-8, NUL padded; the text ends at the
// first NUL or at the field's end. Writing truncates to the field and pads.
std::string get_text(std::span<const uint8_t> buf, const Field& f);
void set_text(std::span<uint8_t> buf, const Field& f, std::string_view text);

// A 64-byte DR path array (IBA 14.2.1.2 InitialPath/ReturnPath): entries
// 1..hops are the ports; entry 0 is unused.
DrPath get_dr_path(std::span<const uint8_t> buf, const Field& f, int hops);
void set_dr_path(std::span<uint8_t> buf, const Field& f, const DrPath& path);

}  // namespace ibsm::wire
