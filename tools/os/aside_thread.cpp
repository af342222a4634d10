#include "tools/os/aside_thread.h"

#include <memory>
#include <thread>
#include <utility>

namespace ibsm {

namespace {

struct Joined {
  std::thread thread;
  void join() {
    if (thread.joinable()) thread.join();
  }
  ~Joined() { join(); }
};

}  // namespace

AsideRunner thread_aside_runner() {
  return [](std::function<void()> job) -> std::function<void()> {
    auto joined = std::make_shared<Joined>();
    joined->thread = std::thread(std::move(job));
    return [joined] { joined->join(); };
  };
}

}  // namespace ibsm
