// The huge-page restart at the edge: the program starts again with the
// tunable added to what the caller set, and not at all when the caller's
// GLIBC_TUNABLES already names it or IBSM_SMALL_PAGES is set. The restart
// is tried in a child process, with /bin/sh standing in for ibsm (reached,
// like ibsm through /proc/self/exe, through a symbolic link named "exe"),
// which writes what GLIBC_TUNABLES it was started with and its name.
#include <catch2/catch.hpp>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include "tests/tools/os/temp_dir.h"
#include "tools/os/files.h"
#include "tools/os/huge_page_heap.h"

namespace ibsm::test {
namespace {

// What the child wrote: the restarted shell's GLIBC_TUNABLES and name
// ("TUNABLES|sh"), or "no restart" when restart_on_huge_page_heap returned.
std::string restart_in_child(const std::optional<std::string>& tunables, bool small_pages) {
  const TempDir scratch;
  const std::string out = scratch.path + "/out";
  const std::string exe = scratch.path + "/exe";
  std::filesystem::create_symlink("/bin/sh", exe);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    if (tunables) ::setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
    else ::unsetenv("GLIBC_TUNABLES");
    if (small_pages) ::setenv("IBSM_SMALL_PAGES", "1", 1);
    else ::unsetenv("IBSM_SMALL_PAGES");
    const std::string script = "printf %s \"$GLIBC_TUNABLES|$(cat /proc/$$/comm)\" > " + out;
    char* argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"), const_cast<char*>(script.c_str()), nullptr};
    restart_on_huge_page_heap(argv, exe.c_str());
    (void)write_file_atomically(out, "no restart");
    ::_exit(0);
  }
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  auto text = read_text_file(out);
  REQUIRE(text.ok());
  return *text;
}

TEST_CASE("a whole-fabric command starts again on a huge-page heap unless told otherwise", "[tools][huge_pages]") {
  if (!transparent_huge_pages_enabled()) {
    CHECK(restart_in_child(std::nullopt, false) == "no restart");
    return;
  }
  CHECK(restart_in_child(std::nullopt, false) == "glibc.malloc.hugetlb=1|sh");
  CHECK(restart_in_child("glibc.malloc.arena_max=2", false) == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1|sh");
  CHECK(restart_in_child("glibc.malloc.hugetlb=0", false) == "no restart");
  CHECK(restart_in_child(std::nullopt, true) == "no restart");
}

}  // namespace
}  // namespace ibsm::test
