#include "tools/os/file_log.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <fmt/format.h>

namespace ibsm {
namespace {

// syslog priorities (sd-daemon.h's SD_ERR 3, SD_WARNING 4, SD_INFO 6,
// SD_DEBUG 7); trace is debug to the journal.
int journal_priority(LogLevel level) {
  switch (level) {
    case LogLevel::error: return 3;
    case LogLevel::warn: return 4;
    case LogLevel::info: return 6;
    case LogLevel::debug:
    case LogLevel::trace: return 7;
  }
  return 6;
}

}  // namespace

FileLogSink::~FileLogSink() {
  if (file_) std::fclose(file_);
}

Status FileLogSink::open(const std::string& path) {
  if (path.empty()) return {};
  FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return unavailable_error(fmt::format("cannot open log file {}: {}", path, std::strerror(errno)));
  if (file_) std::fclose(file_);
  file_ = f;
  path_ = path;
  return {};
}

Status FileLogSink::reopen() {
  if (path_.empty()) return {};
  return open(path_);
}

void FileLogSink::write(LogLevel level, Subsystem subsystem, std::string_view message) {
  const int size = static_cast<int>(message.size());
  if (journal_) {
    std::fprintf(stderr, "<%d>%s: %.*s\n", journal_priority(level), subsystem_name(subsystem), size, message.data());
    std::fflush(stderr);
    if (!file_) return;
  }
  timeval tv{};
  gettimeofday(&tv, nullptr);
  tm local{};
  localtime_r(&tv.tv_sec, &local);
  char when[32];
  std::strftime(when, sizeof when, "%b %d %H:%M:%S", &local);
  FILE* out = file_ ? file_ : stderr;
  std::fprintf(out, "%s.%06ld [%s] %s: %.*s\n", when, static_cast<long>(tv.tv_usec), log_level_name(level),
               subsystem_name(subsystem), size, message.data());
  std::fflush(out);
}

bool stderr_is_journal() {
  const char* stream = std::getenv("JOURNAL_STREAM");
  if (!stream) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(stream, "%llu:%llu", &dev, &ino) != 2) return false;
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0) return false;
  return static_cast<unsigned long long>(st.st_dev) == dev && static_cast<unsigned long long>(st.st_ino) == ino;
}

}  // namespace ibsm
