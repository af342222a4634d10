// Subnet management packets (IBA 14.2.1): LID-routed (class 0x01, 14.2.1.1)
// and directed-route (class 0x81, 14.2.1.2). Both share the common header;
// directed route splits the Status word into the D bit and a 15-bit status,
// uses ClassSpecific for HopPointer and HopCount, and adds DrSLID, DrDLID and
// the two 64-byte path arrays.
//
//  bytes 0-23   common MAD header (for DR: byte 4 bit 7 = D, 6 = HopPointer, 7 = HopCount)
//  bytes 24-31  M_Key
//  bytes 32-35  DR: DrSLID, DrDLID (LID-routed: reserved)
//  bytes 64-127 SMP data (the attribute)
//  bytes 128-191 DR: InitialPath   bytes 192-255 DR: ReturnPath
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "mad/base/status.h"
#include "mad/base/types.h"
#include "mad/wire/constants.h"
#include "mad/wire/field.h"
#include "mad/wire/mad_header.h"

namespace ibsm::wire {

namespace smp_fields {
inline constexpr Field m_key{192, 64, "M_Key"};
inline constexpr Field data{512, 512, "SMPData"};
// Directed route only.
inline constexpr Field direction{32, 1, "D"};
inline constexpr Field dr_status{33, 15, "Status"};
inline constexpr Field hop_pointer{48, 8, "HopPointer"};
inline constexpr Field hop_count{56, 8, "HopCount"};
inline constexpr Field dr_slid{256, 16, "DrSLID"};
inline constexpr Field dr_dlid{272, 16, "DrDLID"};
inline constexpr Field initial_path{1024, 512, "InitialPath"};
inline constexpr Field return_path{1536, 512, "ReturnPath"};
}  // namespace smp_fields

// The field tables of the two SMP layouts, in wire order.
inline constexpr std::array lid_smp_field_table{
    mad_fields::base_version, mad_fields::mgmt_class, mad_fields::class_version, mad_fields::method,
    mad_fields::status,       mad_fields::transaction_id, mad_fields::attribute_id,
    mad_fields::attribute_modifier, smp_fields::m_key, smp_fields::data};
inline constexpr std::array dr_smp_field_table{
    mad_fields::base_version,   mad_fields::mgmt_class,      mad_fields::class_version,
    mad_fields::method,         smp_fields::direction,       smp_fields::dr_status,
    smp_fields::hop_pointer,    smp_fields::hop_count,       mad_fields::transaction_id,
    mad_fields::attribute_id,   mad_fields::attribute_modifier, smp_fields::m_key,
    smp_fields::dr_slid,        smp_fields::dr_dlid,         smp_fields::data,
    smp_fields::initial_path,   smp_fields::return_path};

// Every field of an SMP, either layout.
struct Smp {
  uint8_t base_version = mad_base_version;
  uint8_t mgmt_class = mgmt_class::subn_lid_routed;
  uint8_t class_version = smp_class_version;
  uint8_t method = 0;
  uint16_t status = 0;       // LID-routed: all 16 bits; directed route: the low 15
  bool direction = false;    // DR: the D bit, set on the way back (IBA 14.2.2)
  uint8_t hop_pointer = 0;   // DR
  uint8_t hop_count = 0;     // DR
  uint64_t tid = 0;
  uint16_t attr_id = 0;
  uint32_t attr_mod = 0;
  uint64_t m_key = 0;
  uint16_t dr_slid = permissive_lid;  // DR
  uint16_t dr_dlid = permissive_lid;  // DR
  std::array<uint8_t, smp_data_size> data{};
  std::array<uint8_t, 64> initial_path{};  // DR
  std::array<uint8_t, 64> return_path{};   // DR

  bool directed() const { return mgmt_class == mgmt_class::subn_directed_route; }
  bool operator==(const Smp&) const = default;
};

// Writes all 256 bytes; for a LID-routed SMP the DR-only members are not
// written (their bytes are reserved and go out as zero).
void encode(const Smp& smp, std::span<uint8_t> mad);
// Reads an SMP of either class; rejects a buffer that is not 256 bytes or
// whose class is not an SMP class. No further checks: see parse_smp. For a
// LID-routed SMP the DR-only members keep their defaults.
Result<Smp> decode_smp(std::span<const uint8_t> mad);

// A validated SMP, read in place from the caller's buffer (which must outlive
// the view).
class SmpView {
 public:
  std::span<const uint8_t> bytes() const { return mad_; }
  bool directed() const;
  uint8_t mgmt_class() const;
  uint8_t method() const;
  bool is_response() const { return is_response_method(method()); }
  uint16_t status() const;  // directed route: without the D bit
  uint64_t tid() const;
  uint16_t attr_id() const;
  uint32_t attr_mod() const;
  uint64_t m_key() const;
  bool direction() const;  // DR only (false for LID-routed)
  uint8_t hop_pointer() const;
  uint8_t hop_count() const;
  uint16_t dr_slid() const;
  uint16_t dr_dlid() const;
  std::span<const uint8_t> data() const { return mad_.subspan(smp_data_offset, smp_data_size); }
  DrPath initial_path() const;  // hop_count() hops
  DrPath return_path() const;
  Smp to_smp() const;

 private:
  friend Result<SmpView> parse_smp(std::span<const uint8_t> mad);
  explicit SmpView(std::span<const uint8_t> mad) : mad_(mad) {}
  std::span<const uint8_t> mad_;
};

// Validates an SMP (IBA 14.2.1, 14.2.2): 256 bytes, base version 1, class
// 0x01 or 0x81, class version 1; for directed route also hop count <= 63 and
// hop pointer <= hop count + 1. A rejection names the reason.
Result<SmpView> parse_smp(std::span<const uint8_t> mad);

// A directed-route SMP from the SM along `path` (IBA 14.2.2.1): D = 0, hop
// pointer 0, hop count = path hops, DrSLID and DrDLID permissive (the whole
// route is directed). `payload` (at most 64 bytes) goes to the SMP data.
MadBuffer build_dr_smp(uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint64_t tid,
                       const DrPath& path, std::span<const uint8_t> payload = {},
                       uint64_t m_key = 0);
// The same, written into `mad` (all 256 bytes): a sender that keeps its MADs
// in place builds them there.
void write_dr_smp(std::span<uint8_t, mad_size> mad, uint8_t method, uint16_t attr_id, uint32_t attr_mod,
                  uint64_t tid, const DrPath& path, std::span<const uint8_t> payload = {}, uint64_t m_key = 0);
// A LID-routed SMP; the destination LID lives in the transport address.
MadBuffer build_lid_smp(uint8_t method, uint16_t attr_id, uint32_t attr_mod, uint64_t tid,
                        std::span<const uint8_t> payload = {}, uint64_t m_key = 0);

// The SMP data of a whole MAD, to encode an attribute into or decode it from.
inline std::span<uint8_t> smp_data(MadBuffer& mad) { return std::span(mad).subspan(smp_data_offset, smp_data_size); }
inline std::span<const uint8_t> smp_data(const MadBuffer& mad) {
  return std::span(mad).subspan(smp_data_offset, smp_data_size);
}

}  // namespace ibsm::wire
