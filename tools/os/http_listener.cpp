// The only file that includes cpp-httplib (its header is large).
#include "tools/os/http_listener.h"

#include <cerrno>
#include <cstring>
#include <mutex>
#include <thread>

#include <sys/socket.h>

#include <fmt/format.h>
#include <httplib.h>

namespace ibsm::tools {

// The Prometheus text exposition format's content type (format 0.0.4).
namespace {

constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

const char* reason(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    default: return "Error";
  }
}

}  // namespace

struct HttpListener::Impl {
  httplib::Server server;
  std::thread thread;
  int port = 0;
  mutable std::mutex mutex;
  std::shared_ptr<const PublishedPages> pages = std::make_shared<const PublishedPages>();

  std::shared_ptr<const PublishedPages> latest() const {
    std::lock_guard<std::mutex> lock(mutex);
    return pages;
  }
};

HttpListener::HttpListener(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpListener::~HttpListener() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

void HttpListener::publish(std::shared_ptr<const PublishedPages> pages) {
  if (!pages) return;
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->pages = std::move(pages);
}

int HttpListener::port() const { return impl_->port; }

Result<std::unique_ptr<HttpListener>> HttpListener::start(HttpListenerOptions options, LogSink& log) {
  auto impl = std::make_unique<Impl>();
  Impl* self = impl.get();
  httplib::Server& s = impl->server;
  const int threads = std::max(1, options.threads);
  s.new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
  s.set_read_timeout(options.timeout_seconds, 0);
  s.set_write_timeout(options.timeout_seconds, 0);
  // A client that connects and sends nothing holds a pool thread this long.
  s.set_keep_alive_timeout(options.timeout_seconds);
  s.set_keep_alive_max_count(8);
  s.set_payload_max_length(options.max_request_body);
  // SO_REUSEADDR only (a restart rebinds past TIME_WAIT). cpp-httplib's
  // default also sets SO_REUSEPORT, with which a second daemon binds the same
  // port and the kernel splits the scrapes between the two.
  s.set_socket_options([](socket_t sock) {
    int yes = 1;
    (void)setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });

  std::map<std::string, PageHandler> pages = std::move(options.pages);
  pages["/metrics"] = [](const PublishedPages& p) {
    return HttpReply{200, kMetricsContentType, p.metrics};
  };
  // Only GET (and HEAD, which cpp-httplib answers from the GET handler)
  // reads a page; anything else on a known path is 405, elsewhere 404.
  s.set_pre_routing_handler([pages](const httplib::Request& req, httplib::Response& res) {
    if (req.method == "GET" || req.method == "HEAD") return httplib::Server::HandlerResponse::Unhandled;
    res.status = pages.count(req.path) ? 405 : 404;
    if (res.status == 405) res.set_header("Allow", "GET, HEAD");
    return httplib::Server::HandlerResponse::Handled;
  });
  for (const auto& [path, handler] : pages) {
    s.Get(path, [self, handler](const httplib::Request&, httplib::Response& res) {
      const std::shared_ptr<const PublishedPages> published = self->latest();
      HttpReply reply = handler(*published);
      res.status = reply.status;
      res.set_content(std::move(reply.body), reply.content_type.c_str());
    });
  }
  // Errors (404, 405, 414, 400...) get a one-line body saying which.
  s.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    res.set_content(fmt::format("{} {}\n", res.status, reason(res.status)), "text/plain");
  });

  const ListenAddress& a = options.address;
  errno = 0;
  bool bound = false;
  if (a.port == 0) {
    impl->port = s.bind_to_any_port(a.host);
    bound = impl->port > 0;
  } else {
    bound = s.bind_to_port(a.host, a.port);
    impl->port = a.port;
  }
  if (!bound) {
    const int err = errno;
    return unavailable_error(fmt::format("metrics_listen {}:{}: cannot listen there{}", a.host, a.port,
                                         err ? fmt::format(" ({})", std::strerror(err)) : std::string()));
  }
  if (!a.loopback())
    ibsm::log(log, LogLevel::warn, Subsystem::tools,
              "metrics_listen {}:{} is not a loopback address: the metrics are open to the network", a.host,
              impl->port);
  ibsm::log(log, LogLevel::info, Subsystem::tools, "serving metrics on http://{}:{}/metrics", a.host, impl->port);
  impl->thread = std::thread([self] { self->server.listen_after_bind(); });
  return std::unique_ptr<HttpListener>(new HttpListener(std::move(impl)));
}

}  // namespace ibsm::tools
