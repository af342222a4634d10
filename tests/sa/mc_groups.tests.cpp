// The multicast group database: MLIDs from 0xC000, the lowest free one
// reused, none leaked; which JoinStates keep a group alive; what the SM is
// told (changed MLIDs, member ports) and what the traps are told (66/67).
#include "sa/mc_groups.h"

#include <catch2/catch.hpp>

#include "mad/wire/notice.h"

using namespace ibsm;
namespace js = wire::mc_join_state;

namespace {

wire::McMemberRecord group_props(uint8_t n) {
  wire::McMemberRecord r;
  r.mgid.raw = {0xff, 0x12, 0xa0, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, n};
  r.q_key = 0x1234;
  r.p_key = 0xFFFF;
  return r;
}

sa::McMember member(uint64_t guid, uint8_t join_state) {
  sa::McMember m;
  m.port_gid = wire::Gid::from_parts(0xfe80'0000'0000'0000ULL, guid);
  m.port = PortRef{NodeIndex{static_cast<uint32_t>(guid)}, 1};
  m.join_state = join_state;
  return m;
}

}  // namespace

TEST_CASE("MLIDs start at 0xC000 and the lowest free one is reused", "[sa][multicast]") {
  sa::McGroups db;
  sa::McGroup* a = db.create(group_props(1), false);
  sa::McGroup* b = db.create(group_props(2), false);
  sa::McGroup* c = db.create(group_props(3), false);
  REQUIRE((a && b && c));
  CHECK(a->properties.mlid == Lid{0xC000});
  CHECK(b->properties.mlid == Lid{0xC001});
  CHECK(c->properties.mlid == Lid{0xC002});
  CHECK(db.create(group_props(1), false) == nullptr);  // the MGID is taken

  db.erase(*db.find(group_props(2).mgid));
  db.erase(*db.find(group_props(1).mgid));
  CHECK(db.create(group_props(4), false)->properties.mlid == Lid{0xC000});
  CHECK(db.create(group_props(5), false)->properties.mlid == Lid{0xC001});
  CHECK(db.create(group_props(6), false)->properties.mlid == Lid{0xC003});
  CHECK(db.mlids_in_use() == 4);

  // The top one freed lowers the mark: the next is that one again.
  db.erase(*db.find(group_props(6).mgid));
  db.erase(*db.find(group_props(3).mgid));
  CHECK(db.create(group_props(7), false)->properties.mlid == Lid{0xC002});

  // An imported MLID is taken wherever it lies; the ones below it stay free.
  REQUIRE(db.create_at(group_props(8), Lid{0xC010}, false) != nullptr);
  CHECK(db.create_at(group_props(9), Lid{0xC010}, false) == nullptr);
  CHECK(db.create_at(group_props(9), Lid{0xBFFF}, false) == nullptr);
  CHECK(db.create(group_props(9), false)->properties.mlid == Lid{0xC003});
  CHECK(db.by_mlid(Lid{0xC010})->properties.mgid == group_props(8).mgid);
}

TEST_CASE("no MLID beyond max_mlid", "[sa][multicast]") {
  sa::McGroups db(sa::McGroupsOptions{.max_mlid = 0xC001});
  CHECK(db.create(group_props(1), false) != nullptr);
  CHECK(db.create(group_props(2), false) != nullptr);
  CHECK(db.create(group_props(3), false) == nullptr);
  db.erase(*db.find(group_props(1).mgid));
  CHECK(db.create(group_props(3), false)->properties.mlid == Lid{0xC000});
}

TEST_CASE("full and send-only full members keep a group; the last of them takes the others along", "[sa][multicast]") {
  sa::McGroups db;
  sa::McGroup* g = db.create(group_props(1), false);
  db.join(*g, member(1, js::full_member | js::send_only_full_member));  // 0x9
  db.join(*g, member(2, js::non_member));
  db.join(*g, member(3, js::send_only_non_member));
  CHECK(g->full_members() == 1);
  // A partial leave of the full bit keeps the member as send-only full (OpenSM PR #43).
  CHECK_FALSE(db.leave(*g, 1, js::full_member));
  REQUIRE(g->members.count(1) == 1);
  CHECK(g->members.at(1).join_state == js::send_only_full_member);
  CHECK(g->full_members() == 1);
  // Non-members come and go without touching the group.
  CHECK_FALSE(db.leave(*g, 2, js::non_member));
  CHECK(g->members.size() == 2);
  // The last send-only full member leaves: the group and its other members go.
  CHECK(db.leave(*g, 1, js::send_only_full_member));
  CHECK(db.size() == 0);
  CHECK(db.mlids_in_use() == 0);
  const auto events = db.take_events();
  REQUIRE(events.size() == 2);
  CHECK(events[0] == sa::McEvent{wire::trap_number::mcast_group_created, group_props(1).mgid});
  CHECK(events[1] == sa::McEvent{wire::trap_number::mcast_group_deleted, group_props(1).mgid});
}

TEST_CASE("a predefined group outlives its members", "[sa][multicast]") {
  sa::McGroups db;
  sa::McGroup* g = db.create(group_props(1), true);
  db.join(*g, member(1, js::full_member));
  db.join(*g, member(2, js::non_member));
  CHECK_FALSE(db.leave(*g, 1, js::full_member));
  CHECK(db.size() == 1);
  CHECK(g->members.empty());  // the non-member went with the last full member
}

TEST_CASE("the SM is told the MLIDs that changed and every member's port", "[sa][multicast]") {
  sa::McGroups db;
  sa::McGroup* a = db.create(group_props(1), false);
  sa::McGroup* b = db.create(group_props(2), false);
  CHECK(db.take_changes() == std::vector<Lid>{Lid{0xC000}, Lid{0xC001}});
  CHECK(db.take_changes().empty());
  db.join(*b, member(7, js::full_member));
  db.join(*b, member(5, js::send_only_non_member));
  CHECK(db.take_changes() == std::vector<Lid>{Lid{0xC001}});
  db.join(*b, member(7, js::full_member));  // nothing new
  CHECK(db.take_changes().empty());
  CHECK(db.members(Lid{0xC001}) == std::vector<PortRef>{PortRef{NodeIndex{5}, 1}, PortRef{NodeIndex{7}, 1}});
  CHECK(db.members(Lid{0xC000}).empty());
  CHECK(db.members(Lid{0xC005}).empty());
  db.erase(*a);
  CHECK(db.take_changes() == std::vector<Lid>{Lid{0xC000}});
}
