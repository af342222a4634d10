#include "mad/base/small_callback.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <catch2/catch.hpp>

using namespace ibsm;

TEST_CASE("a small callback runs what it holds, inline or on the heap", "[base][callback]") {
  int calls = 0;
  SmallCallback none;
  CHECK_FALSE(none);
  SmallCallback null_one = nullptr;
  CHECK_FALSE(null_one);

  // `this`, a GUID and a node, as the sweep captures: inline.
  void* self = &calls;
  uint64_t guid = 7;
  std::optional<uint32_t> node = 3;
  SmallCallback small = [&calls, self, guid, node] { calls += (self != nullptr) + static_cast<int>(guid) + static_cast<int>(*node); };
  REQUIRE(small);
  small();
  CHECK(calls == 11);

  // Too big for the inline room: on the heap, still moved and destroyed once.
  auto counted = std::make_shared<int>(0);
  std::array<uint64_t, 8> big{1, 2, 3, 4, 5, 6, 7, 8};
  SmallCallback large = [&calls, big, counted] { calls += static_cast<int>(big[7]); };
  CHECK(counted.use_count() == 2);
  SmallCallback moved = std::move(large);
  CHECK_FALSE(large);  // NOLINT: moved-from is empty, by design
  moved();
  CHECK(calls == 19);
  moved = nullptr;
  CHECK(counted.use_count() == 1);

  // Inline captures are destroyed once, through moves too.
  auto owned = std::make_shared<int>(0);
  {
    SmallCallback a = [owned] {};
    CHECK(owned.use_count() == 2);
    std::vector<SmallCallback> v;
    v.push_back(std::move(a));
    v.emplace_back([owned] {});
    v.resize(40);  // reallocates: moves the two
    CHECK(owned.use_count() == 3);
    v[0] = std::move(v[1]);
    CHECK(owned.use_count() == 2);
  }
  CHECK(owned.use_count() == 1);
}

TEST_CASE("an empty std::function or null function pointer makes an empty callback", "[base][callback]") {
  std::function<void()> empty;
  SmallCallback from_empty = empty;
  CHECK_FALSE(from_empty);
  void (*null_fn)() = nullptr;
  SmallCallback from_null = null_fn;
  CHECK_FALSE(from_null);
  int calls = 0;
  std::function<void()> full = [&calls] { ++calls; };
  SmallCallback from_full = full;
  REQUIRE(from_full);
  from_full();
  CHECK(calls == 1);
}
