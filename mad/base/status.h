// Status and Result<T>: the core's error channel (the core never throws).
// A small code set in the spirit of absl::Status; messages are lower-case and
// name the object they are about.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace ibsm {

enum class StatusCode : unsigned char {
  ok = 0,
  timeout,
  unavailable,
  invalid_argument,
  not_found,
  failed_precondition,
  internal,
};

const char* status_code_name(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return {}; }
  bool ok() const { return code_ == StatusCode::ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid_argument: short mad (12 bytes)"
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::ok;
  std::string message_;
};

inline Status timeout_error(std::string m) { return {StatusCode::timeout, std::move(m)}; }
inline Status unavailable_error(std::string m) { return {StatusCode::unavailable, std::move(m)}; }
inline Status invalid_argument_error(std::string m) { return {StatusCode::invalid_argument, std::move(m)}; }
inline Status not_found_error(std::string m) { return {StatusCode::not_found, std::move(m)}; }
inline Status failed_precondition_error(std::string m) { return {StatusCode::failed_precondition, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::internal, std::move(m)}; }

// Either a value or a non-ok Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { assert(!status_.ok()); }  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace ibsm

// Propagate a non-ok Status from an expression returning Status.
#define IBSM_RETURN_IF_ERROR(expr)              \
  do {                                          \
    ::ibsm::Status ibsm_status_ = (expr);       \
    if (!ibsm_status_.ok()) return ibsm_status_; \
  } while (0)
