#include "sm/multicast/mft_programming.h"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "mad/wire/multicast_forwarding_table.h"
#include "mad/wire/port_info.h"
#include "mad/wire/smp.h"
#include "mad/wire/switch_info.h"
#include "sm/sweep/m_key_paths.h"
#include "sm/sweep/smp_issuer.h"

namespace ibsm {
namespace {

constexpr uint32_t kEntries = wire::mft_entries_per_block;  // MLIDs per block
constexpr uint32_t kNoBlock = UINT32_MAX;
// SwitchInfo:MulticastFDBTop with no entry in use (IBA 14.2.5.4).
constexpr uint16_t kNoMulticastTop = Lid::multicast_base - 1;

using Masks = std::array<uint16_t, kEntries>;

uint32_t block_of(uint16_t mlid) { return (uint32_t{mlid} - Lid::multicast_base) / kEntries; }
uint16_t mlid_of(uint32_t block, uint32_t i) {
  return static_cast<uint16_t>(Lid::multicast_base + block * kEntries + i);
}

// The 16-bit masks of one block and position from a switch's entries.
Masks block_masks(const MulticastTables::Entries& entries, uint32_t block, uint8_t position) {
  Masks m{};
  for (auto it = entries.lower_bound(mlid_of(block, 0)); it != entries.end() && it->first <= mlid_of(block, kEntries - 1);
       ++it) {
    m[it->first - mlid_of(block, 0)] = it->second.position_bits(position);
  }
  return m;
}

void store_block(MulticastTables::Entries& entries, uint32_t block, uint8_t position, const Masks& masks) {
  for (uint32_t i = 0; i < kEntries; ++i) {
    const uint16_t mlid = mlid_of(block, i);
    auto it = entries.find(mlid);
    PortMask m = it == entries.end() ? PortMask{} : it->second;
    m.set_position_bits(position, masks[i]);
    if (m.empty()) {
      if (it != entries.end()) entries.erase(it);
    } else {
      entries[mlid] = m;
    }
  }
}

// One switch to program.
struct Target {
  NodeIndex node;
  Guid guid;
  const DrPath* path = nullptr;
  uint8_t positions = 1;
  uint32_t cap_blocks = 0;  // blocks within MulticastFDBCap
  bool top_supported = false;
  SwitchMemory* mem = nullptr;
  MulticastTables::Entries want;  // within the cap
  bool readable = true;           // false: its memory could not be read; left alone
  uint32_t force_first = kNoBlock, force_last = 0;  // blocks above the old top: written whatever memory says
  bool changed = false;
};

class MftProgrammer {
 public:
  MftProgrammer(MadDispatcher& d, SweepState& state, const SubnetSnapshot& subnet, const MulticastTables& want,
                LogSink& log, const MftProgramOptions& options)
      : state_(state), subnet_(subnet), want_(want), log_(log), options_(options),
        smp_(d, [this](const SmpSubject& what, const DrPath& path, const SmpFailure& failure) {
          problem(fmt::format("{} (dr path {}): {}", what.text(), path, failure.why));
        }) {
    smp_.set_m_keys(&m_keys_);
  }

  MftProgramming run() {
    for (Lid mlid : options_.only_mlids)
      if (mlid.is_multicast()) only_blocks_.insert(block_of(mlid.value));
    collect();
    read_unknown();
    barrier("read");
    write_phase(true);
    barrier("remove");
    write_phase(false);
    set_tops();
    barrier("add");
    for (const Target& t : targets_) r_.switches_changed += t.changed;
    log(log_, LogLevel::info, Subsystem::sweep,
        "mft programming: {} blocks read, {} blocks set ({} removing ports) on {} switches", r_.blocks_read,
        r_.blocks_sent, r_.removal_blocks_sent, r_.switches_changed);
    return std::move(r_);
  }

 private:
  void problem(std::string line) {
    log(log_, LogLevel::error, Subsystem::sweep, "{}", line);
    r_.problems.push_back(std::move(line));
  }
  void barrier(std::string_view phase) {
    smp_.run();
    if (options_.at_barrier) options_.at_barrier(phase);
  }

