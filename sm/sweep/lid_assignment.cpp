#include "sm/sweep/lid_assignment.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "sm/sweep/lid_space.h"

namespace ibsm {

const char* lid_source_name(LidSource s) {
  switch (s) {
    case LidSource::kept: return "kept";
    case LidSource::persisted: return "persisted";
    case LidSource::fresh: return "fresh";
  }
  return "?";
}

namespace {

// A port that needs a LID block, and what it gets.
struct Subject {
  Guid guid;
  PortRef where;
  bool is_switch = false;
  uint8_t lmc = 0;  // the LMC it gets
  Lid current;      // what it holds now
  uint8_t current_lmc = 0;
  std::optional<LidRange> file_entry;  // its record in the persisted map, as read
  std::optional<LidRange> entry;       // that record fitted to `lmc` and reserved for it
  bool assigned = false;
  Lid base;
  LidSource source = LidSource::fresh;
  LidDropReason reason = LidDropReason::none;
  Guid other;
  uint32_t count() const { return 1u << lmc; }
};

std::string node_label(const Node& n) {
  if (!n.description.empty()) return fmt::format("{} \"{}\"", n.node_guid, n.description);
  if (!n.name.empty()) return fmt::format("{} \"{}\"", n.node_guid, n.name);
  return fmt::format("{}", n.node_guid);
}

Status check_options(const LidOptions& o) {
  if (o.lmc > 7) return invalid_argument_error(fmt::format("lmc {} is out of range (0-7)", o.lmc));
  if (o.min_lid.value < 1 || o.max_lid.value > Lid::max_unicast || o.min_lid > o.max_lid) {
    return invalid_argument_error(fmt::format("lid range {}-{} is not inside the unicast range 1-{}", o.min_lid,
                                              o.max_lid, Lid::max_unicast));
  }
  return {};
}

// The ports that need LIDs, sorted by GUID.
Result<std::vector<Subject>> gather(const Fabric& f, const LidOptions& o, std::vector<std::string>& warnings) {
  std::vector<Subject> subjects;
  subjects.reserve(f.node_count() * 2);
  for (uint32_t i = 0; i < f.node_count(); ++i) {
    const Node& n = f.node(NodeIndex{i});
    auto add = [&](uint8_t port, bool is_switch, uint8_t lmc) {
      const Port& p = n.port(port);
      if (p.guid.is_zero()) {
        warnings.push_back(fmt::format("{} {} port {} has no port guid: no lid", node_type_name(n.type),
                                       node_label(n), port));
        return;
      }
      Subject s;
      s.guid = p.guid;
      s.where = PortRef{NodeIndex{i}, port};
      s.is_switch = is_switch;
      s.lmc = lmc;
      s.current = p.base_lid;
      s.current_lmc = p.lmc;
      subjects.push_back(s);
    };
    if (n.ports.empty()) continue;
    if (n.is_switch()) {
      add(0, true, o.lmc_esp0 && n.enhanced_port0 ? o.lmc : 0);
    } else if (n.type == NodeType::ca || n.type == NodeType::router) {
      for (uint8_t p = 1; p <= n.num_ports && p < n.ports.size(); ++p) {
        if (n.port(p).connected()) add(p, false, o.lmc);
      }
    } else {
      warnings.push_back(fmt::format("node {} has an unknown node type: no lid", node_label(n)));
    }
  }
  std::sort(subjects.begin(), subjects.end(), [](const Subject& a, const Subject& b) { return a.guid < b.guid; });
  for (size_t i = 1; i < subjects.size(); ++i) {
    if (subjects[i].guid == subjects[i - 1].guid) {
      const Subject& a = subjects[i - 1];
      const Subject& b = subjects[i];
      return invalid_argument_error(fmt::format("port guid {} is on two ports: {} port {} and {} port {}", a.guid,
                                                node_label(f.node(a.where.node)), a.where.port,
                                                node_label(f.node(b.where.node)), b.where.port));
    }
  }
  return subjects;
}

// Fails when the fabric cannot fit in the range however the LIDs are laid out.
Status check_capacity(const std::vector<Subject>& subjects, const LidOptions& o) {
  uint64_t switches = 0, switch_lids = 0, endpoints = 0, blocks_needed = 0;
  for (const Subject& s : subjects) {
    if (s.is_switch) {
      ++switches;
      switch_lids += s.count();
    } else {
      ++endpoints;
    }
    if (s.lmc > 0) ++blocks_needed;
  }
  const uint64_t per_endpoint = uint64_t{1} << o.lmc;
  const uint64_t needed = switch_lids + endpoints * per_endpoint;
  const uint64_t lo = o.min_lid.value, hi = o.max_lid.value;
  const uint64_t available = hi - lo + 1;
  auto what = [&] {
    return fmt::format("{} switch{} ({} lids) and {} endpoint port{} x {} lid{} (lmc {})", switches,
                       switches == 1 ? "" : "es", switch_lids, endpoints, endpoints == 1 ? "" : "s", per_endpoint,
                       per_endpoint == 1 ? "" : "s", o.lmc);
  };
  if (needed > available) {
    return failed_precondition_error(fmt::format(
        "the fabric needs {} lids for {}, but the lid range {}-{} has only {}{}", needed, what(), lo, hi, available,
        o.lmc > 0 ? "; a lower lmc needs fewer" : ""));
  }
  if (blocks_needed > 0) {
    const uint64_t first_block = (lo + per_endpoint - 1) / per_endpoint;
    const uint64_t end_block = (hi + 1) / per_endpoint;
    const uint64_t blocks = end_block > first_block ? end_block - first_block : 0;
    if (blocks_needed > blocks) {
      return failed_precondition_error(fmt::format(
          "the fabric needs {} aligned blocks of {} lids for {}, but the lid range {}-{} has only {}", blocks_needed,
          per_endpoint, what(), lo, hi, blocks));
    }
  }
  return {};
}

// Counts what went wrong the same way many times, and shows the first case.
struct WarningTally {
  size_t count = 0;
  std::string first;
  void add(std::string example) {
    if (count++ == 0) first = std::move(example);
  }
};

class Assigner {
 public:
  Assigner(const LidOptions& o, std::vector<Subject> subjects)
      : o_(o), space_(o.min_lid.value, o.max_lid.value), subjects_(std::move(subjects)) {}

