// The daemon's HTTP listener (metrics_listen): GET /metrics serves the
// Prometheus text the main loop last published, and further pages can be
// added on the same listener (the status page serves "/"). cpp-httplib
// serves from a small pool of threads of its own; those threads read only
// what the main loop published (an immutable PublishedPages behind a
// shared_ptr swapped under a mutex) and never touch the core's objects, so a
// slow or hostile client cannot stall a sweep or the SA: at worst it holds
// one pool thread until its read timeout.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "mad/base/log.h"
#include "mad/base/status.h"
#include "sm/config/listen_address.h"
#include "sm/status_page/status_page.h"

namespace ibsm::tools {

// Everything the HTTP threads may serve, rendered by the main loop. Other
// pages' data goes here too, filled in by the same publish step.
struct PublishedPages {
  std::string metrics;  // Prometheus text format 0.0.4
  // The status page's input (immutable, its snapshot shared): the page is
  // rendered on the HTTP thread that serves it, so a large fabric's picture
  // costs the main loop nothing.
  std::shared_ptr<const status::StatusPageInput> status;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
};
// Runs on an HTTP thread with the pages last published (never null).
using PageHandler = std::function<HttpReply(const PublishedPages& pages)>;

struct HttpListenerOptions {
  ListenAddress address;
  int threads = 2;              // requests served at once; more wait their turn
  int timeout_seconds = 2;      // read, write and keep-alive idle, per connection
  size_t max_request_body = 1024;  // GETs carry none
  // More paths than /metrics: path -> handler (the status page's "/").
  std::map<std::string, PageHandler> pages;
};

class HttpListener {
 public:
  // Binds at once: a bind failure (address in use, no such address) is the
  // error, naming the address. Serves from then on until destroyed.
  static Result<std::unique_ptr<HttpListener>> start(HttpListenerOptions options, LogSink& log);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // The main loop hands over what to serve from now on.
  void publish(std::shared_ptr<const PublishedPages> pages);
  // The port bound (the one asked for, or the one chosen for port 0).
  int port() const;

  struct Impl;

 private:
  explicit HttpListener(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibsm::tools
