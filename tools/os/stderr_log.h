// A log sink writing "ibsm: <level>: <subsystem>: message" lines to stderr.
#pragma once

#include <chrono>
#include <cstdio>

#include "mad/base/log.h"

namespace ibsm {

class StderrLogSink final : public FilteringLogSink {
 public:
  using FilteringLogSink::FilteringLogSink;
  void write(LogLevel level, Subsystem subsystem, std::string_view message) override {
    std::fprintf(stderr, "ibsm: %s: %s: %.*s\n", log_level_name(level), subsystem_name(subsystem),
                 static_cast<int>(message.size()), message.data());
  }
};

// The same with the seconds since the sink was made in front of each line,
// "ibsm: [  3.412] info: routing: ...", for offline runs whose phases are
// timed from the log (bench/routing.sh).
class ElapsedStderrLogSink final : public FilteringLogSink {
 public:
  using FilteringLogSink::FilteringLogSink;
  void write(LogLevel level, Subsystem subsystem, std::string_view message) override {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "ibsm: [%8.3f] %s: %s: %.*s\n", elapsed, log_level_name(level), subsystem_name(subsystem),
                 static_cast<int>(message.size()), message.data());
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace ibsm
