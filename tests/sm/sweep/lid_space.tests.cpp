// The LID space: ownership, reservations and the lowest free aligned block.
#include "sm/sweep/lid_space.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("lowest free block is aligned and skips held and reserved lids", "[sweep][lids]") {
  LidSpace s(1, 32);
  CHECK(s.lowest_free_block(1) == 1);
  CHECK(s.lowest_free_block(4) == 4);  // 0-3 holds lid 0, which no port can have
  s.take(4, 4, 7);
  s.reserve(9, 1, Guid{42});
  CHECK(s.lowest_free_block(4) == 12);  // 8-11 holds a reserved lid
  CHECK(s.owner(5) == 7);
  CHECK(s.owner(8) == LidSpace::kNoOwner);
  CHECK(s.reserved_for(9) == Guid{42});
  CHECK(s.reserved_for_other(8, 4, Guid{42}) == std::nullopt);
  CHECK(s.reserved_for_other(8, 4, Guid{43}) == 9);
  s.release(8, 4, Guid{43});  // not its reservation
  CHECK(s.reserved_for(9) == Guid{42});
  s.release(8, 4, Guid{42});
  CHECK(s.reserved_for(9).is_zero());
}

TEST_CASE("lowest free block stays inside the range and says when it is full", "[sweep][lids]") {
  LidSpace s(3, 10);
  CHECK(s.lowest_free_block(8) == std::nullopt);  // 8-15 crosses 10
  CHECK(s.lowest_free_block(4) == 4);
  s.take(4, 4, 0);
  CHECK(s.lowest_free_block(4) == std::nullopt);
  CHECK(s.lowest_free_block(1) == 3);
  s.take(3, 1, 1);
  CHECK(s.lowest_free_block(1) == 8);
  s.take(8, 1, 2);
  CHECK(s.lowest_free_block(2) == std::nullopt);  // 10 alone is left
  CHECK(s.lowest_free_block(1) == 9);
  CHECK_FALSE(s.in_range(10, 2));
  CHECK(s.in_range(3, 8));
  CHECK_FALSE(s.in_range(2, 1));
}
