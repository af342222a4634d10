#include "mad/wire/field.h"

#include <algorithm>
#include <cassert>

namespace ibsm::wire {

uint64_t get_field_bits(std::span<const uint8_t> buf, const Field& f) {
  size_t bit = f.bit_offset;
  unsigned remaining = f.bit_width;
  uint64_t value = 0;
  while (remaining > 0) {
    const unsigned in_byte = bit % 8;
    const unsigned take = std::min(8u - in_byte, remaining);
    const unsigned shift = 8u - in_byte - take;
    const unsigned chunk = (unsigned{buf[bit / 8]} >> shift) & ((1u << take) - 1u);
    value = (value << take) | chunk;
    bit += take;
    remaining -= take;
  }
  return value;
}

void set_field_bits(std::span<uint8_t> buf, const Field& f, uint64_t value) {
  size_t bit = f.bit_offset;
  unsigned remaining = f.bit_width;
  while (remaining > 0) {
    const unsigned in_byte = bit % 8;
    const unsigned take = std::min(8u - in_byte, remaining);
    const unsigned shift = 8u - in_byte - take;
    const unsigned mask = ((1u << take) - 1u) << shift;
    // The value's bits still to write are its low `remaining` bits; this byte
    // takes the top `take` of them.
    const unsigned chunk = static_cast<unsigned>((value >> (remaining - take)) & ((1u << take) - 1u));
    uint8_t& byte = buf[bit / 8];
    byte = static_cast<uint8_t>((byte & ~mask) | (chunk << shift));
    bit += take;
    remaining -= take;
  }
}

void get_bytes(std::span<const uint8_t> buf, const Field& f, std::span<uint8_t> out) {
  assert(f.byte_aligned());
  assert(field_fits(buf.size(), f));
  assert(out.size() == f.byte_size());
  std::copy_n(buf.begin() + static_cast<std::ptrdiff_t>(f.byte_offset()), f.byte_size(), out.begin());
}

void set_bytes(std::span<uint8_t> buf, const Field& f, std::span<const uint8_t> in) {
  assert(f.byte_aligned());
  assert(field_fits(buf.size(), f));
  assert(in.size() == f.byte_size());
  std::copy(in.begin(), in.end(), buf.begin() + static_cast<std::ptrdiff_t>(f.byte_offset()));
}

Gid Gid::from_parts(uint64_t prefix, uint64_t interface_id) {
  Gid g;
  set_field(g.raw, Field{0, 64, "prefix"}, prefix);
  set_field(g.raw, Field{64, 64, "interface_id"}, interface_id);
  return g;
}

uint64_t Gid::prefix() const { return get_field(raw, Field{0, 64, "prefix"}); }
uint64_t Gid::interface_id() const { return get_field(raw, Field{64, 64, "interface_id"}); }

Gid get_gid(std::span<const uint8_t> buf, const Field& f) {
  assert(f.bit_width == 128);
  Gid g;
  get_bytes(buf, f, g.raw);
  return g;
}

void set_gid(std::span<uint8_t> buf, const Field& f, const Gid& gid) {
  assert(f.bit_width == 128);
  set_bytes(buf, f, gid.raw);
}

std::string get_text(std::span<const uint8_t> buf, const Field& f) {
  assert(f.byte_aligned());
  assert(field_fits(buf.size(), f));
  auto bytes = buf.subspan(f.byte_offset(), f.byte_size());
  auto end = std::find(bytes.begin(), bytes.end(), uint8_t{0});
  return std::string(bytes.begin(), end);
}

void set_text(std::span<uint8_t> buf, const Field& f, std::string_view text) {
  assert(f.byte_aligned());
  assert(field_fits(buf.size(), f));
  auto bytes = buf.subspan(f.byte_offset(), f.byte_size());
  const size_t n = std::min(text.size(), bytes.size());
  std::fill(bytes.begin(), bytes.end(), uint8_t{0});
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(text[i]);
}

DrPath get_dr_path(std::span<const uint8_t> buf, const Field& f, int hops) {
  assert(f.bit_width == 512);
  std::array<uint8_t, 64> raw{};
  get_bytes(buf, f, raw);
  return DrPath::from_raw(raw, hops);
}

void set_dr_path(std::span<uint8_t> buf, const Field& f, const DrPath& path) {
  assert(f.bit_width == 512);
  set_bytes(buf, f, path.raw());
}

}  // namespace ibsm::wire
