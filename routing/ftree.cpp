#include "routing/ftree.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>


namespace ibsm::routing {

namespace {


std::string describe(const Fabric& fabric, NodeIndex node) {
  const Node& n = fabric.node(node);
  if (n.name.empty()) return fmt::format("switch {}", n.node_guid);
  return fmt::format("switch {} ({})", n.name, n.node_guid);
}

// A leaf: one of the switch's usable cables leads to a CA (or a router).
bool has_endpoints(const Fabric& fabric, NodeIndex node) {
  const Node& n = fabric.node(node);
  for (unsigned p = 1; p <= n.num_ports; ++p) {
    const PortRef here{node, static_cast<uint8_t>(p)};
    if (!cable_usable(fabric, here)) continue;
    if (!fabric.node(n.port(here.port).remote_node).is_switch()) return true;
  }
  return false;
}

uint8_t remote_port(const RoutingGraph& graph, SwitchId sw, uint32_t edge) {
  return graph.fabric().node(graph.node_of(sw)).port(graph.edge_port(edge)).remote_port;
}

}  // namespace

Result<FatTreeLevels> rank_fat_tree(const RoutingGraph& graph) {
  const Fabric& fabric = graph.fabric();
  const uint32_t switches = graph.switch_count();
  FatTreeLevels t;
  t.level.assign(switches, FatTreeLevels::kNoLevel);
  std::vector<SwitchId> queue;
  queue.reserve(switches);
  for (SwitchId sw = 0; sw < switches; ++sw) {
    if (!has_endpoints(fabric, graph.node_of(sw))) continue;
    t.level[sw] = 0;
    queue.push_back(sw);
  }
  t.leaves = static_cast<uint32_t>(queue.size());
  if (t.leaves == 0) {
    return failed_precondition_error(
        "not a fat tree: no switch has a CA, so there is no leaf level to rank the switches from");
  }
  for (size_t i = 0; i < queue.size(); ++i) {
    const SwitchId sw = queue[i];
    for (uint32_t e = graph.edge_begin(sw); e < graph.edge_begin(sw + 1); ++e) {
      const SwitchId next = graph.edge_target(e);
      if (t.level[next] != FatTreeLevels::kNoLevel) continue;
      t.level[next] = t.level[sw] + 1;
      queue.push_back(next);
    }
  }
  // Breadth-first levels of neighbours differ by at most one, so the one way
  // to break the tree is a cable inside a level.
  for (const SwitchId sw : queue) {
    const uint32_t level = t.level[sw];
    t.levels = std::max(t.levels, level + 1);
    for (uint32_t e = graph.edge_begin(sw); e < graph.edge_begin(sw + 1); ++e) {
      const SwitchId next = graph.edge_target(e);
      if (t.level[next] != level) continue;
      const std::string here = describe(fabric, graph.node_of(sw));
      const std::string there = describe(fabric, graph.node_of(next));
      if (level == 0) {
        return failed_precondition_error(fmt::format(
            "not a fat tree: {} port {} and {} port {} both have CAs and are cabled to each other; CAs hang "
            "off leaf switches only, and no cable joins two leaves",
            here, graph.edge_port(e), there, remote_port(graph, sw, e)));
      }
      return failed_precondition_error(fmt::format(
          "not a fat tree: the cable between {} port {} and {} port {} joins two switches of level {} (counted "
          "in cables up from the CA-attached leaf switches); a fat tree cables adjacent levels only",
          here, graph.edge_port(e), there, remote_port(graph, sw, e), level));
    }
  }
  return t;
}

namespace {

// a % d for the rotation counters below, which are mostly below d already.
inline uint32_t wrap(uint32_t a, uint32_t d) { return a < d ? a : a % d; }

// The cables between a switch and one neighbour. A switch's groups are up
// groups first (toward the level above), then down groups, each in the
// order of its first port; a group's cables are in the order of the lower
// switch's ports, so both ends list them alike and a cable's position in
// the group names the same cable from either end.
struct Group {
  SwitchId target = kNoSwitch;
  uint32_t cable_begin = 0;  // into cable_port_
  uint32_t cables = 0;
  uint32_t reverse = kNoIndex;  // the target's group back to this switch (global index)
};

// How a switch handles the LIDs of one home switch (the switch they hang
// off): fixed_[switch * homes + home]. Values below kEscape are a way down
// (see Way): the switch is above the home switch.
constexpr uint16_t kEscape = 0xFFFB;      // no up/down path: toward the hub leaf (see fill_fixed)
constexpr uint16_t kAtHome = 0xFFFC;      // the LIDs hang off this switch
constexpr uint16_t kUpChecked = 0xFFFD;   // climbs; some of its parents have no up/down path, avoid them
constexpr uint16_t kUp = 0xFFFE;          // climbs; every parent has an up/down path
constexpr uint16_t kUnrouted = 0xFFFF;    // no route

// Whether a switch whose fixed_ entry is `v` reaches the home by up/down.
inline bool routable(uint16_t v) { return v == kAtHome || v == kUp || v == kUpChecked || v < kEscape; }

// A way out of a switch toward one neighbour, as fixed_ and up_toward_
// hold it: below kGroupFlag the port itself (one cable to that neighbour),
// else kGroupFlag | the local index of a group of parallel cables, which
// LIDs take in turn. The port saves the lookups through the group for
// the common single cable.
constexpr uint16_t kGroupFlag = 0x100;
constexpr uint16_t kNoWay = 0xFFFF;
constexpr uint16_t kNoHome = 0xFFFF;

// What a switch of one level needs to know about one LID: the switch it
// hangs off, the top switch of its chain, and which up group and which
// cables of a group the chain took at that level; for levels the chain does
// not cross, a counter that takes turns instead. A switch of that level uses
// them to pick its own up group (when it does not reach the chain's top
// switch) and the cable within a group.
struct LidRecord {
  uint16_t home = kNoHome;  // home index
  uint16_t top = 0;         // top switch index
  uint8_t port = 0;         // the home switch's port toward the LID's owner (0: the switch itself)
  uint8_t group = 0;        // up group the chain took at this level
  uint8_t down_cable = 0;   // cable of the chain's step down from this level
  uint8_t up_cable = 0;     // cable of the chain's step up from this level
};

// Loads of one kind of LID (CA or switch): LIDs whose chain came down a
// group, and a cable; and per level and position of a cable among a
// switch's up cables, how many chains took that position anywhere.
struct Loads {
  std::vector<uint32_t> group;
  std::vector<uint32_t> cable;
  std::vector<uint32_t> position;  // [level * kMaxPorts + position]
};
constexpr uint32_t kMaxPorts = 256;

class FatTreeRouter {
 public:
  FatTreeRouter(const RoutingGraph& graph, const FatTreeLevels& levels, UnicastTables& tables, LogSink& log)
      : graph_(graph),
        fabric_(graph.fabric()),
        switches_(graph.switch_count()),
        level_(levels.level),
        levels_(levels.levels),
        tables_(tables),
        log_(log) {}

