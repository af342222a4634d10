// Logging through a small sink interface. The core formats nothing unless the
// sink wants the level and subsystem; the edge decides where lines go (stderr,
// a file, syslog). Messages are lower-case and name the object they are about.
#pragma once

#include <cstdint>
#include <string_view>

#include <fmt/format.h>

namespace ibsm {

enum class LogLevel : uint8_t { error = 0, warn = 1, info = 2, debug = 3, trace = 4 };
const char* log_level_name(LogLevel l);

// Subsystems can be switched on one by one (bit per subsystem).
enum class Subsystem : uint8_t { core = 0, mad, sim, discovery, sweep, routing, sa, state, tools, perfmgr, count_ };
const char* subsystem_name(Subsystem s);

class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual bool enabled(LogLevel level, Subsystem subsystem) const = 0;
  virtual void write(LogLevel level, Subsystem subsystem, std::string_view message) = 0;
};

// Drops everything: the default when nobody cares.
class NullLogSink final : public LogSink {
 public:
  bool enabled(LogLevel, Subsystem) const override { return false; }
  void write(LogLevel, Subsystem, std::string_view) override {}
};
LogSink& null_log_sink();

// Filters by level and a subsystem mask, hands finished lines to a callback-free
// virtual `emit` so an edge can direct them (stderr, file, memory for tests).
class FilteringLogSink : public LogSink {
 public:
  explicit FilteringLogSink(LogLevel level = LogLevel::info, uint32_t subsystem_mask = ~0u)
      : level_(level), mask_(subsystem_mask) {}
  bool enabled(LogLevel level, Subsystem s) const override {
    return level <= level_ && (mask_ & (1u << static_cast<unsigned>(s))) != 0;
  }
  void set_level(LogLevel level) { level_ = level; }
  void set_subsystem_mask(uint32_t mask) { mask_ = mask; }

 private:
  LogLevel level_;
  uint32_t mask_;
};

void vlog(LogSink& sink, LogLevel level, Subsystem subsystem, fmt::string_view format, fmt::format_args args);

template <typename... Args>
void log(LogSink& sink, LogLevel level, Subsystem subsystem, fmt::format_string<Args...> format, Args&&... args) {
  if (!sink.enabled(level, subsystem)) return;
  vlog(sink, level, subsystem, format, fmt::make_format_args(args...));
}

}  // namespace ibsm