  std::vector<Subject>& subjects() { return subjects_; }
  std::vector<std::string>& warnings() { return warnings_; }
  const Guid2Lid& absent_entries() const { return absent_; }
  size_t absent_dropped() const { return absent_dropped_; }

  // Reserves the persisted blocks; `keep_absent` also keeps those of GUIDs
  // that are not in the fabric now.
  void reserve_persisted(const Guid2Lid& persisted, bool keep_absent) {
    for (const auto& [guid, range] : persisted) {
      auto drop = [&](std::string_view why) {
        warnings_.push_back(
            fmt::format("guid2lid entry of guid {} (lids {}-{}) {}; dropped", guid, range.min, range.max, why));
      };
      if (guid.is_zero()) {
        drop("has a zero guid");
        continue;
      }
      if (std::string problem = lid_block_problem(range); !problem.empty()) {
        drop(problem);
        continue;
      }
      if (!space_.in_range(range.min.value, range.count())) {
        drop(fmt::format("lies outside the lid range {}-{}", o_.min_lid, o_.max_lid));
        continue;
      }
      Subject* s = find(guid);
      if (s == nullptr && !keep_absent) {
        ++absent_dropped_;
        continue;
      }
      if (auto lid = space_.reserved_for_other(range.min.value, range.count(), guid)) {
        drop(fmt::format("overlaps the entry of guid {} at lid {}", space_.reserved_for(*lid), *lid));
        continue;
      }
      space_.reserve(range.min.value, range.count(), guid);
      if (s != nullptr) {
        s->file_entry = range;
      } else {
        absent_.emplace(guid, range);
      }
    }
    // Fit each present port's entry to the LMC it gets now, in place. Drop
    // the entries that cannot hold an aligned block first, so that they do
    // not stand in the way of their neighbours widening.
    WarningTally misfits;
    for (Subject& s : subjects_) {
      if (!s.file_entry) continue;
      const LidRange r = *s.file_entry;
      if (r.min.value % s.count() != 0 || !space_.in_range(r.min.value, s.count())) {
        space_.release(r.min.value, r.count(), s.guid);
        s.file_entry.reset();
        misfits.add(fmt::format("guid {} lids {}-{}", s.guid, r.min, r.max));
      }
    }
    for (Subject& s : subjects_) {
      if (!s.file_entry) continue;
      const LidRange r = *s.file_entry;
      space_.release(r.min.value, r.count(), s.guid);
      if (space_.reserved_for_other(r.min.value, s.count(), s.guid)) {
        misfits.add(fmt::format("guid {} lids {}-{}", s.guid, r.min, r.max));
        continue;
      }
      space_.reserve(r.min.value, s.count(), s.guid);
      s.entry = LidRange{r.min, Lid{static_cast<uint16_t>(r.min.value + s.count() - 1)}};
    }
    if (misfits.count > 0) {
      warnings_.push_back(fmt::format(
          "{} guid2lid entr{} cannot hold a block of {} lids (lmc {}) where {} (first: {}); dropped",
          misfits.count, misfits.count == 1 ? "y" : "ies", 1u << o_.lmc, o_.lmc,
          misfits.count == 1 ? "it is" : "they are", misfits.first));
    }
  }

