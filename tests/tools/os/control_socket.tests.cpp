// The control socket in one process: the server's I/O thread, the client,
// answers from the thread and from the main thread, and the bad clients
// (oversized, silent, gone) that must not hold anything up.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <thread>

#include <catch2/catch.hpp>

#include "tools/os/control_socket.h"

namespace ibsm {
namespace {

using namespace std::chrono_literals;

std::string temp_socket() {
  char dir[] = "/tmp/ibsm-ctl-test.XXXXXX";
  REQUIRE(::mkdtemp(dir));
  return std::string(dir) + "/ctl.sock";
}

// A raw client: connects, sends `bytes` (closing at once when `close_early`), returns what it reads.
std::string raw_client(const std::string& path, const std::string& bytes, bool close_early = false) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  (void)!::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  std::string got;
  if (!close_early) {
    char buf[256];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return got;
}

struct Served {
  std::string path = temp_socket();
  std::unique_ptr<ControlServer> server;
  std::atomic<bool> stop{false};
  std::thread main_loop;
  explicit Served(std::chrono::milliseconds io_timeout = 5000ms) {
    ControlServerOptions o;
    o.path = path;
    o.io_timeout = io_timeout;
    auto s = ControlServer::start(o, [](const ControlWords& w) -> std::optional<ControlAnswer> {
      if (w[0] == "status") return ControlAnswer{true, "from the thread\n"};
      return std::nullopt;
    });
    REQUIRE(s.ok());
    server = std::move(*s);
    // The daemon's main loop: serves what waits, between "polls".
    main_loop = std::thread([this] {
      while (!stop) {
        server->run_pending([](const ControlWords& w) {
          if (w[0] == "fail") return control_error("it failed");
          return ControlAnswer{true, "main: " + w[0] + (w.size() > 1 ? " " + w[1] : "") + "\n"};
        });
        std::this_thread::sleep_for(5ms);
      }
    });
  }
  ~Served() {
    stop = true;
    main_loop.join();
    server.reset();
    std::filesystem::remove_all(std::filesystem::path(path).parent_path());
  }
};

TEST_CASE("the control socket answers from its thread and from the main thread", "[tools][control]") {
  Served s;
  struct stat st {};
  REQUIRE(::stat(s.path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);  // no control_group: root only
  auto a = control_call(s.path, {"status"}, 5s);
  REQUIRE(a.ok());
  CHECK(a->ok);
  CHECK(a->body == "from the thread\n");
  auto b = control_call(s.path, {"dump", "/tmp/x"}, 5s);
  REQUIRE(b.ok());
  CHECK(b->body == "main: dump /tmp/x\n");
  auto c = control_call(s.path, {"fail"}, 5s);
  REQUIRE(c.ok());
  CHECK_FALSE(c->ok);
  CHECK(c->body == "it failed");
  CHECK(raw_client(s.path, "status\n") == "ok\nfrom the thread\n");
}

TEST_CASE("a second server on a live socket is refused, a stale one is replaced", "[tools][control]") {
  Served s;
  ControlServerOptions o;
  o.path = s.path;
  auto again = ControlServer::start(o, {});
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().message().find("another daemon listens") != std::string::npos);
}

TEST_CASE("oversized, silent and vanishing clients are answered or dropped, others still served",
          "[tools][control]") {
  Served s(300ms);
  CHECK(raw_client(s.path, std::string(kMaxRequest + 10, 'x')) ==
        "error: request longer than " + std::to_string(kMaxRequest) + " bytes\n");
  raw_client(s.path, "stat", /*close_early=*/true);
  std::string silent;
  std::thread slow([&] { silent = raw_client(s.path, ""); });
  // Served while the silent client waits for its timeout.
  auto a = control_call(s.path, {"status"}, 5s);
  REQUIRE(a.ok());
  CHECK(a->ok);
  slow.join();
  CHECK(silent == "error: timed out waiting for the request line\n");
  CHECK(raw_client(s.path, "\n") == "error: empty request\n");
  const auto events = s.server->take_events();
  auto saw = [&](std::string_view what) {
    for (const auto& e : events)
      if (e.find(what) != std::string::npos) return true;
    return false;
  };
  CHECK(saw("longer than"));
  CHECK(saw("disconnected before its request was complete"));
  CHECK(saw("no complete request in time"));
}

TEST_CASE("the client says when no daemon is there, and when the answer does not come", "[tools][control]") {
  const std::string path = temp_socket();
  auto none = control_call(path, {"status"}, 1s);
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().code() == StatusCode::unavailable);
  CHECK(none.status().message().find("no ibsm daemon at") != std::string::npos);
  // A server whose main thread never serves: the client times out.
  ControlServerOptions o;
  o.path = path;
  auto server = ControlServer::start(o, {});
  REQUIRE(server.ok());
  auto late = control_call(path, {"resweep"}, 200ms);
  REQUIRE_FALSE(late.ok());
  CHECK(late.status().code() == StatusCode::timeout);
  server->reset();
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

}  // namespace
}  // namespace ibsm
