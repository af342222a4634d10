/* umad_mark: an LD_PRELOAD shim for bench/failover.sh. It counts the MADs a
 * process sends through libibumad (umad_send) inside a window that the
 * benchmark marks with two files: a send counts if, when it is made, the file
 * named by UMAD_MARK_START exists and the one named by UMAD_MARK_END does not.
 * At exit it appends one line to the file named by UMAD_MARK_FILE (or stderr):
 *   <pid> <comm> <sends in the window> <window seconds> <requests> <responses>
 * (responses: the MADs with the R bit in their method, e.g. GetResp; the
 * rest, TrapRepress included, are counted as requests)
 * the window running from the start file's mtime to the end file's mtime (or
 * to the exit if there is no end file). Preload it ahead of umad_count.so,
 * which still counts every send by kind. A benchmark aid, not part of ibsm. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <infiniband/umad.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int (*real_send)(int, int, void *, int, int, int);
static int started, ended;
static unsigned long in_window, responses;

static int exists(const char *path) { return path && access(path, F_OK) == 0; }

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries) {
  if (!real_send) real_send = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
  int rc = real_send(portid, agentid, umad, length, timeout_ms, retries);
  if (rc == 0 && !ended) {
    if (!started) started = exists(getenv("UMAD_MARK_START"));
    if (started) ended = exists(getenv("UMAD_MARK_END"));
    if (started && !ended && length >= 4) {
      /* not thread-safe: a count off by one at worst */
      ++in_window;
      if (((const unsigned char *)umad_get_mad(umad))[3] & 0x80) ++responses;
    }
  }
  return rc;
}

static double mtime_of(const char *path) {
  struct stat st;
  if (!path || stat(path, &st) != 0) return -1;
  return (double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9;
}

static void report(void) __attribute__((destructor));
static void report(void) {
  const char *start = getenv("UMAD_MARK_START");
  if (!start) return;
  double from = mtime_of(start), to = mtime_of(getenv("UMAD_MARK_END"));
  if (to < 0) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    to = (double)now.tv_sec + now.tv_nsec / 1e9;
  }
  const char *path = getenv("UMAD_MARK_FILE");
  FILE *out = path ? fopen(path, "a") : stderr;
  if (!out) return;
  char name[256] = "?";
  FILE *cmd = fopen("/proc/self/comm", "r");
  if (cmd) {
    if (fscanf(cmd, "%255s", name) != 1) name[0] = '?';
    fclose(cmd);
  }
  fprintf(out, "%d %s %lu %.3f %lu %lu\n", (int)getpid(), name, in_window, from < 0 ? 0.0 : to - from,
          in_window - responses, responses);
  if (out != stderr) fclose(out);
}
