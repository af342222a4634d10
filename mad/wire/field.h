// Bit fields of MAD wire formats, described by a table entry (offset, width,
// name) instead of packed structs: the IBA spec draws every MAD as rows of
// 32 bits with big-endian, MSB-first bit numbering, and so does Field.
// bit_offset 0 is the most significant bit of byte 0; a field of width w at
// offset o covers bits o .. o+w-1 in that order, its first bit the value's MSB.
#pragma once

#include <array>
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
uint64_t get_field(std::span<const uint8_t> buf, const Field& f);
void set_field(std::span<uint8_t> buf, const Field& f, uint64_t value);

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