  void collect() {
    const Fabric& f = subnet_.fabric;
    for (uint32_t i = 0; i < f.node_count(); ++i) {
      const Node& node = f.node(NodeIndex{i});
      if (!node.is_switch() || i >= subnet_.paths.size()) continue;
      Target t;
      t.node = NodeIndex{i};
      t.guid = node.node_guid;
      t.path = &subnet_.paths[i];
      t.positions = static_cast<uint8_t>(node.num_ports / wire::mft_ports_per_position + 1);
      const uint16_t cap = i < subnet_.switch_info.size() ? subnet_.switch_info[i].multicast_fdb_cap : 0;
      t.cap_blocks = (uint32_t{cap} + kEntries - 1) / kEntries;
      t.top_supported = subnet_.has_port_info(t.node, 0) &&
                        (subnet_.port_info[i][0].capability_mask & wire::port_cap::is_multicast_fdb_top_supported);
      t.mem = &state_.switches[node.node_guid];
      size_t beyond = 0;
      for (const auto& [mlid, ports] : want_.of(t.node)) {
        if (block_of(mlid) < t.cap_blocks) {
          t.want.emplace(mlid, ports);
        } else {
          ++beyond;
        }
      }
      if (beyond != 0) {
        problem(fmt::format("switch {}: {} multicast groups beyond its multicast fdb cap {}", t.guid, beyond, cap));
      }
      targets_.push_back(std::move(t));
    }
  }

  // A switch the SM has no memory of: its blocks up to the cap (or its
  // MulticastFDBTop) are read, so only what differs is set.
  void read_unknown() {
    struct Pending {
      Target* target;
      bool answered = false;
    };
    std::vector<std::unique_ptr<Pending>> pending;
    for (Target& t : targets_) {
      if (t.mem->mft_known) continue;
      t.mem->mft.clear();
      uint32_t blocks = t.cap_blocks;
      if (t.top_supported) {
        const uint16_t top = t.node.value < subnet_.switch_info.size()
                                 ? subnet_.switch_info[t.node.value].multicast_fdb_top
                                 : kNoMulticastTop;
        t.mem->mft_top = top;
        blocks = top < Lid::multicast_base ? 0 : std::min(blocks, block_of(top) + 1);
      }
      for (uint32_t b = 0; b < blocks; ++b) {
        for (uint8_t p = 0; p < t.positions; ++p) {
          ++r_.blocks_read;
          pending.push_back(std::make_unique<Pending>(Pending{&t}));
          Pending* track = pending.back().get();
          smp_.get(*t.path, wire::smp_attr::multicast_forwarding_table, wire::mft_attr_mod(b, p),
                   fmt::format("MFT block {} position {} get on switch {}", b, p, t.guid),
                   [track, b, p](std::span<const uint8_t> data) {
                     auto block = wire::decode_multicast_forwarding_table(data);
                     if (!block.ok()) return;
                     store_block(track->target->mem->mft, b, p, block->port_masks);
                     track->answered = true;
                   });
        }
      }
      t.mem->mft_known = true;
    }
    smp_.run();
    for (const auto& p : pending) {
      if (p->answered) continue;
      // Not knowing what it holds, the SM cannot change it without risking
      // a loop: the switch is left alone and read again next time.
      p->target->readable = false;
      p->target->mem->mft_known = false;
    }
  }

