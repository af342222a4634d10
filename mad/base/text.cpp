#include "mad/base/text.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
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

bool parse_c_unsigned(std::string_view text, uint64_t max, uint64_t& value) {
  if (text.empty() || text.front() == '-' || text.front() == '+' || is_space(text.front())) return false;
  const std::string s(text);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
  if (end != s.c_str() + s.size() || errno != 0 || v > max) return false;
  value = v;
  return true;
}

bool parse_decimal_or_hex(std::string_view text, uint64_t& value) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  return ec == std::errc() && end == text.data() + text.size();
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
