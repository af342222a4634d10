#include "routing/repair_check.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "routing/graph.h"

namespace ibsm::routing {

namespace {

// Where a port's cable leads, as the check compares it across the fabrics:
// nowhere (no usable cable), or the far end's node GUID and port.
struct CableEnd {
  Guid node;
  uint8_t port = 0;
  bool usable = false;
  bool operator==(const CableEnd&) const = default;
};

CableEnd cable_end(const Fabric& f, PortRef p) {
  if (!cable_usable(f, p)) return {};
  const Port& port = f.node(p.node).port(p.port);
  return {f.node(port.remote_node).node_guid, port.remote_port, true};
}

// By LID: the end port (CA or router port) that owns it and where its
// cable leads, by GUIDs. Built by walking the nodes, with no lookup by GUID:
// at 42k LIDs a hash lookup per end port cost more than the walks checked.
struct LidOwner {
  Guid node;
  uint8_t port = 0;
  uint8_t lmc = 0;
  CableEnd cable;
  bool operator==(const LidOwner&) const = default;
};

std::vector<LidOwner> lid_owners(const Fabric& f) {
  std::vector<LidOwner> owners;
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& node = f.node(NodeIndex{i});
    if (node.is_switch()) continue;
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const Port& port = node.port(p);
      if (port.base_lid.value == 0) continue;
      const LidOwner owner{node.node_guid, p, port.lmc, cable_end(f, {NodeIndex{i}, p})};
      for (uint32_t k = 0; k < (1u << port.lmc); ++k) {
        const uint32_t lid = port.base_lid.value + k;
        if (owners.size() <= lid) owners.resize(lid + 1);
        owners[lid] = owner;
      }
    }
  }
  return owners;
}

class RepairWalker {
 public:
  RepairWalker(const Fabric& before, const Fabric& now, const SharedLfts& given, const SharedLfts& repaired,
               size_t max_problems)
      : before_(before), now_(now), given_(given), repaired_(repaired), max_problems_(max_problems) {
    for (uint32_t i = 0; i < now_.node_count(); ++i) {
      const Node& node = now_.node(NodeIndex{i});
      if (node.is_switch()) continue;
      for (uint8_t p = 1; p <= node.num_ports; ++p) {
        const Port& port = node.port(p);
        for (uint32_t k = 0; port.base_lid.value != 0 && k < (1u << port.lmc); ++k) {
          const uint32_t lid = port.base_lid.value + k;
          if (owner_.size() <= lid) owner_.resize(lid + 1);
          owner_[lid] = PortRef{NodeIndex{i}, p};
        }
      }
    }
    state_.assign(now_.node_count(), kUnknown);
  }

  RepairCheck run() {
    std::vector<std::pair<uint16_t, uint32_t>> starts;  // (LID, switch node)
    std::vector<bool> lid_changed(owner_.size(), false);
    for (uint32_t s = 0; s < now_.node_count(); ++s) {
      const Node& node = now_.node(NodeIndex{s});
      if (!node.is_switch()) continue;
      const std::vector<bool> changed_port = changed_ports(NodeIndex{s});
      const bool any_port = std::find(changed_port.begin(), changed_port.end(), true) != changed_port.end();
      const bool same = s < given_.size() && repaired_.same_row(s, given_, s);
      if (same && !any_port) continue;
      const LftRow& now_row = repaired_[s];
      const LftRow* was_row = s < given_.size() ? &given_[s] : nullptr;
      // A copied row differs from the given one in a few places: equal
      // blocks of 64 entries (a cache line) are passed over whole.
      const auto equal_block = [&](uint32_t first, uint32_t last) {
        return !same && !any_port && was_row && last <= was_row->size() && last <= now_row.size() &&
               std::equal(now_row.begin() + first, now_row.begin() + last, was_row->begin() + first);
      };
      for (uint32_t lid = 1; lid < owner_.size(); ++lid) {
        if (lid % kBlock == 0 && equal_block(lid, std::min<uint32_t>(lid + kBlock, owner_.size()))) {
          lid += kBlock - 1;
          continue;
        }
        if (!owner_[lid].node.valid()) continue;
        const uint8_t out = lft_entry(now_row, lid);
        bool start = false;
        if (!same) {
          const uint8_t was = was_row ? lft_entry(*was_row, lid) : kNoRoute;
          if (was != out) {
            ++out_.changed_entries;
            lid_changed[lid] = true;
            start = true;
          }
        }
        if (!start && out < changed_port.size() && changed_port[out]) start = true;
        if (start) starts.emplace_back(static_cast<uint16_t>(lid), s);
      }
    }
    out_.changed_lids = static_cast<uint64_t>(std::count(lid_changed.begin(), lid_changed.end(), true));
    std::sort(starts.begin(), starts.end());
    for (size_t i = 0; i < starts.size();) {
      const uint16_t lid = starts[i].first;
      for (; i < starts.size() && starts[i].first == lid; ++i) walk(NodeIndex{starts[i].second}, lid);
      for (NodeIndex n : touched_) state_[n.value] = kUnknown;
      touched_.clear();
    }
    return std::move(out_);
  }

