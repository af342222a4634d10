#include "tools/os/sm_cache_writer.h"

#include <sys/resource.h>
#include <unistd.h>


namespace ibsm {

SmCacheWriter::SmCacheWriter(CacheSaves saves)
    : saves_(saves), saver_(/*journal=*/saves == CacheSaves::repeatedly), thread_([this] { run(); }) {}

SmCacheWriter::~SmCacheWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void SmCacheWriter::submit(std::string dir, SweepState state) {
  {
    std::lock_guard lock(mutex_);
    pending_.emplace(std::move(dir), std::move(state));
  }
  changed_.notify_all();
}

void SmCacheWriter::flush() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [this] { return !pending_ && !saving_; });
}

std::vector<std::string> SmCacheWriter::take_errors() {
  std::lock_guard lock(mutex_);
  return std::exchange(errors_, {});
}

void SmCacheWriter::run() {
  // Background work: the lowest CPU priority for this thread alone (Linux
  // gives each thread its own nice value), so on a busy host the sweeps and
  // the SA come first. Failing that it merely competes.
  if (saves_ == CacheSaves::repeatedly) (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return pending_ || stopping_; });
    if (!pending_) return;  // stopping, and everything handed over is saved
    auto [dir, state] = std::move(*pending_);
    pending_.reset();
    saving_ = true;
    lock.unlock();
    const Status saved = saver_.save(dir, state);
    lock.lock();
    saving_ = false;
    if (!saved.ok()) errors_.push_back(saved.message());
    changed_.notify_all();
  }
}

}  // namespace ibsm
