#include "mad/base/text.h"

#include <cstring>

#include <fmt/format.h>

namespace ibsm {

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

NumberScan scan_unsigned(std::string_view text, Notation notation) {
  const bool has_0x = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') && hex_digit(text[2]) >= 0;
  unsigned base = 10;
  size_t prefix = 0;
  switch (notation) {
    case Notation::c:
      if (has_0x) {
        base = 16;
        prefix = 2;
      } else if (!text.empty() && text[0] == '0') {
        base = 8;
      }
      break;
    case Notation::decimal_or_hex:
      if (has_0x) {
        base = 16;
        prefix = 2;
      }
      break;
    case Notation::decimal:
      break;
    case Notation::hex:
      base = 16;
      break;
    case Notation::hex_optional_0x:
      base = 16;
      if (has_0x) prefix = 2;
      break;
    case Notation::hex_0x:
      if (!has_0x) return {};
      base = 16;
      prefix = 2;
      break;
  }
  NumberScan n;
  size_t digits = 0;
  for (size_t i = prefix; i < text.size(); ++i, ++digits) {
    const int d = hex_digit(text[i]);
    if (d < 0 || static_cast<unsigned>(d) >= base) break;
    const auto du = static_cast<uint64_t>(d);
    if (n.overflow || n.value > (UINT64_MAX - du) / base) {
      n.overflow = true;
      n.value = UINT64_MAX;
    } else {
      n.value = n.value * base + du;
    }
  }
  n.used = digits == 0 ? 0 : prefix + digits;
  return n;
}

std::optional<uint64_t> parse_unsigned(std::string_view text, Notation notation, uint64_t max) {
  const NumberScan n = scan_unsigned(text, notation);
  if (n.used == 0 || n.used != text.size() || n.overflow || n.value > max) return std::nullopt;
  return n.value;
}

std::optional<int64_t> parse_signed(std::string_view text, int64_t min, int64_t max) {
  const bool negative = text.starts_with('-');
  if (negative) text.remove_prefix(1);
  // The magnitude of INT64_MIN is one more than INT64_MAX.
  const auto magnitude = parse_unsigned(text, Notation::decimal, negative ? uint64_t{1} << 63 : INT64_MAX);
  if (!magnitude) return std::nullopt;
  const int64_t v = negative ? static_cast<int64_t>(0 - *magnitude) : static_cast<int64_t>(*magnitude);
  if (v < min || v > max) return std::nullopt;
  return v;
}

std::optional<Guid> parse_guid(std::string_view text, Notation notation) {
  if (notation == Notation::hex_0x && text.size() > 2 + kGuidHexDigits) return std::nullopt;
  const auto v = parse_unsigned(text, notation);
  if (!v) return std::nullopt;
  return Guid{*v};
}

std::string quoted(std::string_view value, size_t max) {
  std::string out = "'";
  size_t i = 0;
  for (; i < value.size(); ++i) {
    const bool blank = is_space(value[i]);
    if (blank && out.back() == ' ') continue;  // folded into the blank before
    if (out.size() - 1 == max) break;
    out.push_back(blank ? ' ' : value[i]);
  }
  if (i < value.size()) return fmt::format("{}...' ({} bytes)", out, value.size());
  out.push_back('\'');
  return out;
}

// 16 bytes at a time in vector registers (GCC's and Clang's vector
// extensions: SSE2 on x86-64, NEON on aarch64): the nibbles of each byte
// side by side, each turned into its digit, then the high and low digits
// interleaved. The switch tables at the full LID space are 395 MB of
// digits, written on the cache writer's thread while a bring-up ends; a
// byte at a time through a table of digit pairs they took a fifth of the
// writer's time (bench/scale.sh, 49k LIDs).
void append_hex_bytes(std::string& out, std::span<const uint8_t> bytes) {
  using Bytes16 = uint8_t __attribute__((vector_size(16)));
  const size_t head = out.size();
  out.resize(head + 2 * bytes.size());
  char* to = out.data() + head;
  const auto digits = [](Bytes16 nibbles) {
    // '0' + n, and 'a' - '0' - 10 more for the nibbles above 9.
    return nibbles + '0' + (reinterpret_cast<Bytes16>(nibbles > 9) & ('a' - '0' - 10));
  };
  size_t i = 0;
  for (; i + 16 <= bytes.size(); i += 16) {
    Bytes16 v;
    std::memcpy(&v, bytes.data() + i, 16);
    const Bytes16 high = digits(v >> 4), low = digits(v & 15);
    const Bytes16 first = __builtin_shufflevector(high, low, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const Bytes16 second =
        __builtin_shufflevector(high, low, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    std::memcpy(to, &first, 16);
    std::memcpy(to + 16, &second, 16);
    to += 32;
  }
  for (; i < bytes.size(); ++i) {
    *to++ = kHexDigits[bytes[i] >> 4];
    *to++ = kHexDigits[bytes[i] & 15];
  }
}

}  // namespace ibsm
