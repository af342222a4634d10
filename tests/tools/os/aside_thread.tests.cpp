// The daemon's AsideRunner: the job runs on a thread of its own, and is over
// when the waiter returns, or when the last copy of the waiter goes.
#include "tools/os/aside_thread.h"

#include <atomic>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

namespace ibsm {
namespace {

TEST_CASE("the thread runner runs the job beside its caller and joins it", "[os][aside]") {
  const AsideRunner runner = thread_aside_runner();
  SECTION("waited for: the job has run, on another thread") {
    std::thread::id ran_on;
    std::atomic<bool> go{false};
    int result = 0;
    std::function<void()> wait = runner([&] {
      while (!go.load()) std::this_thread::yield();  // runs only once the caller has moved on
      ran_on = std::this_thread::get_id();
      result = 42;
    });
    go = true;  // were the job run in place, the runner would never have returned
    wait();
    CHECK(result == 42);
    CHECK(ran_on != std::this_thread::get_id());
    wait();  // a second wait returns at once
  }
  SECTION("never waited for: the waiter's last copy joins the thread") {
    std::atomic<bool> done{false};
    {
      std::function<void()> wait = runner([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        done = true;
      });
      std::function<void()> copy = wait;
    }
    CHECK(done);
  }
}

}  // namespace
}  // namespace ibsm
