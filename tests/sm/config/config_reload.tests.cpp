#include "sm/config/config_reload.h"

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("diff_config names the keys that changed, as the file spells them", "[config][reload]") {
  SmConfig a;
  SmConfig b = a;
  CHECK(diff_config(a, b).empty());
  b.sweep_interval = 3;
  b.sm_key = 0x22;
  auto changes = diff_config(a, b);
  REQUIRE(changes.size() == 2);
  CHECK(changes[0].key->key == "sweep_interval");
  CHECK(changes[0].old_value == "10");
  CHECK(changes[0].new_value == "3");
  CHECK(changes[1].key->key == "sm_key");
  CHECK(restart_needed_message(changes[1]) ==
        "sm_key: needs a restart; kept 0x0000000000000001 (file says 0x0000000000000022)");
}

TEST_CASE("apply_reloadable takes the reloadable keys and keeps the restart-only ones", "[config][reload]") {
  SmConfig current;
  SmConfig next;
  next.sweep_interval = 3;
  next.log_level = 4;
  next.sm_key = 0x22;
  next.lmc = 2;
  next.log_file = "/tmp/elsewhere.log";
  const SmConfig merged = apply_reloadable(current, next);
  CHECK(merged.sweep_interval == 3);
  CHECK(merged.log_level == 4);
  CHECK(merged.sm_key == 1);
  CHECK(merged.lmc == 0);
  CHECK(merged.log_file.empty());
  // What is left differs only in restart-only keys.
  for (const auto& c : diff_config(merged, next)) CHECK_FALSE(c.key->hot_reload);
}
