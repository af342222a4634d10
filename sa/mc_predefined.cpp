#include "sa/mc_predefined.h"

#include <algorithm>

#include <fmt/format.h>

#include "mad/wire/gid_text.h"
#include "mad/wire/p_key_table.h"
#include "mad/wire/sa/path_selector.h"

namespace ibsm::sa {
namespace {

constexpr uint16_t ipv4_signature = 0x401B;
constexpr uint16_t ipv6_signature = 0x601B;

uint16_t mgid_signature(const wire::Gid& mgid) { return static_cast<uint16_t>(mgid.raw[2] << 8 | mgid.raw[3]); }
uint16_t mgid_pkey(const wire::Gid& mgid) { return static_cast<uint16_t>(mgid.raw[4] << 8 | mgid.raw[5]); }
void set_mgid_pkey(wire::Gid& mgid, uint16_t pkey) {
  mgid.raw[4] = static_cast<uint8_t>(pkey >> 8);
  mgid.raw[5] = static_cast<uint8_t>(pkey);
}

// What a group is made of: the partition's flags with a group line's on top.
struct Flags {
  uint8_t mtu = default_group_mtu, rate = default_group_rate, sl = 0, tclass = 0;
  uint16_t scope_mask = 0;
  uint32_t q_key = 0, flow_label = 0;
};

Flags partition_flags(const PartitionGroupFlags& f) {
  Flags out;
  out.mtu = f.mtu.value_or(default_group_mtu);
  out.rate = f.rate.value_or(default_group_rate);
  out.sl = f.sl.value_or(0);
  out.tclass = f.tclass.value_or(0);
  out.scope_mask = f.scope_mask;
  out.q_key = f.q_key.value_or(0);
  out.flow_label = f.flow_label.value_or(0);
  return out;
}

class Builder {
 public:
  explicit Builder(uint8_t packet_life_time) : life_(packet_life_time) {}

  // One group per scope of `flags` (none: the MGID's own), at `pkey`.
  void add(wire::Gid mgid, const Flags& flags, uint16_t pkey) {
    if (flags.scope_mask == 0) {
      add_one(mgid, flags, pkey);
      return;
    }
    for (uint8_t scope = 1; scope < 16; ++scope) {
      if ((flags.scope_mask & (1u << scope)) == 0) continue;
      mgid.raw[1] = static_cast<uint8_t>((mgid.raw[1] & 0xF0) | scope);
      add_one(mgid, flags, pkey);
    }
  }
  PredefinedGroups out;

 private:
  void add_one(const wire::Gid& mgid, const Flags& flags, uint16_t pkey) {
    if (std::any_of(out.groups.begin(), out.groups.end(), [&](const auto& g) { return g.mgid == mgid; })) return;
    wire::McMemberRecord r;
    r.mgid = mgid;
    r.q_key = flags.q_key;
    r.mtu_selector = wire::sa_selector::exactly;
    r.mtu = flags.mtu;
    r.tclass = flags.tclass;
    r.p_key = pkey | wire::p_key_full_member_bit;
    r.rate_selector = wire::sa_selector::exactly;
    r.rate = flags.rate;
    r.packet_life_time_selector = wire::sa_selector::exactly;
    r.packet_life_time = life_;
    r.sl = flags.sl;
    r.flow_label = flags.flow_label;
    r.scope = mgid_scope(mgid);
    r.hop_limit = r.scope == link_local_scope ? 0 : 0xFF;
    out.groups.push_back(r);
  }
  uint8_t life_;
};

wire::Gid broadcast_mgid(uint16_t pkey) {
  wire::Gid g;
  g.raw = {0xff, 0x10 | link_local_scope, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  set_mgid_pkey(g, pkey | wire::p_key_full_member_bit);
  return g;
}

void add_partition(Builder& b, const Partition& p) {
  const Flags base = partition_flags(p.flags);
  if (p.ipoib) {
    Flags f = base;
    if (f.q_key == 0) f.q_key = ipoib_q_key;
    b.add(broadcast_mgid(p.pkey), f, p.pkey);
  }
  for (const PartitionGroup& line : p.groups) {
    wire::Gid mgid{line.mgid};
    Flags f = base;
    f.tclass = line.flags.tclass.value_or(0);
    if (line.flags.mtu) f.mtu = *line.flags.mtu;
    if (line.flags.rate) f.rate = *line.flags.rate;
    if (line.flags.sl) f.sl = *line.flags.sl;
    if (line.flags.q_key) f.q_key = *line.flags.q_key;
    if (line.flags.flow_label) f.flow_label = *line.flags.flow_label;
    if (line.flags.scope_mask != 0) f.scope_mask = line.flags.scope_mask;
    const uint16_t sig = mgid_signature(mgid);
    if (sig == ipv4_signature || sig == ipv6_signature) {
      const std::string name = wire::format_gid(mgid.raw);
      const uint16_t named = mgid_pkey(mgid) & ~wire::p_key_full_member_bit;
      if (mgid != broadcast_mgid(wire::default_partition) && mgid_pkey(mgid) != 0 && named != p.pkey) {
        b.out.skipped.push_back(fmt::format("line {}: ip group {} names p_key 0x{:04x}, not its partition's 0x{:04x}",
                                            line.line, name, mgid_pkey(mgid), p.pkey));
        continue;
      }
      if (f.mtu != base.mtu || f.rate != base.rate) {
        b.out.skipped.push_back(fmt::format(
            "line {}: ip group {} has mtu {} rate {}, its partition's broadcast group mtu {} rate {}", line.line, name,
            f.mtu, f.rate, base.mtu, base.rate));
        continue;
      }
      set_mgid_pkey(mgid, p.pkey | wire::p_key_full_member_bit);
      if (f.q_key == 0) f.q_key = ipoib_q_key;
    }
    b.add(mgid, f, p.pkey);
  }
}

}  // namespace

PredefinedGroups predefined_groups(const PartitionConfig* config, uint8_t packet_life_time) {
  Builder b(packet_life_time);
  if (config == nullptr) {
    Partition def;
    def.name = "Default";
    def.pkey = wire::default_partition;
    def.ipoib = true;
    add_partition(b, def);
  } else {
    for (const Partition& p : config->partitions) add_partition(b, p);
  }
  return std::move(b.out);
}

}  // namespace ibsm::sa
