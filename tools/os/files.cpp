#include "tools/os/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sm/fabric/netfile_reader.h"

namespace ibsm {

Result<std::string> read_text_file(const std::string& path) {
  // An ifstream opens a directory and reads it as empty: a config named by
  // mistake as its folder would silently be all defaults.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return invalid_argument_error(fmt::format("cannot read {}: it is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return unavailable_error(fmt::format("cannot read {}", path));
  return s.str();
}

namespace {

// write(2) until all of `text` is out.
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    text.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

}  // namespace

Status write_file_atomically(const std::string& path, std::string_view text) {
  return write_file_atomically(path, [text](const PutText& put) { put(text); });
}

Status write_file_atomically(const std::string& path, const std::function<void(const PutText& put)>& produce) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return unavailable_error(fmt::format("cannot create {}: {}", tmp, std::strerror(errno)));
  bool ok = true;
  int put_errno = 0;
  // Write-behind: the kernel is asked to start writing each 8 MB back as it
  // is written, so the disk works while the rest is produced and the fsync
  // below waits for the last few MB only. The switch tables at the full LID
  // space are 395 MB of text: their fsync alone took 0.23 s, a tenth of the
  // disk's time for them. Only a hint: failures show at the fsync.
  constexpr off_t kWriteBehind = off_t{8} << 20;
  off_t produced = 0, kicked = 0;
  produce([&](std::string_view part) {
    if (ok && !write_all(fd, part)) {
      ok = false;
      put_errno = errno;
    }
    produced += static_cast<off_t>(part.size());
    if (ok && produced - kicked >= kWriteBehind) {
      (void)::sync_file_range(fd, kicked, produced - kicked, SYNC_FILE_RANGE_WRITE);
      kicked = produced;
    }
  });
  const bool written = ok && ::fsync(fd) == 0;
  const int saved_errno = ok ? errno : put_errno;
  if (::close(fd) != 0 || !written) {
    ::unlink(tmp.c_str());
    return unavailable_error(fmt::format("cannot write {}: {}", tmp, std::strerror(written ? errno : saved_errno)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return unavailable_error(fmt::format("cannot rename {} to {}: {}", tmp, path, why));
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return unavailable_error(fmt::format("cannot open {} to sync it: {}", dir, std::strerror(errno)));
  const bool synced = ::fsync(dfd) == 0;
  const std::string why = synced ? "" : std::strerror(errno);
  ::close(dfd);
  if (!synced) return unavailable_error(fmt::format("cannot sync {}: {}", dir, why));
  return {};
}

Status append_file_synced(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return unavailable_error(fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  const bool written = write_all(fd, text) && ::fsync(fd) == 0;
  const int saved_errno = errno;
  ::close(fd);
  if (!written) return unavailable_error(fmt::format("cannot append to {}: {}", path, std::strerror(saved_errno)));
  return {};
}

Status write_text_output(const std::string& path, std::string_view text) {
  if (path.empty() || path == "-") {
    if (std::fwrite(text.data(), 1, text.size(), stdout) != text.size())
      return unavailable_error("cannot write to standard output");
    std::fflush(stdout);
    return {};
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return unavailable_error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return unavailable_error(fmt::format("cannot write {}", path));
  return {};
}

Status write_stream_output(const std::string& path, const std::function<void(std::ostream&)>& write) {
  if (path.empty() || path == "-") {
    std::ostringstream text;  // standard output: small outputs, in one piece
    write(text);
    return write_text_output(path, text.str());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return unavailable_error(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  write(out);
  out.close();
  if (!out) return unavailable_error(fmt::format("cannot write {}", path));
  return {};
}

Result<Fabric> load_netfile(const std::string& path) {
  auto text = read_text_file(path);
  if (!text.ok()) return text.status();
  std::filesystem::path folder = std::filesystem::path(path).parent_path();
  NetfileOptions options;
  options.include_resolver = [folder](std::string_view name) -> Result<std::string> {
    std::filesystem::path p(name);
    if (p.is_relative()) p = folder / p;
    return read_text_file(p.string());
  };
  std::istringstream in(*text);
  return read_netfile(in, path, options);
}

}  // namespace ibsm
