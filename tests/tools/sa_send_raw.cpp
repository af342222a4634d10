// sa_send_raw: sends one hand-made SA MAD (class 0x03) to the SM's LID on
// QP1 through libibumad (umad2sim under the e2e tests) and prints every MAD
// that comes back with its TID, one line each, so a test can judge how the SA
// answers what a correct client never sends: a bad class version, a method or
// attribute the class does not have, a broken ComponentMask, a garbage RMPP
// segment.
//
//   sa_send_raw [--wait MS] [--sm-lid LID] [--subscriber] FIELD=VALUE...
//
// --subscriber: the port also receives the SA's Reports (a subscriber after
// an InformInfo Set), prints each as "report trap N gid G" (the GID of traps
// 64/65) and answers it with a ReportResponse. ibsim hands requests to QP1
// only to a client that opened the port's issm device, so this does.
//
// Fields (numbers decimal or 0x hex): class_version (default 2), method
// (default 0x01 Get), attr, attr_mod, status, tid (default random; answers
// match its low 32 bits, as ibsim rewrites the high ones), sm_key, mask
// (ComponentMask), rmpp_version, rmpp_type, rmpp_flags, rmpp_status, seg
// (Data1), len (Data2), data=HEX (the SA data, from byte 56).
// Every answer is printed as
//   answer method 0x81 status 0x0c00 attr 0x0011 rmpp_type 0 rmpp_flags 0 rmpp_status 0 offset 0 data_bytes N tid T
// where data_bytes counts the SA data up to its last nonzero byte.
// Exit status: 0 at least one answer, 3 none within --wait, 2 bad usage, 1 no port.
#include <charconv>
#include <chrono>
#include <cstdio>
#include <random>
#include <span>
#include <string>
#include <string_view>

#include "mad/umad/umad_transport.h"
#include "mad/wire/constants.h"
#include "mad/wire/mad_header.h"
#include "mad/wire/notice.h"
#include "mad/wire/response.h"
#include "mad/wire/rmpp.h"
#include "mad/wire/sa_header.h"

namespace {

using namespace ibsm;

bool parse_number(std::string_view text, uint64_t& out) {
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, base);
  return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
}

bool parse_hex_bytes(std::string_view text, std::span<uint8_t> out) {
  if (text.size() % 2 != 0 || text.size() / 2 > out.size()) return false;
  for (size_t i = 0; i < text.size() / 2; ++i) {
    auto [end, ec] = std::from_chars(text.data() + 2 * i, text.data() + 2 * i + 2, out[i], 16);
    if (ec != std::errc{} || end != text.data() + 2 * i + 2) return false;
  }
  return true;
}