  // Step 1: ports keep the valid LIDs they hold (with restore_assigned,
  // only those that hold what the SM gave them, or that it never gave any).
  void keep_current() {
    std::vector<uint32_t> candidates;
    for (uint32_t i = 0; i < subjects_.size(); ++i) {
      Subject& s = subjects_[i];
      if (o_.restore_assigned && s.entry && s.current.value != 0 && s.current != s.entry->min) {
        s.reason = LidDropReason::moved;
        continue;
      }
      if (judge_current(s) == LidDropReason::none) candidates.push_back(i);
    }
    // Duplicates: the port the persisted map agrees with wins, then the lower GUID.
    auto agrees = [&](uint32_t i) {
      const Subject& s = subjects_[i];
      return s.entry && s.entry->min == s.current;
    };
    std::stable_sort(candidates.begin(), candidates.end(),
                     [&](uint32_t a, uint32_t b) { return agrees(a) && !agrees(b); });
    for (uint32_t i : candidates) try_keep(i);
    // A port that kept its LID gives up its persisted block elsewhere, which
    // may free the LID another port holds: look again until nothing changes.
    for (bool progress = true; progress;) {
      progress = false;
      for (uint32_t i = 0; i < subjects_.size(); ++i) {
        Subject& s = subjects_[i];
        if (s.assigned || s.reason != LidDropReason::claimed) continue;
        if (judge_current(s) == LidDropReason::none && try_keep(i)) progress = true;
      }
    }
  }

  // Step 2: ports get their persisted blocks back.
  void restore_persisted() {
    for (uint32_t i = 0; i < subjects_.size(); ++i) {
      Subject& s = subjects_[i];
      if (s.assigned || !s.entry) continue;
      // Reserved for this port alone, so nobody else can hold it.
      assert(space_.unowned(s.entry->min.value, s.count()));
      grant(i, s.entry->min, LidSource::persisted);
    }
  }

  // Step 3 (and the only step under -r): the lowest free aligned blocks.
  Status assign_fresh() {
    std::vector<uint32_t> order(subjects_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    auto rank = [&](uint32_t i) {
      const Subject& s = subjects_[i];
      if (!o_.sm_port_guid.is_zero() && s.guid == o_.sm_port_guid) return 0;
      return s.is_switch ? 1 : 2;
    };
    // `subjects_` is in GUID order already; a stable sort keeps it within a rank.
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return rank(a) < rank(b); });
    for (uint32_t i : order) {
      Subject& s = subjects_[i];
      if (s.assigned) continue;
      auto base = space_.lowest_free_block(s.count());
      if (!base) {
        return failed_precondition_error(fmt::format(
            "no free block of {} lid{} is left in {}-{} for port guid {}: the lids that ports keep leave gaps "
            "too small for aligned blocks; reassigning all lids (-r) packs them",
            s.count(), s.count() == 1 ? "" : "s", o_.min_lid, o_.max_lid, s.guid));
      }
      grant(i, Lid{*base}, LidSource::fresh);
    }
    return {};
  }

