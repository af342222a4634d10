#include "tools/os/control_socket.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "mad/base/text.h"

namespace ibsm {

ControlAnswer control_error(std::string message) { return ControlAnswer{false, std::move(message)}; }

namespace {

using SteadyClock = std::chrono::steady_clock;

std::string errno_text() { return std::strerror(errno); }

ControlWords control_words(std::string_view line) {
  ControlWords words;
  for (std::string_view w : split_words(line)) words.emplace_back(w);
  return words;
}

std::string render_answer(const ControlAnswer& a) {
  if (!a.ok) return "error: " + a.body + "\n";
  return "ok\n" + a.body;
}

Result<sockaddr_un> socket_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path))
    return invalid_argument_error(fmt::format("control socket path '{}': empty or longer than {} bytes", path,
                                              sizeof(addr.sun_path) - 1));
  std::memcpy(addr.sun_path, path.data(), path.size());
  return addr;
}

// The peer process's groups, primary and supplementary, as it holds them
// now (/proc/PID/status "Gid:" and "Groups:"); the user's groups from the
// group database when /proc cannot be read.
std::vector<gid_t> peer_groups(const ucred& peer) {
  std::vector<gid_t> groups{peer.gid};
  std::ifstream status(fmt::format("/proc/{}/status", peer.pid));
  bool from_proc = false;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Groups:", 0) != 0) continue;
    from_proc = true;
    std::istringstream in(line.substr(7));
    for (long g; in >> g;) groups.push_back(static_cast<gid_t>(g));
  }
  if (from_proc) return groups;
  passwd pw{}, *found = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(peer.uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) return groups;
  int n = 64;
  std::vector<gid_t> list(static_cast<size_t>(n));
  if (getgrouplist(pw.pw_name, peer.gid, list.data(), &n) < 0) {
    list.resize(static_cast<size_t>(n));
    if (getgrouplist(pw.pw_name, peer.gid, list.data(), &n) < 0) return groups;
  }
  list.resize(static_cast<size_t>(n));
  groups.insert(groups.end(), list.begin(), list.end());
  return groups;
}

}  // namespace

struct ControlServer::Impl {
  struct Conn {
    int fd = -1;
    std::string in, out;
    size_t written = 0;
    SteadyClock::time_point deadline;
    enum class Phase { reading, waiting, writing } phase = Phase::reading;
  };
  struct Pending {
    uint64_t id;
    ControlWords words;
  };

  ControlServerOptions options;
  Immediate immediate;
  std::optional<gid_t> group;
  int listen_fd = -1;
  int thread_wake = -1;  // eventfd: answers posted, or stop
  int main_wake = -1;    // eventfd: requests wait for the main thread
  std::thread thread;

  std::mutex mu;  // guards what follows
  bool stop = false;
  std::deque<Pending> pending;
  std::map<uint64_t, ControlAnswer> answers;
  std::vector<std::string> events;

  // I/O thread only.
  std::map<uint64_t, Conn> conns;
  uint64_t next_id = 1;

  ~Impl() {
    if (thread.joinable()) {
      {
        std::lock_guard lock(mu);
        stop = true;
      }
      signal(thread_wake);
      thread.join();
    }
    for (auto& [id, c] : conns) ::close(c.fd);
    if (listen_fd >= 0) {
      ::close(listen_fd);
      ::unlink(options.path.c_str());
    }
    if (thread_wake >= 0) ::close(thread_wake);
    if (main_wake >= 0) ::close(main_wake);
  }

  static void signal(int efd) {
    const uint64_t one = 1;
    (void)!::write(efd, &one, sizeof one);
  }
  static void drain(int efd) {
    uint64_t n;
    (void)!::read(efd, &n, sizeof n);
  }

  void event(std::string line) {
    std::lock_guard lock(mu);
    if (events.size() < 100) events.push_back(std::move(line));
  }

