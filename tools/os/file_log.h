// A log sink writing timestamped lines to a file (the daemon's log_file) or
// to standard error.
#pragma once

#include <cstdio>
#include <string>

#include "mad/base/log.h"
#include "mad/base/status.h"

namespace ibsm {

class FileLogSink final : public FilteringLogSink {
 public:
  explicit FileLogSink(LogLevel level) : FilteringLogSink(level) {}
  ~FileLogSink() override;
  // Appends to `path` from now on; empty: standard error.
  Status open(const std::string& path);
  void write(LogLevel level, Subsystem subsystem, std::string_view message) override;

 private:
  FILE* file_ = nullptr;  // null: stderr
};

}  // namespace ibsm
