#include "sa/registrations_codec.h"

#include <algorithm>
#include <array>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "mad/base/text.h"
#include "mad/wire/constants.h"

namespace ibsm::sa {
namespace {

constexpr std::string_view kMagic = "ibsm-sa-registrations";
constexpr std::string_view kInfinite = "infinite";

// FNV-1a, 64 bits: enough to tell a file cut short or edited by hand from
// the one written; not a defence against anyone.
uint64_t fnv1a(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

template <size_t N, typename R>
void append_record(std::string& out, std::string_view tag, const R& record) {
  std::array<uint8_t, N> bytes{};
  wire::encode(record, bytes);
  out += tag;
  out += ' ';
  // Not a format call per byte, which made a save of tens of thousands of
  // records take seconds.
  append_hex_bytes(out, bytes);
}

class Reader {
 public:
  explicit Reader(std::string_view source) : source_(source) {}
  Status error(size_t line, std::string_view what) const {
    return invalid_argument_error(fmt::format("{}:{}: {}", source_, line, what));
  }
  // The record a hex word holds, decoded by `decode`.
  template <size_t N, typename R>
  Result<R> record(std::string_view hex, size_t line, std::string_view what,
                   Result<R> (*decode)(std::span<const uint8_t>)) const {
    if (hex.size() != 2 * N)
      return error(line, fmt::format("{} record of {} hex digits, {} expected", what, hex.size(), 2 * N));
    std::array<uint8_t, N> bytes{};
    for (size_t i = 0; i < N; ++i) {
      const int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
      if (hi < 0 || lo < 0) return error(line, fmt::format("{} record: {} is not hex", what, quoted(hex)));
      bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
    }
    auto r = decode(bytes);
    if (!r.ok()) return error(line, fmt::format("{} record: {}", what, r.status().message()));
    return r;
  }

 private:
  std::string_view source_;
};

}  // namespace

std::string encode_registrations(const SaRegistrations& regs, int64_t saved_at_ms) {
  std::string out;
  out.reserve(64 + regs.services.size() * 380 + regs.subscriptions.size() * 180 + regs.multicast.size() * 120);
  fmt::format_to(std::back_inserter(out), "{} {}\nsaved-at {}\n", kMagic, registrations_format_version, saved_at_ms);
  for (size_t i = 0; i < regs.services.size(); ++i) {
    append_record<wire::sa_record_size::service>(out, "service", regs.services[i]);
    // -1: no time left known. (A plain value, not a copied optional: GCC 12
    // at -O1 for aarch64 takes that for uninitialized.)
    const Micros left = i < regs.service_lease_left.size() && regs.service_lease_left[i]
                            ? *regs.service_lease_left[i]
                            : Micros{-1};
    if (regs.services[i].service_lease == wire::service_lease_infinite) {
      fmt::format_to(std::back_inserter(out), " {}\n", kInfinite);
    } else {
      // Without a time left (never restored, never held): the whole lease.
      const Micros ms = left >= 0 ? (left + 999) / 1000 : Micros{regs.services[i].service_lease} * 1000;
      fmt::format_to(std::back_inserter(out), " {}\n", ms);
    }
  }
  for (const wire::InformInfoRecord& r : regs.subscriptions) {
    append_record<wire::sa_record_size::inform_info>(out, "subscription", r);
    out += '\n';
  }
  for (const wire::McMemberRecord& r : regs.multicast) {
    append_record<wire::sa_record_size::mc_member>(out, "mcmember", r);
    out += '\n';
  }
  fmt::format_to(std::back_inserter(out), "checksum {:016x}\n", fnv1a(out));
  return out;
}

Result<SavedRegistrations> decode_registrations(std::string_view text, std::string_view source) {
  const Reader rd(source);
  SavedRegistrations saved;
  SaRegistrations& regs = saved.registrations;
  size_t number = 0, pos = 0;
  bool saw_time = false;
  while (pos < text.size()) {
    const size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos)
      return rd.error(number + 1, "line not ended: the file was cut short");
    const std::string_view line = text.substr(pos, eol - pos);
    const size_t line_start = pos;
    pos = eol + 1;
    ++number;
    const std::vector<std::string_view> w = split_words(line);
    if (number == 1) {
      const auto version = w.size() == 2 ? parse_signed(w[1], INT32_MIN, INT32_MAX) : std::nullopt;
      if (w.size() != 2 || w[0] != kMagic || !version)
        return rd.error(number, fmt::format("not an ibsm SA registrations file: {}", quoted(line)));
      if (*version != registrations_format_version)
        return rd.error(number, fmt::format("format version {}; this ibsm reads version {}", *version,
                                            registrations_format_version));
      continue;
    }
    if (w.empty()) return rd.error(number, "empty line");
    if (w[0] == "checksum") {
      const auto sum = w.size() == 2 && w[1].size() == 16 ? parse_unsigned(w[1], Notation::hex) : std::nullopt;
      if (!sum)
        return rd.error(number, fmt::format("malformed checksum line: {}", quoted(line)));
      const uint64_t want = fnv1a(text.substr(0, line_start));
      if (*sum != want)
        return rd.error(number, fmt::format("checksum {:016x} does not match the contents ({:016x})", *sum, want));
      if (pos != text.size()) return rd.error(number + 1, "text after the checksum line");
      if (!saw_time) return rd.error(number, "no saved-at line");
      return saved;
    }
    if (w[0] == "saved-at") {
      const auto saved_at = w.size() == 2 ? parse_signed(w[1]) : std::nullopt;
      if (!saved_at || saw_time)
        return rd.error(number, fmt::format("malformed saved-at line: {}", quoted(line)));
      saved.saved_at_ms = *saved_at;
      saw_time = true;
    } else if (w[0] == "service") {
      if (w.size() != 3) return rd.error(number, "service line: a record and its time left expected");
      auto r = rd.record<wire::sa_record_size::service>(w[1], number, "service", wire::decode_service_record);
      if (!r.ok()) return r.status();
      std::optional<Micros> left;
      if (w[2] != kInfinite) {
        const auto ms = parse_signed(w[2], 0);
        if (!ms)
          return rd.error(number, fmt::format("service lease left {} is not a count of ms", quoted(w[2])));
        left = Micros{*ms} * 1000;
      }
      if (left.has_value() == (r->service_lease == wire::service_lease_infinite))
        return rd.error(number, "service lease left disagrees with the record's lease (infinite or not)");
      regs.services.push_back(std::move(*r));
      regs.service_lease_left.push_back(left);
    } else if (w[0] == "subscription") {
      if (w.size() != 2) return rd.error(number, "subscription line: one record expected");
      auto r = rd.record<wire::sa_record_size::inform_info>(w[1], number, "subscription",
                                                            wire::decode_inform_info_record);
      if (!r.ok()) return r.status();
      regs.subscriptions.push_back(std::move(*r));
    } else if (w[0] == "mcmember") {
      if (w.size() != 2) return rd.error(number, "mcmember line: one record expected");
      auto r = rd.record<wire::sa_record_size::mc_member>(w[1], number, "mcmember", wire::decode_mc_member_record);
      if (!r.ok()) return r.status();
      regs.multicast.push_back(std::move(*r));
    } else {
      return rd.error(number, fmt::format("unknown line {}", quoted(line)));
    }
  }
  if (number == 0) return rd.error(1, "empty file");
  return rd.error(number, "no checksum line: the file was cut short");
}

RestoredRegistrations restore_registrations(SavedRegistrations saved, int64_t now_ms) {
  RestoredRegistrations out;
  SaRegistrations& in = saved.registrations;
  SaRegistrations& regs = out.registrations;
  const Micros down = Micros{std::max<int64_t>(now_ms - saved.saved_at_ms, 0)} * 1000;
  for (size_t i = 0; i < in.services.size(); ++i) {
    std::optional<Micros> left = i < in.service_lease_left.size() ? in.service_lease_left[i] : std::nullopt;
    if (left) {
      if (*left <= down) {
        ++out.expired_services;
        continue;
      }
      *left -= down;
    }
    regs.services.push_back(std::move(in.services[i]));
    regs.service_lease_left.push_back(left);
  }
  regs.subscriptions = std::move(in.subscriptions);
  regs.multicast = std::move(in.multicast);
  return out;
}

}  // namespace ibsm::sa