  Status run() {
    build_groups();
    build_tops();
    leaf_order_ = leaf_order();
    build_homes();
    IBSM_RETURN_IF_ERROR(fill_fixed());
    fill_up_toward();
    build_chains();
    fill_tables();
    log(log_, LogLevel::info, Subsystem::routing,
        "ftree: {} levels, {} top switches, {} lids; {} switch-to-switch pairs have no up/down path and "
        "route through the hub leaf, {} have no route at all; {} switches reach no leaf",
        levels_, tops_.size(), lids_routed_, escapes_, holes_, unranked_);
    return {};
  }

 private:
  bool ranked(SwitchId sw) const { return level_[sw] != FatTreeLevels::kNoLevel; }
  uint32_t group_count(SwitchId sw) const { return group_begin_[sw + 1] - group_begin_[sw]; }
  const uint64_t* tops_of(SwitchId sw) const { return &tops_bits_[size_t{sw} * words_]; }

  void build_groups() {
    struct Item {
      uint32_t group;
      uint8_t lower_port;
      uint8_t port;
    };
    std::vector<uint32_t> slot(switches_, kNoIndex);
    std::vector<Item> items;
    group_begin_.assign(switches_ + 1, 0);
    up_count_.assign(switches_, 0);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      group_begin_[sw] = static_cast<uint32_t>(groups_.size());
      if (!ranked(sw)) {
        ++unranked_;
        continue;
      }
      items.clear();
      for (const bool up : {true, false}) {
        for (uint32_t e = graph_.edge_begin(sw); e < graph_.edge_begin(sw + 1); ++e) {
          const SwitchId t = graph_.edge_target(e);
          if ((level_[t] > level_[sw]) != up) continue;
          if (slot[t] == kNoIndex) {
            slot[t] = static_cast<uint32_t>(groups_.size());
            groups_.push_back({t, 0, 0, kNoIndex});
            if (up) ++up_count_[sw];
          }
          items.push_back({slot[t], up ? graph_.edge_port(e) : remote_port(graph_, sw, e), graph_.edge_port(e)});
        }
      }
      std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        return a.group != b.group ? a.group < b.group : a.lower_port < b.lower_port;
      });
      for (const Item& it : items) {
        Group& g = groups_[it.group];
        if (g.cables == 0) g.cable_begin = static_cast<uint32_t>(cable_port_.size());
        ++g.cables;
        cable_port_.push_back(it.port);
      }
      for (uint32_t g = group_begin_[sw]; g < groups_.size(); ++g) slot[groups_[g].target] = kNoIndex;
    }
    group_begin_[switches_] = static_cast<uint32_t>(groups_.size());
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      for (uint32_t g = group_begin_[sw]; g < group_begin_[sw + 1]; ++g) {
        const SwitchId t = groups_[g].target;
        for (uint32_t back = group_begin_[t]; back < group_begin_[t + 1]; ++back) {
          if (groups_[back].target == sw) {
            groups_[g].reverse = back;
            break;
          }
        }
        assert(groups_[g].reverse != kNoIndex);
      }
    }
  }

  // Top switches (no level above them), which of them each switch reaches
  // by climbing (a bitset per switch), the connected parts of the fabric,
  // and classes of switches that reach the same top switches.
  void build_tops() {
    by_level_.clear();
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      if (ranked(sw)) by_level_.push_back(sw);
    }
    std::stable_sort(by_level_.begin(), by_level_.end(),
                     [&](SwitchId a, SwitchId b) { return level_[a] < level_[b]; });
    top_index_.assign(switches_, kNoIndex);
    for (const SwitchId sw : by_level_) {
      if (up_count_[sw] != 0) continue;
      top_index_[sw] = static_cast<uint32_t>(tops_.size());
      tops_.push_back(sw);
    }
    words_ = (tops_.size() + 63) / 64;
    tops_bits_.assign(size_t{switches_} * words_, 0);
    for (auto it = by_level_.rbegin(); it != by_level_.rend(); ++it) {
      const SwitchId sw = *it;
      uint64_t* bits = &tops_bits_[size_t{sw} * words_];
      if (top_index_[sw] != kNoIndex) bits[top_index_[sw] / 64] |= uint64_t{1} << (top_index_[sw] % 64);
      for (uint32_t g = group_begin_[sw]; g < group_begin_[sw] + up_count_[sw]; ++g) {
        const uint64_t* above = tops_of(groups_[g].target);
        for (size_t w = 0; w < words_; ++w) bits[w] |= above[w];
      }
    }

    part_.assign(switches_, kNoIndex);
    std::vector<SwitchId> queue;
    for (const SwitchId start : by_level_) {
      if (part_[start] != kNoIndex) continue;
      const uint32_t part = static_cast<uint32_t>(part_members_.size());
      part_members_.emplace_back();
      part_tops_.resize(part_tops_.size() + words_, 0);
      queue.assign(1, start);
      part_[start] = part;
      for (size_t i = 0; i < queue.size(); ++i) {
        const SwitchId sw = queue[i];
        part_members_[part].push_back(sw);
        for (size_t w = 0; w < words_; ++w) part_tops_[part * words_ + w] |= tops_of(sw)[w];
        for (uint32_t g = group_begin_[sw]; g < group_begin_[sw + 1]; ++g) {
          const SwitchId t = groups_[g].target;
          if (part_[t] != kNoIndex) continue;
          part_[t] = part;
          queue.push_back(t);
        }
      }
    }

    std::vector<SwitchId> sorted = by_level_;
    const auto less = [&](SwitchId a, SwitchId b) {
      return std::lexicographical_compare(tops_of(a), tops_of(a) + words_, tops_of(b), tops_of(b) + words_);
    };
    std::sort(sorted.begin(), sorted.end(), less);
    class_.assign(switches_, kNoIndex);
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i == 0 || less(sorted[i - 1], sorted[i])) class_example_.push_back(sorted[i]);
      class_[sorted[i]] = static_cast<uint32_t>(class_example_.size() - 1);
    }
  }

  // The switches LIDs hang off that ftree routes to: ranked ones.
  void build_homes() {
    home_index_.assign(switches_, kNoIndex);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      if (!ranked(sw) || graph_.destinations_of(sw).empty()) continue;
      home_index_[sw] = static_cast<uint32_t>(homes_.size());
      homes_.push_back(sw);
    }
  }

  // The way (see kGroupFlag) of local group `local` of sw.
  uint16_t way(SwitchId sw, uint32_t local) const {
    const Group& g = groups_[group_begin_[sw] + local];
    return g.cables == 1 ? cable_port_[g.cable_begin] : static_cast<uint16_t>(kGroupFlag | local);
  }

  // For every home switch Z: the switches above it (they go down, along the
  // one way down in an intact tree), the ones that climb, and the ones with
  // no up/down path to Z: a top switch and a switch it is not above, or
  // failed cables. Those route toward one leaf per part of the fabric, the
  // hub, as they would route to the hub's own LID, and climb from the first
  // switch on the way that has an up/down path to Z: the hub or a switch
  // above it. So every turn from going down to going up happens on the
  // switches above the hub, and those turns cannot close a cycle of channel
  // dependencies: a dependency chain that climbs from such a turn stays
  // above the hub, where the one way down to the hub from every switch is
  // the way it came up (in an intact tree), so it never descends into
  // another turn. Only packets to switches' own LIDs or from switches take
  // these routes: when the CAs of two leaves have no up/down path between
  // them, ftree refuses the fabric.
  Status fill_fixed() {
    const size_t homes = homes_.size();
    // Built one home at a time (home-major), then turned around for the
    // tables, which read one switch at a time.
    std::vector<uint16_t> by_home(size_t{switches_} * homes, kUp);
    for (SwitchId sw = 0; sw < switches_; ++sw) {
      if (ranked(sw)) continue;
      for (size_t h = 0; h < homes; ++h) by_home[h * switches_ + sw] = kUnrouted;
    }
    choose_hubs();
    std::vector<uint32_t> stamp(switches_, kNoIndex);
    std::vector<SwitchId> queue;
    for (uint32_t h = 0; h < homes; ++h) {
      uint16_t* column = &by_home[size_t{h} * switches_];
      const SwitchId home = homes_[h];
      const uint32_t part = part_[home];
      if (part_members_.size() > 1) {
        for (SwitchId sw = 0; sw < switches_; ++sw) {
          if (ranked(sw) && part_[sw] != part) column[sw] = kUnrouted;
        }
      }
      // Above the home: climb from it, each switch reached going down the way it was found.
      queue.assign(1, home);
      stamp[home] = h;
      column[home] = kAtHome;
      for (size_t i = 0; i < queue.size(); ++i) {
        const SwitchId sw = queue[i];
        for (uint32_t g = group_begin_[sw]; g < group_begin_[sw] + up_count_[sw]; ++g) {
          const SwitchId up = groups_[g].target;
          if (stamp[up] == h) continue;
          stamp[up] = h;
          column[up] = way(up, groups_[g].reverse - group_begin_[up]);
          queue.push_back(up);
        }
      }
      // A switch has an up/down path to the home when some top switch is
      // above both. When the home reaches every top of its part, all do.
      const uint64_t* home_tops = tops_of(home);
      if (std::equal(home_tops, home_tops + words_, &part_tops_[part * words_])) continue;
      const std::vector<uint8_t>& meets = meets_of(class_[home]);
      const SwitchId hub = hub_[part];
      const std::vector<uint8_t>* meets_hub = hub == kNoSwitch ? nullptr : &meets_of(class_[hub]);
      for (const SwitchId sw : part_members_[part]) {
        if (stamp[sw] == h) continue;
        if (meets[class_[sw]]) {
          column[sw] = kUpChecked;
          continue;
        }
        if (level_[sw] == 0 && level_[home] == 0) {
          return failed_precondition_error(fmt::format(
              "the CAs of {} have no path to the CAs of {} that goes up, then down (failed cables?); ftree "
              "routes only such paths between CAs",
              describe(fabric_, graph_.node_of(sw)), describe(fabric_, graph_.node_of(home))));
        }
        if (meets_hub != nullptr && (*meets_hub)[class_[sw]]) {
          column[sw] = kEscape;
          ++escapes_;
        } else {
          column[sw] = kUnrouted;
          ++holes_;
        }
      }
    }
    fixed_.resize(by_home.size());
    constexpr size_t kBlock = 64;
    for (size_t h0 = 0; h0 < homes; h0 += kBlock) {
      for (size_t s0 = 0; s0 < switches_; s0 += kBlock) {
        for (size_t h = h0; h < std::min(homes, h0 + kBlock); ++h) {
          for (size_t sw = s0; sw < std::min<size_t>(switches_, s0 + kBlock); ++sw) {
            fixed_[sw * homes + h] = by_home[h * switches_ + sw];
          }
        }
      }
    }
    return {};
  }

  // By class: whether the switches of that class reach one of the top
  // switches of class c (they have an up/down path to each other).
  const std::vector<uint8_t>& meets_of(uint32_t c) {
    if (meets_.empty()) meets_.resize(class_example_.size());
    std::vector<uint8_t>& meets = meets_[c];
    if (!meets.empty()) return meets;
    meets.resize(class_example_.size());
    const uint64_t* tops = tops_of(class_example_[c]);
    for (size_t other = 0; other < class_example_.size(); ++other) {
      const uint64_t* mine = tops_of(class_example_[other]);
      bool any = false;
      for (size_t w = 0; w < words_ && !any; ++w) any = (mine[w] & tops[w]) != 0;
      meets[other] = any;
    }
    return meets;
  }

  // The hub of every part: a leaf with a LID of its own that reaches the
  // most top switches (every one, in an intact tree), the first in leaf order.
  void choose_hubs() {
    hub_.assign(part_members_.size(), kNoSwitch);
    hub_lid_.assign(part_members_.size(), 0);
    std::vector<uint32_t> best(part_members_.size(), 0);
    for (const SwitchId leaf : leaf_order_) {
      const Destination* own = nullptr;
      for (const Destination& d : graph_.destinations_of(leaf)) {
        if (d.port == 0) own = &d;
      }
      if (own == nullptr) continue;
      uint32_t reach = 0;
      for (size_t w = 0; w < words_; ++w) reach += static_cast<uint32_t>(std::popcount(tops_of(leaf)[w]));
      const uint32_t part = part_[leaf];
      if (hub_[part] != kNoSwitch && reach <= best[part]) continue;
      hub_[part] = leaf;
      hub_lid_[part] = own->base.value;
      best[part] = reach;
    }
  }

  // up_toward_[switch * tops + t]: the way up of a switch below top switch
  // t toward it, along the way t reaches it going down.
  void fill_up_toward() {
    const size_t tops = tops_.size();
    up_toward_.assign(size_t{switches_} * tops, kNoWay);
    std::vector<uint32_t> stamp(switches_, kNoIndex);
    std::vector<SwitchId> queue;
    for (uint32_t t = 0; t < tops; ++t) {
      queue.assign(1, tops_[t]);
      stamp[tops_[t]] = t;
      for (size_t i = 0; i < queue.size(); ++i) {
        const SwitchId sw = queue[i];
        for (uint32_t g = group_begin_[sw] + up_count_[sw]; g < group_begin_[sw + 1]; ++g) {
          const SwitchId down = groups_[g].target;
          if (stamp[down] == t) continue;
          stamp[down] = t;
          up_toward_[size_t{down} * tops + t] = way(down, groups_[g].reverse - group_begin_[down]);
          queue.push_back(down);
        }
      }
    }
  }

  // The leaves in the order a walk down from the top switches meets them, so
  // leaves under the same switches are neighbours in it.
  std::vector<SwitchId> leaf_order() const {
    std::vector<SwitchId> order;
    std::vector<bool> seen(switches_, false);
    std::vector<std::pair<SwitchId, uint32_t>> stack;  // switch, next group
    for (auto it = by_level_.rbegin(); it != by_level_.rend(); ++it) {
      if (seen[*it]) continue;
      seen[*it] = true;
      stack.assign(1, {*it, 0});
      while (!stack.empty()) {
        auto& [sw, next] = stack.back();
        if (level_[sw] == 0 && next == 0) order.push_back(sw);
        const uint32_t g = group_begin_[sw] + up_count_[sw] + next;
        if (g >= group_begin_[sw + 1]) {
          stack.pop_back();
          continue;
        }
        ++next;
        const SwitchId down = groups_[g].target;
        if (seen[down]) continue;
        seen[down] = true;
        stack.emplace_back(down, 0);
      }
    }
    return order;
  }

  Loads& loads(uint32_t kind) {
    Loads& l = loads_[kind];
    if (l.group.empty()) {
      l.group.assign(groups_.size(), 0);
      l.cable.assign(cable_port_.size(), 0);
      l.position.assign(size_t{levels_} * kMaxPorts, 0);
    }
    return l;
  }

  // Chains for every LID: CA LIDs in leaf order, then the switches' own.
  void build_chains() {
    const size_t lids = size_t{graph_.max_lid()} + 1;
    records_.assign(size_t{levels_} * lids, LidRecord{});
    for (const SwitchId leaf : leaf_order_) {
      for (const Destination& d : graph_.destinations_of(leaf)) {
        if (d.port != 0) chain_port(d, 0);
      }
    }
    for (const SwitchId sw : by_level_) {
      for (const Destination& d : graph_.destinations_of(sw)) {
        if (d.port == 0) chain_port(d, 1);
      }
    }
  }

  // The chains of one port's LIDs (kind 0: a CA's, 1: a switch's own). The
  // LIDs of a port are consecutive destinations, so they climb on
  // consecutive up-links; the later ones also prefer switches and top
  // switches the earlier ones did not take.
  void chain_port(const Destination& d, uint32_t kind) {
    const SwitchId home = d.sw;
    const uint32_t h = home_index_[home];
    if (h == kNoIndex) return;
    const size_t lids = size_t{graph_.max_lid()} + 1;
    used_tops_.assign(words_, 0);
    used_steps_.clear();
    std::vector<uint8_t> group(levels_), cable(levels_ + 1);
    Loads& load = loads(kind);
    for (uint32_t rank = 0; rank < d.lid_count(); ++rank) {
      const uint32_t lid = d.base.value + rank;
      ++lids_routed_;
      const uint8_t turn = static_cast<uint8_t>(ordinal_[kind]++);
      std::fill(group.begin(), group.end(), turn);
      std::fill(cable.begin(), cable.end(), turn);
      SwitchId sw = home;
      while (up_count_[sw] != 0) {
        const auto [g, c, position] = pick_up_cable(sw, load, rank);
        const Group& up = groups_[g];
        ++load.group[g];
        ++load.cable[up.cable_begin + c];
        ++load.position[level_[sw] * kMaxPorts + position];
        group[level_[sw]] = static_cast<uint8_t>(g - group_begin_[sw]);
        cable[level_[sw] + 1] = static_cast<uint8_t>(c);
        used_steps_.push_back(up.target);
        sw = up.target;
      }
      const uint32_t top = top_index_[sw];
      used_tops_[top / 64] |= uint64_t{1} << (top % 64);
      for (uint32_t l = 0; l < levels_; ++l) {
        records_[l * lids + lid] = {static_cast<uint16_t>(h), static_cast<uint16_t>(top), d.port, group[l], cable[l],
                                    cable[l + 1]};
      }
    }
  }

  struct Pick {
    uint32_t group;     // global index
    uint32_t cable;     // within the group
    uint32_t position;  // among the switch's up cables
  };

  // The up cable a chain climbs from sw: the least loaded; then the one to
  // the least loaded neighbour (load per cable), so chains spread over
  // switches before parallel cables; for a port's later LIDs, one toward a
  // switch its earlier LIDs did not climb through, then one toward a top
  // switch they did not reach; then the cable index (within its group)
  // least taken here; then the position least taken at this level
  // over the whole fabric, so that the extra LIDs of a switch whose LIDs do
  // not divide evenly over its up-links land on different positions in
  // different switches; then the first.
  Pick pick_up_cable(SwitchId sw, const Loads& load, uint32_t rank) const {
    const uint32_t begin = group_begin_[sw], end = begin + up_count_[sw];
    const uint32_t* taken = &load.position[level_[sw] * kMaxPorts];
    const auto fresh_top = [&](SwitchId t) {
      const uint64_t* tops = tops_of(t);
      for (size_t w = 0; w < words_; ++w) {
        if ((tops[w] & ~used_tops_[w]) != 0) return true;
      }
      return false;
    };
    const auto fresh_step = [&](SwitchId t) {
      return std::find(used_steps_.begin(), used_steps_.end(), t) == used_steps_.end();
    };
    // LIDs that took the c-th cable of any group here: the switches above
    // that are not on a LID's chain send it down the cable of the same
    // index, so the indices should be used alike as well.
    uint32_t width = 0;
    for (uint32_t g = begin; g < end; ++g) width = std::max(width, groups_[g].cables);
    uint32_t index_load[kMaxPorts];
    std::fill_n(index_load, width, 0u);
    for (uint32_t g = begin; g < end; ++g) {
      for (uint32_t c = 0; c < groups_[g].cables; ++c) index_load[c] += load.cable[groups_[g].cable_begin + c];
    }
    Pick best{kNoIndex, 0, 0};
    uint32_t best_cable_load = 0;
    int best_fresh = 0;
    uint32_t position = 0;
    for (uint32_t g = begin; g < end; ++g) {
      const Group& up = groups_[g];
      const int fresh = rank == 0 ? 0 : (fresh_step(up.target) ? 2 : 0) + (fresh_top(up.target) ? 1 : 0);
      for (uint32_t c = 0; c < up.cables; ++c, ++position) {
        const uint32_t cable_load = load.cable[up.cable_begin + c];
        bool better = best.group == kNoIndex;
        if (!better && cable_load != best_cable_load) better = cable_load < best_cable_load;
        else if (!better && g != best.group) {
          const uint64_t mine = uint64_t{load.group[g]} * groups_[best.group].cables;
          const uint64_t theirs = uint64_t{load.group[best.group]} * up.cables;
          if (mine != theirs) better = mine < theirs;
          else if (fresh != best_fresh) better = fresh > best_fresh;
          else if (index_load[c] != index_load[best.cable]) better = index_load[c] < index_load[best.cable];
          else better = taken[position] < taken[best.position];
        } else if (!better) {
          if (index_load[c] != index_load[best.cable]) better = index_load[c] < index_load[best.cable];
          else better = taken[position] < taken[best.position];
        }
        if (!better) continue;
        best = {g, c, position};
        best_cable_load = cable_load;
        best_fresh = fresh;
      }
    }
    assert(best.group != kNoIndex);
    return best;
  }

  // What one switch does with the LIDs, for entry().
  struct Row {
    SwitchId sw = kNoSwitch;
    const uint16_t* how = nullptr;      // its fixed_ row
    const uint16_t* toward = nullptr;   // its up_toward_ row
    const LidRecord* lid = nullptr;     // the records of its level, by LID
    const Group* groups = nullptr;
    uint32_t ups = 0;
    uint16_t up_way[kMaxPorts] = {};    // by local up group: its way
    uint8_t escape_port = kNoRoute;     // toward the hub
  };

  uint8_t by_way(const Row& r, uint16_t way, uint8_t turn) const {
    if (way < kGroupFlag) return static_cast<uint8_t>(way);
    const Group& g = r.groups[way & (kGroupFlag - 1)];
    return cable_port_[g.cable_begin + wrap(turn, g.cables)];
  }

  // The port for a LID whose home the switch's fixed_ entry `v` says to climb from.
  uint8_t climb(const Row& r, const LidRecord& rec, uint16_t v) const {
    const uint16_t toward = r.toward[rec.top];
    if (toward != kNoWay) return by_way(r, toward, rec.up_cable);
    assert(r.ups != 0);
    uint32_t up = wrap(rec.group, r.ups);
    if (v == kUpChecked) up = climbable(r.sw, up, rec.home);
    return by_way(r, r.up_way[up], rec.up_cable);
  }

  uint8_t entry(const Row& r, uint32_t lid) const {
    const LidRecord& rec = r.lid[lid];
    if (rec.home == kNoHome) return kNoRoute;
    const uint16_t v = r.how[rec.home];
    if (v < kEscape) return by_way(r, v, rec.down_cable);
    switch (v) {
      case kEscape: return r.escape_port;
      case kAtHome: return rec.port;
      case kUnrouted: return kNoRoute;
      default: return climb(r, rec, v);
    }
  }

  // Every ranked switch's table, one switch at a time, run by run of LIDs
  // with the same home switch: the table is written in order, and what the
  // switch needs (its row of fixed_ and up_toward_, its groups) stays in
  // the cache. A run the switch sends one way (a single cable down, the
  // hub) is a fill.
  void fill_tables() {
    const size_t homes = homes_.size();
    const size_t tops = tops_.size();
    const size_t lids = size_t{graph_.max_lid()} + 1;
    struct Run {
      uint32_t first, end;
      uint16_t home;
    };
    std::vector<Run> runs;
    for (uint32_t lid = 1; lid < lids; ++lid) {
      const uint16_t home = records_[lid].home;
      if (home == kNoHome) continue;
      if (!runs.empty() && runs.back().end == lid && runs.back().home == home) {
        ++runs.back().end;
      } else {
        runs.push_back({lid, lid + 1, home});
      }
    }
    auto r = std::make_unique<Row>();
    for (const SwitchId sw : by_level_) {
      r->sw = sw;
      r->how = &fixed_[size_t{sw} * homes];
      r->toward = &up_toward_[size_t{sw} * tops];
      r->lid = &records_[size_t{level_[sw]} * lids];
      r->groups = &groups_[group_begin_[sw]];
      r->ups = up_count_[sw];
      for (uint32_t g = 0; g < r->ups; ++g) r->up_way[g] = way(sw, g);
      const SwitchId hub = hub_[part_[sw]];
      r->escape_port = hub != kNoSwitch && hub != sw ? entry(*r, hub_lid_[part_[sw]]) : kNoRoute;
      uint8_t* row = tables_.lfts[graph_.node_of(sw).value].data();
      for (const Run& run : runs) {
        const uint16_t v = r->how[run.home];
        if (v < kGroupFlag || v == kEscape) {
          std::fill(row + run.first, row + run.end, v == kEscape ? r->escape_port : static_cast<uint8_t>(v));
        } else if (v < kEscape) {
          for (uint32_t lid = run.first; lid < run.end; ++lid) row[lid] = by_way(*r, v, r->lid[lid].down_cable);
        } else if (v == kAtHome) {
          for (uint32_t lid = run.first; lid < run.end; ++lid) row[lid] = r->lid[lid].port;
        } else if (v != kUnrouted) {
          // The hot loop (most of a leaf's or a middle switch's LIDs): local
          // copies, since the stores through `row` may alias any member.
          const uint16_t* toward = r->toward;
          const LidRecord* rec = r->lid;
          for (uint32_t lid = run.first; lid < run.end; ++lid) {
            const uint16_t way_up = toward[rec[lid].top];
            row[lid] = way_up < kGroupFlag ? static_cast<uint8_t>(way_up) : climb(*r, rec[lid], v);
          }
        }
      }
    }
  }

  // The first up group from `from` on (wrapping) toward a switch with an
  // up/down path to home h.
  uint32_t climbable(SwitchId sw, uint32_t from, uint32_t h) const {
    const uint32_t ups = up_count_[sw];
    for (uint32_t k = 0, g = from; k < ups; ++k, g = g + 1 == ups ? 0 : g + 1) {
      const SwitchId up = groups_[group_begin_[sw] + g].target;
      if (routable(fixed_[size_t{up} * homes_.size() + h])) return g;
    }
    assert(false);
    return from;
  }

  const RoutingGraph& graph_;
  const Fabric& fabric_;
  const uint32_t switches_;
  const std::vector<uint32_t>& level_;
  const uint32_t levels_;
  UnicastTables& tables_;
  LogSink& log_;

  // Groups: switch sw's are groups_[group_begin_[sw] ..), its up groups first.
  std::vector<Group> groups_;
  std::vector<uint32_t> group_begin_;
  std::vector<uint32_t> up_count_;
  std::vector<uint8_t> cable_port_;  // by cable: the group owner's port

  std::vector<SwitchId> by_level_;   // ranked switches by level, then id
  std::vector<SwitchId> tops_;       // top switches, by index
  std::vector<uint32_t> top_index_;  // by switch
  size_t words_ = 0;                 // 64-bit words of a set of top switches
  std::vector<uint64_t> tops_bits_;  // by switch: the top switches it climbs to
  std::vector<uint32_t> part_;       // by switch: its connected part
  std::vector<std::vector<SwitchId>> part_members_;
  std::vector<uint64_t> part_tops_;  // by part: its top switches
  std::vector<uint32_t> class_;      // by switch: its class (same top switches)
  std::vector<SwitchId> class_example_;

  std::vector<uint32_t> home_index_;  // by switch
  std::vector<SwitchId> homes_;
  std::vector<uint16_t> fixed_;       // see kEscape
  std::vector<SwitchId> leaf_order_;
  std::vector<SwitchId> hub_;         // by part
  std::vector<uint32_t> hub_lid_;     // by part: the hub's own LID
  std::vector<uint16_t> up_toward_;
  std::vector<std::vector<uint8_t>> meets_;  // see meets_of

  // By LID.
  std::vector<LidRecord> records_;  // [level * lids + lid]

  Loads loads_[2];  // by kind: CA, switch
  uint32_t ordinal_[2] = {0, 0};
  std::vector<uint64_t> used_tops_;   // top switches the current port's earlier LIDs reached
  std::vector<SwitchId> used_steps_;  // switches their chains climbed through

  uint64_t lids_routed_ = 0;
  uint64_t escapes_ = 0;
  uint64_t holes_ = 0;
  uint32_t unranked_ = 0;
};

}  // namespace

Result<UnicastTables> FatTreeEngine::compute(const RoutingInput& input) {
  auto levels = rank_fat_tree(input.graph);
  if (!levels.ok()) return levels.status();
  UnicastTables tables = UnicastTables::unrouted(input.graph);
  FatTreeRouter router(input.graph, *levels, tables, input.log);
  IBSM_RETURN_IF_ERROR(router.run());
  return tables;
}

std::vector<SwitchId> FatTreeEngine::multicast_roots(const RoutingInput& input) const {
  auto levels = rank_fat_tree(input.graph);
  if (!levels.ok() || levels->levels == 0) return {};
  std::vector<SwitchId> tops;
  for (SwitchId sw = 0; sw < input.graph.switch_count(); ++sw) {
    if (levels->level[sw] == levels->levels - 1) tops.push_back(sw);
  }
  return tops;
}

}  // namespace ibsm::routing
