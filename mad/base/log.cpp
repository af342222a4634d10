#include "mad/base/log.h"

namespace ibsm {

const char* log_level_name(LogLevel l) {
  switch (l) {
    case LogLevel::error: return "error";
    case LogLevel::warn: return "warn";
    case LogLevel::info: return "info";
    case LogLevel::debug: return "debug";
    case LogLevel::trace: return "trace";
  }
  return "?";
}

const char* subsystem_name(Subsystem s) {
  switch (s) {
    case Subsystem::core: return "core";
    case Subsystem::mad: return "mad";
    case Subsystem::sim: return "sim";
    case Subsystem::discovery: return "discovery";
    case Subsystem::sweep: return "sweep";
    case Subsystem::routing: return "routing";
    case Subsystem::sa: return "sa";
    case Subsystem::state: return "state";
    case Subsystem::tools: return "tools";
    case Subsystem::perfmgr: return "perfmgr";
    case Subsystem::count_: break;
  }
  return "?";
}

LogSink& null_log_sink() {
  static NullLogSink sink;
  return sink;
}

void vlog(LogSink& sink, LogLevel level, Subsystem subsystem, fmt::string_view format, fmt::format_args args) {
  fmt::memory_buffer buf;
  fmt::vformat_to(std::back_inserter(buf), format, args);
  sink.write(level, subsystem, std::string_view(buf.data(), buf.size()));
}

}  // namespace ibsm
