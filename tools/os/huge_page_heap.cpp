#include "tools/os/huge_page_heap.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <unistd.h>

namespace ibsm {

namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";

}  // namespace

// "always [madvise] never": huge pages unless the choice is never.
bool transparent_huge_pages_enabled() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  return std::getline(in, modes) && modes.find("[never]") == std::string::npos;
}

void restart_on_huge_page_heap(char** argv, const char* exe) {
  if (std::getenv("IBSM_SMALL_PAGES") != nullptr) return;
  // A copy: setenv below may replace the string getenv points at.
  const char* set = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> tunables = set ? std::optional<std::string>(set) : std::nullopt;
  if (tunables && tunables->find(kTunable) != std::string::npos) return;  // set, either way: done
  if (!transparent_huge_pages_enabled()) return;
  std::string value = tunables && !tunables->empty() ? *tunables + ":" : std::string();
  value += std::string(kTunable) + "=1";
  if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  // The file itself, not /proc/self/exe: the process keeps its name
  // (ps, pgrep, the journal's and umad_count's "ibsm"), which the kernel
  // takes from the path executed.
  std::error_code ec;
  const std::filesystem::path path = std::filesystem::read_symlink(exe, ec);
  ::execv(ec ? exe : path.c_str(), argv);
  // The exec failed: run on as we are, with the caller's setting.
  if (tunables) ::setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
  else ::unsetenv("GLIBC_TUNABLES");
}

}  // namespace ibsm
