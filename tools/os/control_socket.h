// The daemon's control socket (ibsm ctl), both ends of its protocol.
//
// A Unix stream socket, the only control path (nothing listens on a network
// port). The file is mode 0600, or 0660 with the control group; every
// connection is checked again with SO_PEERCRED: root, the daemon's own uid
// and members of the group (primary or supplementary, as the peer process
// holds them in /proc/PID/status) are served, anyone else gets a one-line
// error and the connection closed.
//
// The protocol is a word protocol: one request line of words ("resweep
// heavy", "loglevel debug", "dump /tmp/d", "status json"), at most
// kMaxRequest bytes, then one answer and the server closes: a first line
// "ok" or "error: MESSAGE", then the body. Words, not JSON: a request is a
// verb and an argument or two, so a line needs no parser and no escaping
// (arguments are single words: no paths with blanks), and the answer's body
// is JSON already when the client asked for it.
//
// The server's socket I/O runs on its own thread, so a slow, silent,
// oversized or vanishing client never stalls the sweep or the SA: reads and
// writes are non-blocking with a deadline each. A request the thread cannot
// answer itself (`immediate`, e.g. status from the snapshot the main loop
// published) waits in a queue for the main thread, which runs it between
// the manager's polls (run_pending) and hands the answer back.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mad/base/status.h"

namespace ibsm {

inline constexpr size_t kMaxRequest = 1024;  // bytes of the request line, its newline included

struct ControlAnswer {
  bool ok = true;
  std::string body;  // ok: the output; not ok: the one-line message
};
ControlAnswer control_error(std::string message);

using ControlWords = std::vector<std::string>;

struct ControlServerOptions {
  std::string path;  // the config key control_socket
  std::string group;  // empty: root (and the daemon's own uid) only
  std::chrono::milliseconds io_timeout{5000};  // to read the request, and to write the answer
  size_t max_clients = 16;                     // more at once are refused
};

class ControlServer {
 public:
  // Answers on the I/O thread, or nullopt: the request goes to the main thread.
  using Immediate = std::function<std::optional<ControlAnswer>(const ControlWords&)>;
  using Handler = std::function<ControlAnswer(const ControlWords&)>;

  // Binds the socket (replacing a stale one; refusing when a daemon answers
  // there) and starts the I/O thread.
  static Result<std::unique_ptr<ControlServer>> start(const ControlServerOptions& options, Immediate immediate);
  ~ControlServer();  // stops the thread, closes and unlinks the socket
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Main thread: runs the waiting requests through `handler`, in order.
  void run_pending(const Handler& handler);
  // Main thread: what the I/O thread saw (refused peers, bad requests), as
  // log lines, since the last call; the I/O thread never logs itself.
  std::vector<std::string> take_events();
  // Readable while requests wait for run_pending: for the main loop's wait.
  int wake_fd() const;

  struct Impl;

 private:
  explicit ControlServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The client's side: sends `words` as one request and returns the answer,
// or unavailable (no daemon at `path`), permission denied as
// failed_precondition, timeout.
Result<ControlAnswer> control_call(const std::string& path, const ControlWords& words,
                                   std::chrono::milliseconds timeout);

}  // namespace ibsm
