#include "mad/wire/smp.h"

#include <algorithm>
#include <cassert>

#include <fmt/format.h>

namespace ibsm::wire {

namespace {

bool is_smp_class(uint8_t c) { return c == mgmt_class::subn_lid_routed || c == mgmt_class::subn_directed_route; }

uint64_t get(std::span<const uint8_t> mad, const Field& f) { return get_field(mad, f); }

}  // namespace

void encode(const Smp& smp, std::span<uint8_t> mad) {
  assert(mad.size() >= mad_size);
  std::fill_n(mad.begin(), mad_size, uint8_t{0});
  set_field(mad, mad_fields::base_version, smp.base_version);
  set_field(mad, mad_fields::mgmt_class, smp.mgmt_class);
  set_field(mad, mad_fields::class_version, smp.class_version);
  set_field(mad, mad_fields::method, smp.method);
  set_field(mad, mad_fields::transaction_id, smp.tid);
  set_field(mad, mad_fields::attribute_id, smp.attr_id);
  set_field(mad, mad_fields::attribute_modifier, smp.attr_mod);
  set_field(mad, smp_fields::m_key, smp.m_key);
  set_bytes(mad, smp_fields::data, smp.data);
  if (!smp.directed()) {
    set_field(mad, mad_fields::status, smp.status);
    return;
  }
  set_field(mad, smp_fields::direction, smp.direction);
  set_field(mad, smp_fields::dr_status, smp.status);
  set_field(mad, smp_fields::hop_pointer, smp.hop_pointer);
  set_field(mad, smp_fields::hop_count, smp.hop_count);
  set_field(mad, smp_fields::dr_slid, smp.dr_slid);
  set_field(mad, smp_fields::dr_dlid, smp.dr_dlid);
  set_bytes(mad, smp_fields::initial_path, smp.initial_path);
  set_bytes(mad, smp_fields::return_path, smp.return_path);
}

Result<Smp> decode_smp(std::span<const uint8_t> mad) {
  if (mad.size() != mad_size) return invalid_argument_error(fmt::format("smp is {} bytes, expected {}", mad.size(), mad_size));
  Smp smp;
  smp.base_version = static_cast<uint8_t>(get(mad, mad_fields::base_version));
  smp.mgmt_class = static_cast<uint8_t>(get(mad, mad_fields::mgmt_class));
  if (!is_smp_class(smp.mgmt_class))
    return invalid_argument_error(fmt::format("class 0x{:02x} is not a subnet management class", smp.mgmt_class));
  smp.class_version = static_cast<uint8_t>(get(mad, mad_fields::class_version));
  smp.method = static_cast<uint8_t>(get(mad, mad_fields::method));
  smp.tid = get(mad, mad_fields::transaction_id);
  smp.attr_id = static_cast<uint16_t>(get(mad, mad_fields::attribute_id));
  smp.attr_mod = static_cast<uint32_t>(get(mad, mad_fields::attribute_modifier));
  smp.m_key = get(mad, smp_fields::m_key);
  get_bytes(mad, smp_fields::data, smp.data);
  if (!smp.directed()) {
    smp.status = static_cast<uint16_t>(get(mad, mad_fields::status));
    return smp;  // the DR-only members keep their defaults

  }
  smp.direction = get(mad, smp_fields::direction) != 0;
  smp.status = static_cast<uint16_t>(get(mad, smp_fields::dr_status));
  smp.hop_pointer = static_cast<uint8_t>(get(mad, smp_fields::hop_pointer));
  smp.hop_count = static_cast<uint8_t>(get(mad, smp_fields::hop_count));
  smp.dr_slid = static_cast<uint16_t>(get(mad, smp_fields::dr_slid));
  smp.dr_dlid = static_cast<uint16_t>(get(mad, smp_fields::dr_dlid));
  get_bytes(mad, smp_fields::initial_path, smp.initial_path);
  get_bytes(mad, smp_fields::return_path, smp.return_path);
  return smp;
}

bool SmpView::directed() const { return mgmt_class() == mgmt_class::subn_directed_route; }
uint8_t SmpView::mgmt_class() const { return static_cast<uint8_t>(get(mad_, mad_fields::mgmt_class)); }
uint8_t SmpView::method() const { return static_cast<uint8_t>(get(mad_, mad_fields::method)); }
uint16_t SmpView::status() const {
  return static_cast<uint16_t>(get(mad_, directed() ? smp_fields::dr_status : mad_fields::status));
}
uint64_t SmpView::tid() const { return get(mad_, mad_fields::transaction_id); }
uint16_t SmpView::attr_id() const { return static_cast<uint16_t>(get(mad_, mad_fields::attribute_id)); }
uint32_t SmpView::attr_mod() const { return static_cast<uint32_t>(get(mad_, mad_fields::attribute_modifier)); }
uint64_t SmpView::m_key() const { return get(mad_, smp_fields::m_key); }
bool SmpView::direction() const { return directed() && get(mad_, smp_fields::direction) != 0; }
uint8_t SmpView::hop_pointer() const {
  return directed() ? static_cast<uint8_t>(get(mad_, smp_fields::hop_pointer)) : 0;
}
uint8_t SmpView::hop_count() const { return directed() ? static_cast<uint8_t>(get(mad_, smp_fields::hop_count)) : 0; }
uint16_t SmpView::dr_slid() const { return directed() ? static_cast<uint16_t>(get(mad_, smp_fields::dr_slid)) : 0; }
uint16_t SmpView::dr_dlid() const { return directed() ? static_cast<uint16_t>(get(mad_, smp_fields::dr_dlid)) : 0; }
DrPath SmpView::initial_path() const {
  return directed() ? get_dr_path(mad_, smp_fields::initial_path, hop_count()) : DrPath{};
}
DrPath SmpView::return_path() const {
  return directed() ? get_dr_path(mad_, smp_fields::return_path, hop_count()) : DrPath{};
}
Smp SmpView::to_smp() const {
  auto smp = decode_smp(mad_);
  assert(smp.ok());  // parse_smp has checked size and class
  return std::move(smp).value();
}

Result<SmpView> parse_smp(std::span<const uint8_t> mad) {
  if (mad.size() != mad_size) return invalid_argument_error(fmt::format("smp is {} bytes, expected {}", mad.size(), mad_size));
  const auto base = get(mad, mad_fields::base_version);
  if (base != mad_base_version) return invalid_argument_error(fmt::format("smp base version {}, expected 1", base));
  const auto cls = static_cast<uint8_t>(get(mad, mad_fields::mgmt_class));
  if (!is_smp_class(cls))
    return invalid_argument_error(fmt::format("class 0x{:02x} is not a subnet management class", cls));
  const auto version = get(mad, mad_fields::class_version);
  if (version != smp_class_version)
    return invalid_argument_error(fmt::format("smp class version {}, expected {}", version, smp_class_version));
  if (cls == mgmt_class::subn_directed_route) {
    const auto hop_count = get(mad, smp_fields::hop_count);
    const auto hop_pointer = get(mad, smp_fields::hop_pointer);
    if (hop_count > max_dr_hops)
      return invalid_argument_error(fmt::format("dr smp hop count {} exceeds {}", hop_count, max_dr_hops));
    if (hop_pointer > hop_count + 1)
      return invalid_argument_error(
          fmt::format("dr smp hop pointer {} beyond hop count {} + 1", hop_pointer, hop_count));
  }
  return SmpView(mad);
}

namespace {

Smp smp_request(uint8_t cls, uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint64_t tid,
                std::span<const uint8_t> payload, uint64_t m_key) {
  assert(payload.size() <= smp_data_size);
  Smp smp;
  smp.mgmt_class = cls;
  smp.method = method;
  smp.tid = tid;
  smp.attr_id = attr_id;
  smp.attr_mod = attr_mod;
  smp.m_key = m_key;
  std::copy(payload.begin(), payload.end(), smp.data.begin());
  return smp;
}

MadBuffer encoded(const Smp& smp) {
  MadBuffer mad{};
  encode(smp, mad);
  return mad;
}

}  // namespace

void write_dr_smp(std::span<uint8_t, mad_size> mad, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
                  uint64_t tid, const DrPath& path, std::span<const uint8_t> payload, uint64_t m_key) {
  assert(payload.size() <= smp_data_size);
  // The bytes encode(Smp) writes for such an SMP (the tests compare the
  // two), without the Smp in between: the heavy sweep builds one per LFT
  // block, millions on a large fabric.
  std::fill(mad.begin(), mad.end(), uint8_t{0});
  set_field(mad, mad_fields::base_version, mad_base_version);
  set_field(mad, mad_fields::mgmt_class, mgmt_class::subn_directed_route);
  set_field(mad, mad_fields::class_version, smp_class_version);
  set_field(mad, mad_fields::method, method);
  // D = 0, status 0, hop pointer 0: left zero.
  set_field(mad, smp_fields::hop_count, static_cast<uint64_t>(path.hops()));
  set_field(mad, mad_fields::transaction_id, tid);
  set_field(mad, mad_fields::attribute_id, attr_id);
  set_field(mad, mad_fields::attribute_modifier, attr_mod);
  set_field(mad, smp_fields::m_key, m_key);
  set_field(mad, smp_fields::dr_slid, permissive_lid);
  set_field(mad, smp_fields::dr_dlid, permissive_lid);
  std::copy(payload.begin(), payload.end(), mad.begin() + smp_data_offset);
  set_bytes(mad, smp_fields::initial_path, path.raw());
}

MadBuffer build_dr_smp(uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint64_t tid, const DrPath& path,
                       std::span<const uint8_t> payload, uint64_t m_key) {
  MadBuffer mad;
  write_dr_smp(mad, method, attr_id, attr_mod, tid, path, payload, m_key);
  return mad;
}

MadBuffer build_lid_smp(uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint64_t tid,
                        std::span<const uint8_t> payload, uint64_t m_key) {
  return encoded(smp_request(mgmt_class::subn_lid_routed, method, attr_id, attr_mod, tid, payload, m_key));
}

}  // namespace ibsm::wire
