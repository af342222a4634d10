#include "tools/os/file_log.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/time.h>

#include <fmt/format.h>

namespace ibsm {

FileLogSink::~FileLogSink() {
  if (file_) std::fclose(file_);
}

Status FileLogSink::open(const std::string& path) {
  if (path.empty()) return {};
  FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return unavailable_error(fmt::format("cannot open log file {}: {}", path, std::strerror(errno)));
  if (file_) std::fclose(file_);
  file_ = f;
  return {};
}

void FileLogSink::write(LogLevel level, Subsystem subsystem, std::string_view message) {
  timeval tv{};
  gettimeofday(&tv, nullptr);
  tm local{};
  localtime_r(&tv.tv_sec, &local);
  char when[32];
  std::strftime(when, sizeof when, "%b %d %H:%M:%S", &local);
  FILE* out = file_ ? file_ : stderr;
  std::fprintf(out, "%s.%06ld [%s] %s: %.*s\n", when, static_cast<long>(tv.tv_usec), log_level_name(level),
               subsystem_name(subsystem), static_cast<int>(message.size()), message.data());
  std::fflush(out);
}

}  // namespace ibsm
