// A log sink writing timestamped lines to a file (the daemon's log_file) or
// to standard error, and, under systemd, to the journal.
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
  // SIGUSR1 (logrotate): closes the file and opens the same path again, so a
  // file moved away is left behind and a new one starts at the path. On
  // failure the old file stays in use.
  Status reopen();
  // Every line also goes to standard error with sd-daemon's "<N>" priority
  // prefix (sd-daemon.h, SD_ERR..SD_DEBUG), which journald reads from a
  // service's stderr stream; no timestamp there, the journal has its own.
  void set_journal(bool on) { journal_ = on; }
  void write(LogLevel level, Subsystem subsystem, std::string_view message) override;

 private:
  std::string path_;
  FILE* file_ = nullptr;  // null: stderr
  bool journal_ = false;
};

// Whether standard error is the journal of a systemd service: systemd sets
// JOURNAL_STREAM to the stream's "device:inode" (systemd.exec(5)), and it
// must still be our stderr (not inherited by a child whose stderr moved).
bool stderr_is_journal();

}  // namespace ibsm
