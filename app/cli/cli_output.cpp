// The output conventions every command shares (commands.hpp): stdout for
// results and summaries, stderr for diagnostics, -q/-v, --json FILE|-.
#include <poll.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "stribeck/data/atomic_file.hpp"
#include "stribeck/data/error.hpp"

namespace stribeck::cli {
namespace {

int g_verbosity = 0;  // -1 quiet, 0 normal, 1 verbose
bool g_stdout_json = false;
int g_stdout_error = 0;  // errno of the first failed flush of stdout

void vline(std::FILE* f, const char* prefix, const char* format, std::va_list args) {
  std::fputs(prefix, f);
  std::vfprintf(f, format, args);
  std::fputc('\n', f);
}

}  // namespace

void add_verbosity_flags(CLI::App* cmd) {
  auto* q = cmd->add_flag_callback(
      "-q,--quiet", [] { g_verbosity = -1; },
      "Quiet: no progress lines or notes (results, summaries, warnings, errors stay)");
  auto* v = cmd->add_flag_callback(
      "-v,--verbose", [] { g_verbosity = 1; }, "Verbose: also notes on stderr (threads, wall time)");
  q->excludes(v);
}

bool quiet() { return g_verbosity < 0; }
bool verbose() { return g_verbosity > 0; }
bool stdout_is_json() { return g_stdout_json; }

CLI::Option* add_json_option(CLI::App* cmd, std::string& path, const std::string& what) {
  return cmd->add_option("--json", path, what + " as JSON to FILE ('-': stdout, which then holds only the JSON)")
      ->type_name("FILE|-")
      ->check(CLI::Validator(
          [](std::string& s) { return s.empty() ? std::string("must not be empty") : std::string(); }, ""));
}

void check_json_output(const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) return;
  if (path == "-") {
    g_stdout_json = true;
    return;
  }
  check_output(path, inputs);
}

void write_json_text(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  if (path == "-") {
    std::fputs(text.c_str(), stdout);
    flush_stdout();  // a failure is reported when the command ends (finish_stdout)
    return;
  }
  data::AtomicFile f(path);
  f.write(text);
  f.commit();
}

void write_json(const std::string& path, const nlohmann::json& report) {
  // Strings taken from files may not be UTF-8: replaced, never an exception.
  write_json_text(path, report.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

nlohmann::json json_number(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

void summary(const char* format, ...) {
  if (g_stdout_json) return;
  std::va_list args;
  va_start(args, format);
  vline(stdout, "", format, args);
  va_end(args);
  if (std::ferror(stdout) && !g_stdout_error) g_stdout_error = errno;
}

void result(const std::string& text) {
  if (g_stdout_json) return;
  std::fputs(text.c_str(), stdout);
  if (std::ferror(stdout) && !g_stdout_error) g_stdout_error = errno;
}

void note(const char* format, ...) {
  if (quiet()) return;
  std::va_list args;
  va_start(args, format);
  vline(stderr, "stribeck: ", format, args);
  va_end(args);
}

void note_verbose(const char* format, ...) {
  if (!verbose()) return;
  std::va_list args;
  va_start(args, format);
  vline(stderr, "stribeck: ", format, args);
  va_end(args);
}

bool flush_stdout() {
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  // glibc keeps the bytes of a failed write for the next flush, which then
  // fails with the cause; when nothing is left to flush, errno still holds
  // the cause of the write just before (the callers flush right after
  // writing).
  if (!g_stdout_error) g_stdout_error = errno;
  return false;
}

namespace {
// A pipe whose reader has gone shows POLLERR on its write end.
bool stdout_pipe_closed() {
  pollfd p{STDOUT_FILENO, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLERR);
}
}  // namespace

bool stdout_reader_gone() { return std::ferror(stdout) && (g_stdout_error == EPIPE || stdout_pipe_closed()); }

int finish_stdout(int status) {
  if (flush_stdout()) return status;
  if (status != 0) return status;  // the error line has said what went wrong
  int err = g_stdout_error;
  if (!err) err = stdout_pipe_closed() ? EPIPE : EIO;  // why an earlier write failed is gone
  // The reader of a pipe has gone (`| head`): quiet, with the status of a
  // process ended by SIGPIPE, as git and coreutils end.
  if (err == EPIPE) return 128 + SIGPIPE;
  std::string cause = std::strerror(err);
  cause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(cause[0])));
  std::fprintf(stderr, "stribeck: error: writing standard output: %s\n", cause.c_str());
  return 2;
}

void warn(const std::string& text) { std::fprintf(stderr, "stribeck: warning: %s\n", one_line(text).c_str()); }

std::string resolve_shard(const std::string& shard) {
  if (shard != "auto") return shard;
  // -1: not set (only the ID and the COUNT must be).
  auto slurm = [](const char* name, bool required) -> long long {
    const char* v = std::getenv(name);
    if (!v) {
      if (!required) return -1;
      throw data::InputError(
          std::string("--shard auto: ") + name +
          " is not set (not a Slurm array task: submit with sbatch --array=0-N, or give --shard i/N)");
    }
    const std::string s = v;
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      throw data::InputError(std::string("--shard auto: ") + name + "='" + s + "' is not a whole number");
    return std::stoll(s);
  };
  const long long id = slurm("SLURM_ARRAY_TASK_ID", true), count = slurm("SLURM_ARRAY_TASK_COUNT", true);
  const long long min = slurm("SLURM_ARRAY_TASK_MIN", false), max = slurm("SLURM_ARRAY_TASK_MAX", false);
  const long long first = min < 0 ? 0 : min;
  // Shard i of N takes tasks first .. first + N - 1: an array with a step or
  // gaps (--array=0-15:4, --array=1,5) would leave points of the space out.
  if ((max >= 0 && max - first + 1 != count) || id < first || id - first >= count)
    throw data::InputError("--shard auto: Slurm array task " + std::to_string(id) + " of " + std::to_string(count) +
                           " tasks numbered " + std::to_string(first) + ".." + std::to_string(max >= 0 ? max : id) +
                           " is not shard i of a contiguous array; submit with --array=0-" + std::to_string(count - 1) +
                           ", or give --shard i/N");
  return std::to_string(id - first) + "/" + std::to_string(count);
}

}  // namespace stribeck::cli
