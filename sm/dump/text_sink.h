// Formats text into a memory buffer and hands it to a stream in large pieces:
// the dumps of a big fabric run to millions of short lines.
#pragma once

#include <iterator>
#include <ostream>
#include <string_view>
#include <utility>

#include <fmt/format.h>

namespace ibsm::dump {

class TextSink {
 public:
  explicit TextSink(std::ostream& out) : out_(out) {}
  ~TextSink() { flush(); }
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  template <typename... Args>
  void print(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(buffer_), format, std::forward<Args>(args)...);
    if (buffer_.size() >= kFlushAt) flush();
  }
  void put(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushAt) flush();
  }
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

 private:
  static constexpr size_t kFlushAt = 1 << 16;
  std::ostream& out_;
  fmt::memory_buffer buffer_;
};

}  // namespace ibsm::dump