  // Root, the daemon's own uid, or a member of the control group.
  std::optional<std::string> refusal(int fd) {
    ucred peer{};
    socklen_t len = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &len) != 0) return "cannot read the peer's credentials";
    if (peer.uid == 0 || peer.uid == geteuid()) return std::nullopt;
    if (group)
      for (gid_t g : peer_groups(peer))
        if (g == *group) return std::nullopt;
    return fmt::format("uid {} (pid {}) is not root{}", peer.uid, peer.pid,
                       options.group.empty() ? "" : fmt::format(" nor in group {}", options.group));
  }

  void accept_all() {
    for (;;) {
      int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN: no more; anything else: try at the next wake
      Conn c;
      c.fd = fd;
      c.deadline = SteadyClock::now() + options.io_timeout;
      const uint64_t id = next_id++;
      if (auto why = refusal(fd)) {
        event(fmt::format("control socket: refused {}", *why));
        answer(c, control_error("permission denied: " + *why));
      } else if (conns.size() >= options.max_clients) {
        event("control socket: refused a client: too many at once");
        answer(c, control_error(fmt::format("busy: {} clients at once", options.max_clients)));
      }
      conns.emplace(id, std::move(c));
    }
  }

  void answer(Conn& c, const ControlAnswer& a) {
    c.out = render_answer(a);
    c.written = 0;
    c.phase = Conn::Phase::writing;
    c.deadline = SteadyClock::now() + options.io_timeout;
  }

  // false: the connection is done with (closed by the caller).
  bool read_some(uint64_t id, Conn& c) {
    char buf[512];
    for (;;) {
      ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n == 0) {
        event("control socket: a client disconnected before its request was complete");
        return false;
      }
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        if (errno == EINTR) continue;
        return false;
      }
      c.in.append(buf, static_cast<size_t>(n));
      const size_t nl = c.in.find('\n');
      if (nl == std::string::npos && c.in.size() < kMaxRequest) continue;
      if (nl == std::string::npos || nl + 1 > kMaxRequest) {
        event(fmt::format("control socket: refused a request longer than {} bytes", kMaxRequest));
        answer(c, control_error(fmt::format("request longer than {} bytes", kMaxRequest)));
        return true;
      }
      ControlWords words = control_words(std::string_view(c.in).substr(0, nl));
      if (words.empty()) {
        answer(c, control_error("empty request"));
        return true;
      }
      if (auto now = immediate ? immediate(words) : std::nullopt) {
        answer(c, *now);
        return true;
      }
      c.phase = Conn::Phase::waiting;
      {
        std::lock_guard lock(mu);
        pending.push_back({id, std::move(words)});
      }
      signal(main_wake);
      return true;
    }
  }

  bool write_some(Conn& c) {
    while (c.written < c.out.size()) {
      ssize_t n = ::send(c.fd, c.out.data() + c.written, c.out.size() - c.written, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
        if (errno == EINTR) continue;
        return false;
      }
      c.written += static_cast<size_t>(n);
    }
    return false;  // all written: close
  }

  void run() {
    for (;;) {
      {
        std::lock_guard lock(mu);
        if (stop) return;
        for (auto& [id, a] : answers)
          if (auto it = conns.find(id); it != conns.end()) answer(it->second, a);
        answers.clear();
      }
      std::vector<pollfd> fds{{listen_fd, POLLIN, 0}, {thread_wake, POLLIN, 0}};
      std::vector<uint64_t> ids;
      auto soonest = SteadyClock::now() + std::chrono::seconds(10);
      for (auto& [id, c] : conns) {
        if (c.phase == Conn::Phase::waiting) continue;  // the main thread has it: no deadline
        fds.push_back({c.fd, static_cast<short>(c.phase == Conn::Phase::reading ? POLLIN : POLLOUT), 0});
        ids.push_back(id);
        soonest = std::min(soonest, c.deadline);
      }
      const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(soonest - SteadyClock::now()).count() + 1;
      if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<int64_t>(wait, 0))) < 0 && errno != EINTR) return;
      if (fds[1].revents) drain(thread_wake);
      if (fds[0].revents & POLLIN) accept_all();
      const auto now = SteadyClock::now();
      for (size_t i = 0; i < ids.size(); ++i) {
        auto it = conns.find(ids[i]);
        if (it == conns.end()) continue;
        Conn& c = it->second;
        bool keep = true;
        if (fds[i + 2].revents) {
          keep = c.phase == Conn::Phase::reading ? read_some(ids[i], c) : write_some(c);
          if (keep && c.phase == Conn::Phase::writing) keep = write_some(c);
        } else if (now >= c.deadline) {
          if (c.phase == Conn::Phase::reading) {
            event("control socket: a client sent no complete request in time");
            answer(c, control_error("timed out waiting for the request line"));
            keep = write_some(c);
          } else {
            event("control socket: a client did not read its answer in time");
            keep = false;
          }
        }
        if (!keep) {
          ::close(c.fd);
          conns.erase(it);
        }
      }
    }
  }
};

ControlServer::ControlServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ControlServer::~ControlServer() = default;

