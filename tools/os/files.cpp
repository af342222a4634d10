#include "tools/os/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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