 private:
  Subject* find(Guid guid) {
    auto it = std::lower_bound(subjects_.begin(), subjects_.end(), guid,
                               [](const Subject& s, Guid g) { return s.guid < g; });
    return it != subjects_.end() && it->guid == guid ? &*it : nullptr;
  }

  // Whether the LID block the port holds could be kept, ignoring the other
  // ports' blocks; records the reason when not.
  LidDropReason judge_current(Subject& s) {
    const uint32_t base = s.current.value;
    LidDropReason r = LidDropReason::none;
    if (base == 0) {
      r = LidDropReason::no_lid;
    } else if (!space_.in_range(base, s.count())) {
      r = LidDropReason::outside_range;
    } else if (base % s.count() != 0) {
      r = LidDropReason::unaligned;
    } else if (auto lid = space_.reserved_for_other(s.current.value, s.count(), s.guid)) {
      r = LidDropReason::claimed;
      s.other = space_.reserved_for(*lid);
    }
    s.reason = r;
    return r;
  }

  bool try_keep(uint32_t i) {
    Subject& s = subjects_[i];
    const uint16_t base = s.current.value;
    for (uint32_t lid = base; lid < base + s.count(); ++lid) {
      if (uint32_t owner = space_.owner(static_cast<uint16_t>(lid)); owner != LidSpace::kNoOwner) {
        s.reason = LidDropReason::duplicate;
        s.other = subjects_[owner].guid;
        return false;
      }
    }
    grant(i, s.current, LidSource::kept);
    if (s.entry && s.entry->min != s.current) {
      space_.release(s.entry->min.value, s.count(), s.guid);
      s.entry.reset();
    }
    return true;
  }

  void grant(uint32_t i, Lid base, LidSource source) {
    Subject& s = subjects_[i];
    space_.take(base.value, s.count(), i);
    s.assigned = true;
    s.base = base;
    s.source = source;
  }

  LidOptions o_;
  LidSpace space_;
  std::vector<Subject> subjects_;
  std::vector<std::string> warnings_;
  Guid2Lid absent_;  // reserved entries of ports not in the fabric
  size_t absent_dropped_ = 0;
};

// Runs the whole assignment once.
Result<Assigner> run(const LidOptions& o, const std::vector<Subject>& subjects, const Guid2Lid* persisted,
                     bool keep_absent) {
  Assigner a(o, subjects);
  if (o.reassign_all) {
    for (Subject& s : a.subjects()) {
      s.reason = s.current.value == 0 ? LidDropReason::no_lid : LidDropReason::reassign_all;
    }
  } else {
    if (persisted != nullptr) a.reserve_persisted(*persisted, keep_absent);
    a.keep_current();
    a.restore_persisted();
  }
  IBSM_RETURN_IF_ERROR(a.assign_fresh());
  return a;
}

}  // namespace

Result<LidAssignment> assign_lids(const Fabric& discovered, const LidOptions& opts, const Guid2Lid* persisted) {
  IBSM_RETURN_IF_ERROR(check_options(opts));
  std::vector<std::string> warnings;
  auto gathered = gather(discovered, opts, warnings);
  if (!gathered.ok()) return gathered.status();
  std::vector<Subject>& subjects = *gathered;
  IBSM_RETURN_IF_ERROR(check_capacity(subjects, opts));

  auto attempt = run(opts, subjects, persisted, /*keep_absent=*/true);
  if (!attempt.ok() && persisted != nullptr && !opts.reassign_all) {
    // The range is full, partly of LIDs reserved for ports that are gone:
    // the ports that are here come first.
    auto retry = run(opts, subjects, persisted, /*keep_absent=*/false);
    if (retry.ok()) {
      retry->warnings().push_back(fmt::format(
          "the lid range is full: dropped the guid2lid entries of {} port{} not in the fabric to make room",
          retry->absent_dropped(), retry->absent_dropped() == 1 ? "" : "s"));
      attempt = std::move(retry);
    }
  }
  if (!attempt.ok()) return attempt.status();
  Assigner& a = *attempt;

  LidAssignment out;
  out.warnings = std::move(warnings);
  for (std::string& w : a.warnings()) out.warnings.push_back(std::move(w));
  out.guid2lid = a.absent_entries();
  out.ports.reserve(a.subjects().size());
  for (const Subject& s : a.subjects()) {
    assert(s.assigned);
    out.ports.push_back(AssignedLid{s.guid, s.where, s.is_switch, s.base, s.lmc, s.source});
    const Lid last{static_cast<uint16_t>(s.base.value + s.count() - 1)};
    out.guid2lid[s.guid] = LidRange{s.base, last};
    out.top = std::max(out.top, last);
    switch (s.source) {
      case LidSource::kept: ++out.kept; break;
      case LidSource::persisted: ++out.persisted; break;
      case LidSource::fresh: ++out.fresh; break;
    }
    if (s.base == s.current && s.lmc == s.current_lmc) continue;
    LidChange c;
    c.guid = s.guid;
    c.where = s.where;
    c.old_base = s.current;
    c.old_lmc = s.current_lmc;
    c.new_base = s.base;
    c.new_lmc = s.lmc;
    c.source = s.source;
    c.reason = s.base == s.current ? LidDropReason::none : s.reason;
    if (c.reason == LidDropReason::claimed || c.reason == LidDropReason::duplicate) c.other = s.other;
    out.changes.push_back(c);
  }
  return out;
}

