// The heap on transparent huge pages, for the commands that hold a whole
// fabric's tables. `ibsm run` at the full LID space holds some 1 GB, most
// of it forwarding tables that routing, the route check and programming read
// switch by switch: on 4 kB pages the bring-up took half a million page
// faults (0.6 s of system time) and a TLB miss on most table rows. glibc
// backs its heap with huge pages only when told so at process start
// (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, where the kernel leaves THP to
// madvise, as Debian's does), so the process starts itself again with it.
#pragma once

namespace ibsm {

// Executes `exe` (this program; where it is a symbolic link, the file it
// names) again with glibc.malloc.hugetlb=1 added to
// GLIBC_TUNABLES, unless GLIBC_TUNABLES already says anything of
// glibc.malloc.hugetlb (so an operator can set 0), the kernel has THP
// off, or IBSM_SMALL_PAGES is set. Returns only when it did not (or the
// exec failed: the command then runs on 4 kB pages, as before).
void restart_on_huge_page_heap(char** argv, const char* exe = "/proc/self/exe");
// Whether the kernel gives huge pages at all (THP not "never").
bool transparent_huge_pages_enabled();

}  // namespace ibsm