int usage(const char* why) {
  std::fprintf(stderr, "sa_send_raw: %s\nusage: sa_send_raw [--wait MS] [--sm-lid LID] FIELD=VALUE...\n", why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  MadPacket mad;
  auto& d = mad.data;
  wire::set_field(d, wire::mad_fields::base_version, wire::mad_base_version);
  wire::set_field(d, wire::mad_fields::mgmt_class, wire::mgmt_class::subn_adm);
  wire::set_field(d, wire::mad_fields::class_version, wire::sa_class_version);
  wire::set_field(d, wire::mad_fields::method, wire::method::get);
  std::random_device rd;
  uint64_t tid = (uint64_t{rd()} & 0x7FFFFFFF) | 1;
  uint64_t wait_ms = 1000, sm_lid = 0;
  bool subscriber = false;

  struct Named {
    std::string_view name;
    const wire::Field* field;
  };
  const Named fields[] = {
      {"class_version", &wire::mad_fields::class_version}, {"method", &wire::mad_fields::method},
      {"attr", &wire::mad_fields::attribute_id},          {"attr_mod", &wire::mad_fields::attribute_modifier},
      {"status", &wire::mad_fields::status},              {"sm_key", &wire::sa_fields::sm_key},
      {"mask", &wire::sa_fields::component_mask},         {"rmpp_version", &wire::rmpp_fields::version},
      {"rmpp_type", &wire::rmpp_fields::type},            {"rmpp_flags", &wire::rmpp_fields::flags},
      {"rmpp_status", &wire::rmpp_fields::status},        {"seg", &wire::rmpp_fields::data1},
      {"len", &wire::rmpp_fields::data2},
  };
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "--subscriber") {
      subscriber = true;
      continue;
    }
    if ((arg == "--wait" || arg == "--sm-lid") && i + 1 < argc) {
      if (!parse_number(argv[i + 1], arg == "--wait" ? wait_ms : sm_lid)) return usage("bad number");
      ++i;
      continue;
    }
    const auto eq = arg.find('=');
    if (eq == std::string_view::npos) return usage("arguments are FIELD=VALUE");
    const auto name = arg.substr(0, eq), value = arg.substr(eq + 1);
    if (name == "data") {
      if (!parse_hex_bytes(value, std::span<uint8_t>(d).subspan(wire::sa_data_offset))) return usage("bad data hex");
      continue;
    }
    uint64_t v = 0;
    if (!parse_number(value, v)) return usage("bad number");
    if (name == "tid") {
      tid = v;
      continue;
    }
    bool known = false;
    for (const auto& f : fields)
      if (f.name == name) {
        wire::set_field(d, *f.field, v);
        known = true;
      }
    if (!known) return usage("unknown field");
  }
  wire::set_field(d, wire::mad_fields::transaction_id, tid);

  UmadOptions options;
  if (subscriber) {
    // Opening issm makes the port claim IsSM, so the master reads its SMInfo
    // when it elects (as OpenSM does too). umad2sim crashes a client that
    // gets a MAD of a class it has no agent for: take the SMP classes too,
    // and leave their requests unanswered (no SM here: the master times out).
    options.serve_classes = {wire::mgmt_class::subn_adm, wire::mgmt_class::subn_lid_routed,
                             wire::mgmt_class::subn_directed_route};
    options.set_issm = true;
  }
  auto port = UmadTransport::open(options);
  if (!port.ok()) {
    std::fprintf(stderr, "sa_send_raw: %s\n", port.status().message().c_str());
    return 1;
  }
  const uint16_t sa_lid = sm_lid ? static_cast<uint16_t>(sm_lid) : (*port)->local_port().sm_lid.value;
  if (sa_lid == 0) {
    std::fprintf(stderr, "sa_send_raw: the port knows no SM LID\n");
    return 1;
  }
  mad.address.lid = Lid{sa_lid};
  mad.address.qp = 1;
  mad.address.qkey = 0x80010000;
  // A request keeps the kernel MAD layer waiting for its answer; a response
  // (R bit set, e.g. a hand-made GetResp) is sent as is.
  if (!(d[3] & 0x80)) mad.response_timeout_ms = static_cast<uint32_t>(wait_ms);
  if (Status s = (*port)->send(mad); !s.ok()) {
    std::fprintf(stderr, "sa_send_raw: send: %s\n", s.message().c_str());
    return 1;
  }

  // ibsim rewrites the TID's top 32 bits: match on the low ones.
  int answers = 0;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed_us = [&] {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
  };
  const int64_t limit = static_cast<int64_t>(wait_ms) * 1000;
  while (elapsed_us() < limit) {
    (*port)->wait(limit - elapsed_us());
    while (auto p = (*port)->receive()) {
      const auto& a = p->data;
      if (a[1] != wire::mgmt_class::subn_adm) continue;
      if (subscriber && wire::get_field(a, wire::mad_fields::method) == wire::method::report) {
        MadPacket answer;
        answer.data = wire::make_response(a);
        answer.address = p->address;
        (void)(*port)->send(answer);
        auto n = wire::decode_notice(std::span<const uint8_t>(a).subspan(wire::sa_data_offset, wire::notice_size));
        if (!n.ok()) continue;
        // Traps 64/65: the GID is DataDetails bytes 6-21 (IBA 13.4.8.2).
        char gid[40];
        for (size_t k = 0; k < 8; ++k)
          std::snprintf(gid + 5 * k, sizeof gid - 5 * k, "%02x%02x%s", n->data_details[6 + 2 * k],
                        n->data_details[7 + 2 * k], k < 7 ? ":" : "");
        std::printf("report trap %u gid %s\n", n->trap_number, gid);
        std::fflush(stdout);
        continue;
      }
      if ((wire::get_field(a, wire::mad_fields::transaction_id) & 0xFFFFFFFF) != (tid & 0xFFFFFFFF)) continue;
      size_t data_bytes = 0;
      for (size_t k = wire::sa_data_offset; k < a.size(); ++k)
        if (a[k] != 0) data_bytes = k - wire::sa_data_offset + 1;
      std::printf("answer method 0x%02x status 0x%04x attr 0x%04x rmpp_type %u rmpp_flags %u rmpp_status %u offset %u "
                  "data_bytes %zu tid 0x%016llx\n",
                  static_cast<unsigned>(wire::get_field(a, wire::mad_fields::method)),
                  static_cast<unsigned>(wire::get_field(a, wire::mad_fields::status)),
                  static_cast<unsigned>(wire::get_field(a, wire::mad_fields::attribute_id)),
                  static_cast<unsigned>(wire::get_field(a, wire::rmpp_fields::type)),
                  static_cast<unsigned>(wire::get_field(a, wire::rmpp_fields::flags)),
                  static_cast<unsigned>(wire::get_field(a, wire::rmpp_fields::status)),
                  static_cast<unsigned>(wire::get_field(a, wire::sa_fields::attribute_offset)), data_bytes,
                  static_cast<unsigned long long>(wire::get_field(a, wire::mad_fields::transaction_id)));
      std::fflush(stdout);
      ++answers;
    }
  }
  if (answers == 0) std::printf("no answer\n");
  return answers > 0 ? 0 : 3;
}
