// A small command-line reader for the subcommands: long options with a value
// (--name VALUE or --name=VALUE), flags, short aliases, positionals. Errors
// are collected as text so each command prints them with its usage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ibsm::tools {

class Args {
 public:
  Args(int argc, char** argv);  // argv[0] is the command name and is skipped

  // True if the flag is present (consumes it). `alias` is a short form like "-v".
  bool flag(std::string_view name, std::string_view alias = {});
  // The value of an option (consumes it); nullopt when absent.
  std::optional<std::string> value(std::string_view name, std::string_view alias = {});
  // Typed values: record an error when present but malformed or out of range.
  std::optional<int64_t> integer(std::string_view name, int64_t min, int64_t max, std::string_view alias = {});
  std::optional<uint64_t> guid(std::string_view name, std::string_view alias = {});

  // Call after taking every option: what is left that starts with '-' is an
  // unknown option (an error); the rest are positionals.
  std::vector<std::string> positionals();
  const std::vector<std::string>& errors() const { return errors_; }
  bool ok() const { return errors_.empty(); }

 private:
  std::optional<size_t> find(std::string_view name, std::string_view alias, std::string* inline_value);

  std::vector<std::string> items_;
  std::vector<bool> used_;
  std::vector<std::string> errors_;
};

}  // namespace ibsm::tools
