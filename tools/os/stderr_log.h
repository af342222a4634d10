// A log sink writing "ibsm: <level>: <subsystem>: message" lines to stderr.
#pragma once

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

}  // namespace ibsm