const AssignedLid* LidAssignment::find(Guid guid) const {
  auto it = std::lower_bound(ports.begin(), ports.end(), guid,
                             [](const AssignedLid& a, Guid g) { return a.guid < g; });
  return it != ports.end() && it->guid == guid ? &*it : nullptr;
}

Status apply_lids(const LidAssignment& assignment, Fabric& fabric) {
  for (const AssignedLid& a : assignment.ports) {
    bool fits = a.where.node.value < fabric.node_count();
    if (fits) {
      const Node& n = fabric.node(a.where.node);
      fits = a.where.port < n.ports.size() && n.is_switch() == a.is_switch && n.port(a.where.port).guid == a.guid;
    }
    if (!fits) {
      return failed_precondition_error(fmt::format(
          "lid assignment does not match this fabric: port guid {} is not at node {} port {}", a.guid,
          a.where.node.value, a.where.port));
    }
  }
  for (const AssignedLid& a : assignment.ports) {
    Node& n = fabric.node(a.where.node);
    if (a.is_switch) {
      for (Port& p : n.ports) {
        p.base_lid = a.base;
        p.lmc = a.lmc;
      }
    } else {
      n.port(a.where.port).base_lid = a.base;
      n.port(a.where.port).lmc = a.lmc;
    }
  }
  return {};
}

std::string describe(const LidChange& c) {
  std::string text = fmt::format("guid {} port {}: ", c.guid, c.where.port);
  if (c.reason == LidDropReason::none) {
    text += fmt::format("lid {} lmc {} -> {}", c.new_base, c.old_lmc, c.new_lmc);
  } else {
    text += fmt::format("lid {} -> {}", c.old_base, c.new_base);
    if (c.old_lmc != c.new_lmc) text += fmt::format(", lmc {} -> {}", c.old_lmc, c.new_lmc);
  }
  std::string why;
  switch (c.reason) {
    case LidDropReason::none: break;
    case LidDropReason::no_lid: why = "had no lid"; break;
    case LidDropReason::outside_range: why = fmt::format("lid {} is outside the lid range", c.old_base); break;
    case LidDropReason::unaligned:
      why = fmt::format("lid {} is not a multiple of {} (lmc {})", c.old_base, 1u << c.new_lmc, c.new_lmc);
      break;
    case LidDropReason::claimed:
      why = fmt::format("the guid2lid map reserves lid {} for guid {}", c.old_base, c.other);
      break;
    case LidDropReason::duplicate:
      why = fmt::format("guid {} also holds lid {} and keeps it", c.other, c.old_base);
      break;
    case LidDropReason::reassign_all: why = "reassigning all lids"; break;
    case LidDropReason::moved: why = "changed behind the sm's back: restored"; break;
  }
  const char* from = c.source == LidSource::persisted ? "lid from the guid2lid map"
                     : c.source == LidSource::fresh   ? "lowest free lid"
                                                      : nullptr;
  if (!why.empty() || from != nullptr) {
    text += " (";
    text += why;
    if (!why.empty() && from != nullptr) text += "; ";
    if (from != nullptr) text += from;
    text += ")";
  }
  return text;
}

}  // namespace ibsm