Result<std::unique_ptr<ControlServer>> ControlServer::start(const ControlServerOptions& options, Immediate immediate) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->immediate = std::move(immediate);
  if (!options.group.empty()) {
    group g{}, *found = nullptr;
    std::vector<char> buf(16384);
    if (getgrnam_r(options.group.c_str(), &g, buf.data(), buf.size(), &found) != 0 || !found)
      return invalid_argument_error(fmt::format("control_group '{}': no such group", options.group));
    impl->group = g.gr_gid;
  }
  auto addr = socket_address(options.path);
  if (!addr.ok()) return addr.status();
  const std::filesystem::path dir = std::filesystem::path(options.path).parent_path();
  std::error_code ec;
  if (!dir.empty() && !std::filesystem::exists(dir, ec)) {
    std::filesystem::create_directories(dir, ec);
    if (ec) return unavailable_error(fmt::format("control socket directory {}: {}", dir.string(), ec.message()));
  }
  // A socket left by a daemon that died is replaced; one a daemon answers on is not.
  if (std::filesystem::exists(options.path, ec)) {
    int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live = probe >= 0 && ::connect(probe, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) == 0;
    if (probe >= 0) ::close(probe);
    if (live) return unavailable_error(fmt::format("control socket {}: another daemon listens there", options.path));
    ::unlink(options.path.c_str());
  }
  impl->listen_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (impl->listen_fd < 0) return unavailable_error("control socket: " + errno_text());
  // Created with the final mode (no moment when it is wider): the umask
  // covers bind(), which runs before the daemon starts any thread.
  const mode_t mode = impl->group ? 0660 : 0600;
  const mode_t old_mask = ::umask(0777 & ~mode);
  const int bound = ::bind(impl->listen_fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr);
  const int bind_errno = errno;
  ::umask(old_mask);
  if (bound != 0) {
    ::close(impl->listen_fd);
    impl->listen_fd = -1;
    return unavailable_error(fmt::format("control socket {}: {}", options.path, std::strerror(bind_errno)));
  }
  if (impl->group && ::chown(options.path.c_str(), static_cast<uid_t>(-1), *impl->group) != 0)
    return unavailable_error(fmt::format("control socket {}: chown to group {}: {}", options.path, options.group,
                                         errno_text()));
  if (::chmod(options.path.c_str(), mode) != 0)
    return unavailable_error(fmt::format("control socket {}: chmod: {}", options.path, errno_text()));
  if (::listen(impl->listen_fd, 16) != 0) return unavailable_error("control socket listen: " + errno_text());
  impl->thread_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  impl->main_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (impl->thread_wake < 0 || impl->main_wake < 0) return unavailable_error("control socket eventfd: " + errno_text());
  Impl* raw = impl.get();
  // The daemon's signals (SIGHUP, SIGTERM) go to the main thread, whose
  // wait they interrupt: the I/O thread starts with every signal blocked.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  impl->thread = std::thread([raw] { raw->run(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return std::unique_ptr<ControlServer>(new ControlServer(std::move(impl)));
}

void ControlServer::run_pending(const Handler& handler) {
  std::deque<Impl::Pending> todo;
  {
    std::lock_guard lock(impl_->mu);
    todo.swap(impl_->pending);
  }
  Impl::drain(impl_->main_wake);
  if (todo.empty()) return;
  std::map<uint64_t, ControlAnswer> done;
  for (const auto& p : todo) done.emplace(p.id, handler(p.words));
  {
    std::lock_guard lock(impl_->mu);
    for (auto& [id, a] : done) impl_->answers.insert_or_assign(id, std::move(a));
  }
  Impl::signal(impl_->thread_wake);
}

std::vector<std::string> ControlServer::take_events() {
  std::lock_guard lock(impl_->mu);
  return std::exchange(impl_->events, {});
}

int ControlServer::wake_fd() const { return impl_->main_wake; }

Result<ControlAnswer> control_call(const std::string& path, const ControlWords& words,
                                   std::chrono::milliseconds timeout) {
  auto addr = socket_address(path);
  if (!addr.ok()) return addr.status();
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return unavailable_error("socket: " + errno_text());
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&*addr), sizeof *addr) != 0) {
    if (errno == EACCES || errno == EPERM)
      return failed_precondition_error(
          fmt::format("permission denied on {}: root or a member of the daemon's control_group only", path));
    return unavailable_error(fmt::format("no ibsm daemon at {}: {}", path, errno_text()));
  }
  std::string line;
  for (const auto& w : words) line += (line.empty() ? "" : " ") + w;
  line += '\n';
  const auto deadline = SteadyClock::now() + timeout;
  auto wait_for = [&](short events) -> Status {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()).count();
      if (left <= 0) return timeout_error(fmt::format("no answer from the daemon at {} within {} ms", path, timeout.count()));
      pollfd p{fd, events, 0};
      int n = ::poll(&p, 1, static_cast<int>(left));
      if (n > 0) return {};
      if (n < 0 && errno != EINTR) return unavailable_error("poll: " + errno_text());
    }
  };
  for (size_t sent = 0; sent < line.size();) {
    IBSM_RETURN_IF_ERROR(wait_for(POLLOUT));
    ssize_t n = ::send(fd, line.data() + sent, line.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EINTR) break;  // refused peers are closed early: read the reason
    if (n > 0) sent += static_cast<size_t>(n);
  }
  std::string reply;
  char buf[4096];
  for (;;) {
    IBSM_RETURN_IF_ERROR(wait_for(POLLIN));
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      if (errno == ECONNRESET && !reply.empty()) break;
      return unavailable_error(fmt::format("reading the answer from {}: {}", path, errno_text()));
    }
    reply.append(buf, static_cast<size_t>(n));
  }
  const size_t nl = reply.find('\n');
  const std::string first = reply.substr(0, nl);
  const std::string body = nl == std::string::npos ? std::string() : reply.substr(nl + 1);
  if (first == "ok") return ControlAnswer{true, body};
  if (first.rfind("error: ", 0) == 0) return control_error(first.substr(7));
  return internal_error(fmt::format("the daemon at {} answered something that is not the control protocol", path));
}

}  // namespace ibsm