  // Phase 1 (removing): blocks with an entry that loses ports, written as
  // held AND wanted. Phase 2: blocks that still differ, written as wanted
  // (held for the MLIDs whose phase-1 Set failed somewhere).
  void write_phase(bool removing) {
    struct Sent {
      Target* target;
      uint32_t block;
      bool answered = false;
    };
    std::vector<std::unique_ptr<Sent>> sent;
    for (Target& t : targets_) {
      if (!t.readable) continue;
      if (!removing) plan_top(t);
      std::set<uint32_t> blocks;
      for (const auto& e : t.mem->mft) blocks.insert(block_of(e.first));
      for (const auto& e : t.want) blocks.insert(block_of(e.first));
      for (uint32_t b = t.force_first; b <= t.force_last && b < t.cap_blocks; ++b) blocks.insert(b);
      if (!only_blocks_.empty()) {
        std::erase_if(blocks, [&](uint32_t b) { return !only_blocks_.contains(b) && !(b >= t.force_first && b <= t.force_last); });
      }
      for (uint32_t b : blocks) {
        if (b >= t.cap_blocks) continue;  // held beyond the cap: cannot be
        const bool forced = b >= t.force_first && b <= t.force_last;
        for (uint8_t p = 0; p < t.positions; ++p) {
          const Masks held = block_masks(t.mem->mft, b, p);
          Masks want = block_masks(t.want, b, p);
          Masks write{};
          bool needed = false;
          for (uint32_t i = 0; i < kEntries; ++i) {
            if (removing) {
              write[i] = held[i] & want[i];
              needed |= (held[i] & ~want[i]) != 0;
            } else {
              if (unsafe_.contains(mlid_of(b, i))) want[i] = held[i];
              write[i] = want[i];
              needed |= held[i] != want[i];
            }
          }
          if (!needed && !(forced && !removing)) continue;
          ++r_.blocks_sent;
          if (removing) ++r_.removal_blocks_sent;
          t.changed = true;
          sent.push_back(std::make_unique<Sent>(Sent{&t, b}));
          Sent* track = sent.back().get();
          wire::MulticastForwardingTable block;
          block.port_masks = write;
          smp_.set(*t.path, wire::smp_attr::multicast_forwarding_table, wire::mft_attr_mod(b, p), block,
                   fmt::format("MFT block {} position {} set on switch {}", b, p, t.guid),
                   [this, track, b, p](std::span<const uint8_t> data) {
                     auto answer = wire::decode_multicast_forwarding_table(data);
                     if (!answer.ok()) return;
                     store_block(track->target->mem->mft, b, p, answer->port_masks);
                     track->answered = true;
                     if (options_.after_block) options_.after_block();
                   });
        }
      }
    }
    smp_.run();
    for (const auto& s : sent) {
      if (s->answered) continue;
      s->target->mem->mft_known = false;  // what it holds now is unknown
      if (removing)
        for (uint32_t i = 0; i < kEntries; ++i) unsafe_.insert(mlid_of(s->block, i));
    }
  }

  // Where the switch has a MulticastFDBTop: the top the entries need, and
  // the blocks above the old top, never read, to write before raising it.
  void plan_top(Target& t) {
    if (!t.top_supported) return;
    const uint16_t top = t.want.empty() ? kNoMulticastTop : t.want.rbegin()->first;
    wanted_top_[t.node.value] = top;
    if (top <= t.mem->mft_top || top < Lid::multicast_base) return;
    t.force_first = t.mem->mft_top < Lid::multicast_base ? 0 : block_of(t.mem->mft_top) + 1;
    t.force_last = block_of(top);
  }

  void set_tops() {
    smp_.run();  // the entries are in place before the top exposes them
    for (Target& t : targets_) {
      auto it = wanted_top_.find(t.node.value);
      if (it == wanted_top_.end() || it->second == t.mem->mft_top || !t.mem->mft_known) continue;
      wire::SwitchInfo si = subnet_.switch_info[t.node.value];
      si.port_state_change = false;  // a 1 would clear it; the sweep owns that
      si.multicast_fdb_top = it->second;
      ++r_.switch_info_sets;
      smp_.set(*t.path, wire::smp_attr::switch_info, 0, si,
               fmt::format("SwitchInfo (MulticastFDBTop {:#06x}) set on switch {}", it->second, t.guid),
               [mem = t.mem](std::span<const uint8_t> data) {
                 auto answer = wire::decode_switch_info(data);
                 if (answer.ok()) mem->mft_top = answer->multicast_fdb_top;
               });
    }
  }

  SweepState& state_;
  const SubnetSnapshot& subnet_;
  const MulticastTables& want_;
  LogSink& log_;
  const MftProgramOptions& options_;
  MKeyPaths m_keys_ = m_key_paths(subnet_);  // its SMPs carry the keys the switches hold (IBA 14.2.4)
  SmpIssuer smp_;
  MftProgramming r_;
  std::vector<Target> targets_;
  std::set<uint32_t> only_blocks_;  // empty: every block
  std::set<uint16_t> unsafe_;  // MLIDs whose phase-1 Set failed on some switch
  std::unordered_map<uint32_t, uint16_t> wanted_top_;  // by NodeIndex value
};

}  // namespace

Result<MftProgramming> program_mfts(MadDispatcher& dispatcher, SweepState& state, const SubnetSnapshot& subnet,
                                    const MulticastTables& want, LogSink& log, const MftProgramOptions& options) {
  MftProgrammer programmer(dispatcher, state, subnet, want, log, options);
  return programmer.run();
}

}  // namespace ibsm