 private:
  enum : uint8_t { kUnknown, kOnPath, kDelivered, kDropped, kLoop };
  static constexpr uint32_t kBlock = 64;

  // By port number: whether switch `s`'s cable there differs from the one
  // its namesake had before (a switch new to the fabric: every cabled port).
  std::vector<bool> changed_ports(NodeIndex s) {
    const Node& node = now_.node(s);
    std::vector<bool> changed(node.num_ports + 1u, false);
    const auto was = before_.find_by_node_guid(node.node_guid);
    for (uint8_t p = 1; p <= node.num_ports; ++p) {
      const CableEnd now_end = cable_end(now_, {s, p});
      const bool had = was && p <= before_.node(*was).num_ports;
      const CableEnd before_end = had ? cable_end(before_, {*was, p}) : CableEnd{};
      changed[p] = now_end != before_end;
      out_.changed_ports += changed[p];
    }
    return changed;
  }

  // Follows switch s's way to `lid` to its end, and every switch on it.
  void walk(NodeIndex s, uint16_t lid) {
    ++out_.walks;
    path_.clear();
    NodeIndex at = s;
    uint8_t end = kDropped;
    std::string why;
    while (true) {
      const uint8_t known = state_[at.value];
      if (known != kUnknown) {
        end = known == kOnPath ? uint8_t{kLoop} : known;
        break;
      }
      state_[at.value] = kOnPath;
      touched_.push_back(at);
      path_.push_back(at);
      const Node& node = now_.node(at);
      const LftRow& row = repaired_[at.value];
      const uint8_t out = lft_entry(row, lid);
      if (out == 0 || out == kNoRoute || out > node.num_ports) {
        why = fmt::format("no route at switch {}", node.node_guid);
        break;
      }
      if (!cable_usable(now_, {at, out})) {
        why = fmt::format("switch {} port {} has no usable cable", node.node_guid, out);
        break;
      }
      const Port& port = node.port(out);
      const Node& next = now_.node(port.remote_node);
      if (next.is_switch()) {
        at = port.remote_node;
        continue;
      }
      const PortRef owner = owner_[lid];
      if (owner.node == port.remote_node && owner.port == port.remote_port) {
        end = kDelivered;
      } else {
        why = fmt::format("delivered to {} port {}", next.node_guid, port.remote_port);
      }
      break;
    }
    for (NodeIndex n : path_) state_[n.value] = end;
    switch (end) {
      case kDelivered: ++out_.delivered; return;
      case kLoop: ++out_.looping; why = "looping"; break;
      default: ++out_.unreachable; break;
    }
    if (out_.problems.size() < max_problems_) {
      out_.problems.push_back(fmt::format("switch {} -> lid {}: {}", now_.node(s).node_guid, lid, why.empty() ? "dropped" : why));
    }
  }

  const Fabric& before_;
  const Fabric& now_;
  const SharedLfts& given_;
  const SharedLfts& repaired_;
  size_t max_problems_;
  std::vector<PortRef> owner_;   // by LID: the end port that owns it (node invalid: none)
  std::vector<uint8_t> state_;   // by node: where its way to the current LID ends
  std::vector<NodeIndex> touched_, path_;
  RepairCheck out_;
};

}  // namespace

std::string RepairCheck::to_string() const {
  std::string out = fmt::format("{} entries of {} LIDs and {} ports changed: {}/{} walks from them delivered",
                                changed_entries, changed_lids, changed_ports, delivered, walks);
  if (!all_delivered()) out += fmt::format(" ({} unreachable, {} looping)", unreachable, looping);
  return out;
}

std::optional<RepairCheck> check_repaired_routes(const Fabric& before, const Fabric& now, const SharedLfts& given,
                                                 const SharedLfts& repaired, size_t max_problems) {
  // Every end port with the same LIDs and the same cable, none come or gone.
  if (lid_owners(before) != lid_owners(now)) return std::nullopt;
  return RepairWalker(before, now, given, repaired, max_problems).run();
}

}  // namespace ibsm::routing
